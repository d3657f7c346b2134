package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// ClockSkew is clock offset and drift
// (docs/failure-modes.md#7-clock-offset-and-drift) inside the elector's
// assumptions: wall clocks minutes apart and clock rates up to the assumed
// 1000 ppm apart, in the worst direction for a handover.
var ClockSkew = harness.Drawn(harness.Scenario{
	Name: "clock-skew",
	Doc: "Wall clocks are up to five minutes apart and clock rates differ by up to the assumed 1000 ppm: the " +
		"leader's clock runs 0.1% slow, so its term lasts longest, and a follower's 0.1% fast, so it ends the " +
		"lease soonest. The leader is cut off from S3; its term still ends before anyone takes over.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		return modeASkewedHandover(seed, src.Sub("clock-skew"), elector.DefaultSettings.ClockDriftPPM, elector.DefaultSettings.ClockDriftPPM)
	},
})

// modeASkewedHandover is a handover under skewed clocks: a chosen first
// leader whose clock runs drift ppm slow, followers at random rates within
// drift of true time, one of them drift ppm fast, every wall clock up to
// five minutes off; the leader is cut off from S3 between 5 s and 15 s for
// 10-12 s, so a follower takes over its abandoned lease. The drift is drawn
// from [minDrift, maxDrift]. Every choice is c's.
func modeASkewedHandover(seed uint64, c *faults.Source, minDrift, maxDrift int64) harness.Setup {
	p := elector.Protocol(elector.DefaultSettings)
	cfg := harness.World(seed)
	plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
	leader := modeAFirstLeader(c, plan, cfg.Nodes)
	drift := minDrift + int64(c.Choose(uint64(maxDrift-minDrift)+1))
	for i := range cfg.Nodes {
		rate := int64(c.Choose(uint64(2*drift)+1)) - drift
		switch i {
		case leader:
			rate = -drift
		case (leader + 1) % cfg.Nodes:
			rate = drift
		}
		cs := faults.ClockSetting{
			Node:     i,
			Offset:   faults.Duration(modeARange(c, 0, 10*time.Minute) - 5*time.Minute),
			DriftPPM: rate,
		}
		if rate > p.Assumptions.MaxDriftPPM || -rate > p.Assumptions.MaxDriftPPM {
			cs.DriftUntil = plan.HealAt // a drift beyond the bound heals, like every fault
		}
		plan.Clocks = append(plan.Clocks, cs)
	}
	plan.Events = append(plan.Events, faults.Event{
		Kind: faults.Partition, Node: leader,
		At:        faults.Duration(modeARange(c, 5*time.Second, 15*time.Second)),
		For:       faults.Duration(modeARange(c, 10*time.Second, 12*time.Second)),
		Blackhole: c.Choose(2) == 0,
	})
	return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
}
