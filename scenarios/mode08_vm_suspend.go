package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// VMSuspend is a stopped monotonic clock
// (docs/failure-modes.md#8-monotonic-clock-stops): a node's VM is suspended,
// so its process and its monotonic clock both stop, for longer than the
// lease.
var VMSuspend = register(harness.Scenario{
	Name: "vm-suspend",
	Doc: "Each node's VM is suspended once, at its own random instant, for 7-12 s: its process and its monotonic " +
		"clock stop. When the leader's turn comes, another node takes over during the suspension; on resume the old " +
		"leader's clock says almost no time has passed, so it still believes it leads until its next renewal fails, " +
		"and the resource refuses the writes it sends meanwhile under its old token.",
	Expect: harness.Fenced,
	Build: func(seed uint64) harness.Setup {
		p := harness.Elector(harness.DefaultElectorSettings)
		cfg := harness.World(seed)
		c := sim.NewRandomChooser(seed ^ 0x6d6f646530385f76)
		plan := &faults.Plan{HealAt: faults.Duration(43 * time.Second)}
		// Only a node's own stall ends its term, so the first leader is
		// stalled while it leads; later leaders may be too.
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.ClockStall, Node: i,
				At:  faults.Duration(modeARange(c, 2*time.Second, 30*time.Second)),
				For: faults.Duration(modeARange(c, 7*time.Second, 12*time.Second)),
			})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
