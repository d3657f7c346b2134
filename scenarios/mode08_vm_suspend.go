package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// VMSuspend is a stopped monotonic clock
// (docs/failure-modes.md#8-monotonic-clock-stops): a node's VM is suspended,
// so its process and its monotonic clock both stop, for longer than the
// lease.
var VMSuspend = harness.Drawn(harness.Scenario{
	Name: "vm-suspend",
	Doc: "Each node's VM is suspended once, one node after another in a random order, each for 10-12 s (longer " +
		"than a lease and the retries a follower needs to take over), never two at once: its process and its " +
		"monotonic clock stop. When the leader's turn comes, another node takes over during the suspension; on " +
		"resume the old leader's clock says almost no time has passed, so it still believes it leads until its " +
		"next renewal fails, and the resource refuses the writes it sends meanwhile under its old token.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("vm-suspend")
		plan := &faults.Plan{}
		// Only a node's own stall ends its term, so every leader is stalled
		// while it leads, the first one included. The suspensions never
		// overlap, so a follower is always awake to take over, and each
		// outlasts what a follower needs: a lease of the record unchanged,
		// a retry period, a request.
		at := modeARange(c, 2*time.Second, 6*time.Second)
		for _, i := range permutation(c, cfg.Nodes) {
			d := modeARange(c, 10*time.Second, 12*time.Second)
			plan.Events = append(plan.Events, faults.Event{Kind: faults.ClockStall, Node: i,
				At: faults.Duration(at), For: faults.Duration(d)})
			at += d + modeARange(c, time.Second, 3*time.Second)
		}
		plan.HealAt = faults.Duration(at)
		cfg.Duration = at + 20*time.Second
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// permutation returns 0..n-1 in an order c chooses.
func permutation(c *faults.Source, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(c.Choose(uint64(i + 1)))
		out[i], out[j] = out[j], out[i]
	}
	return out
}
