package schema

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
)

// Zoo is what `simrun zoo -json` prints: for each lock of the zoo, the
// first seed that caught it.
type Zoo struct {
	Header
	// Budget is the most seeds run per scenario, from Start.
	Budget   int    `json:"budget"`
	Start    uint64 `json:"start"`
	Workers  int    `json:"workers"`
	Variants int    `json:"variants"`
	Caught   int    `json:"caught"`
	// ControlPassed: the careful lock passed its whole budget.
	ControlPassed bool            `json:"controlPassed"`
	Wall          faults.Duration `json:"wall"`
	// Swarm: zoo -swarm, every variant (the masked ones too) under plain
	// swarm seeds. MedianCatch and MaxCatch are the median and the longest
	// time to a variant's first failing seed, set when every variant was
	// caught; GOMAXPROCS is the run's.
	Swarm       bool            `json:"swarm,omitempty"`
	MedianCatch faults.Duration `json:"medianCatch,omitempty"`
	MaxCatch    faults.Duration `json:"maxCatch,omitempty"`
	GOMAXPROCS  int             `json:"gomaxprocs"`
	// Guided: zoo -guided, every variant under a guided campaign of its
	// own (its runs in Seeds, a failure's reproducer in Reproducer).
	Guided bool     `json:"guided,omitempty"`
	Rows   []ZooRow `json:"rows"`
}

// ZooRow is one lock of the zoo: its first failing seed, or that there was
// none within the budget.
type ZooRow struct {
	Scenario string `json:"scenario"`
	// Control marks the careful lock, which must pass every seed; the
	// variants must each fail one.
	Control bool `json:"control,omitempty"`
	// Masked marks a variant of zoo.Masked (zoo -masked).
	Masked bool `json:"masked,omitempty"`
	// Caught: a seed failed.
	Caught bool `json:"caught"`
	// Seeds is how many seeds ran: up to and including the first failing
	// one, or the whole budget; Wall the time they took.
	Seeds int             `json:"seeds"`
	Wall  faults.Duration `json:"wall"`
	// Outside counts the seeds that left the protocol's assumptions;
	// Judged is what the seeds' checkers judged (nil in documents before
	// version 4).
	Outside int             `json:"outsideAssumptions"`
	Judged  *harness.Judged `json:"judged,omitempty"`
	// Of the first failing seed: its number and verdict, its first
	// violation (or, for a crash, Failure), the number of events in its
	// fault plan, with -shrink the events left after shrinking and the
	// runs it took, and the command that replays it.
	Seed          uint64                     `json:"seed,omitempty"`
	Verdict       string                     `json:"verdict,omitempty"`
	Violation     *linearizability.Violation `json:"violation,omitempty"`
	Failure       string                     `json:"failure,omitempty"`
	PlanEvents    int                        `json:"planEvents,omitempty"`
	ShrunkEvents  *int                       `json:"shrunkEvents,omitempty"`
	ShrinkRuns    int                        `json:"shrinkRuns,omitempty"`
	Replay        string                     `json:"replay,omitempty"`
	ShrinkFailure string                     `json:"shrinkFailure,omitempty"`
	// Shrunk is the file of the shrunk reproducer (zoo -shrink):
	// VARIANT.min.json in zoo -out's directory.
	Shrunk string `json:"shrunk,omitempty"`
	// Of a guided campaign's first failure: the reproducer file written,
	// and, for a run derived from its corpus, the run it was derived from
	// (Seed is then the world's seed, which the plan replaces).
	Reproducer string `json:"reproducer,omitempty"`
	Parent     uint64 `json:"parent,omitempty"`
}
