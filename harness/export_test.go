package harness

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// What the external tests need of the engine's internals.
var HealedAt = healedAt

// Excuses is excuses without the lineage.
func Excuses(p Protocol, plan *faults.Plan, h *sim.History) []Excuse {
	xs, _ := excuses(p, plan, h)
	return xs
}
