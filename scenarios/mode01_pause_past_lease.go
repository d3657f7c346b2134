package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// PausePastLease is a pause longer than the lease
// (docs/failure-modes.md#1-pause-longer-than-the-lease): the leader's
// application checks that it still leads, then its process stops for longer
// than the lease before it sends the guarded write.
var PausePastLease = harness.Drawn(harness.Scenario{
	Name: "pause-past-lease",
	Doc: "Every leader, at its k-th fenced write, checks its lease and then stalls for 8-12 s, far longer than " +
		"the 6 s lease; meanwhile another node takes over. When the old leader wakes it still believes it leads " +
		"and sends the write under its old token; the fenced resource refuses it.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 90 * time.Second
		c := src.Sub("pause-past-lease")
		plan := &faults.Plan{HealAt: faults.Duration(70 * time.Second)}
		// The same aimed pause on every node: only a leader makes fenced
		// writes, so whoever leads when it reaches its k-th write is hit.
		nth := 2 + int(c.Choose(7))
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.PauseBefore, Node: i, Nth: nth,
				For: faults.Duration(modeARange(c, 8*time.Second, 12*time.Second)),
			})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// modeARange returns a duration in [lo, hi] chosen by c, in whole
// milliseconds so that plans print readably.
func modeARange(c *faults.Source, lo, hi time.Duration) time.Duration {
	steps := uint64((hi - lo) / time.Millisecond)
	return lo + time.Duration(c.Choose(steps+1))*time.Millisecond
}
