package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// WallClockJump is a wall-clock jump
// (docs/failure-modes.md#6-wall-clock-jump): wall clocks step (an NTP step,
// a manual change) forwards and backwards by minutes to hours, on the leader
// and on the followers.
var WallClockJump = harness.Drawn(harness.Scenario{
	Name: "wall-clock-jump",
	Doc: "While one node leads, every node's wall clock steps by one minute to six hours, forwards or backwards; " +
		"the term goes on. Later the leader crashes and, while the followers time its abandoned lease, their wall " +
		"clocks step again: one takes over a lease later, neither at once nor hours late. The elector ignores wall time.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("wall-clock-jump")
		plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
		leader := modeAFirstLeader(c, plan, cfg.Nodes)
		step := func() faults.Duration {
			by := modeARange(c, time.Minute, 6*time.Hour)
			if c.Choose(2) == 0 {
				by = -by
			}
			return faults.Duration(by)
		}
		jump := modeARange(c, 3*time.Second, 15*time.Second)
		crash := modeARange(c, 20*time.Second, 26*time.Second)
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events,
				faults.Event{Kind: faults.ClockJump, Node: i, At: faults.Duration(jump), By: step()},
				faults.Event{Kind: faults.ClockJump, Node: i, At: faults.Duration(crash + modeARange(c, 0, 6*time.Second)), By: step()})
		}
		plan.Events = append(plan.Events,
			faults.Event{Kind: faults.Crash, Node: leader, At: faults.Duration(crash)},
			faults.Event{Kind: faults.Restart, Node: leader, At: faults.Duration(crash + modeARange(c, time.Second, 3*time.Second))})
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
