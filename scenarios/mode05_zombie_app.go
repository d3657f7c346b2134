package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// ZombieApp is a zombie application
// (docs/failure-modes.md#5-zombie-application): the application goes on
// working after its leadership ended, ignoring its cancelled context.
var ZombieApp = harness.Drawn(harness.Scenario{
	Name: "zombie-app",
	Doc: "Every node's application ignores the end of its term and keeps writing for 5-9 s. The leader is cut " +
		"off from S3, so its term ends at its deadline and another node takes over, while the old application " +
		"is still writing under its old token; the resource refuses those writes once the new token has arrived.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("zombie-app")
		plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
		leader := modeAFirstLeader(c, plan, cfg.Nodes)
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.Linger, Node: i, By: faults.Duration(modeARange(c, 5*time.Second, 9*time.Second)),
			})
		}
		plan.Events = append(plan.Events, faults.Event{
			Kind: faults.Partition, Node: leader,
			At:        faults.Duration(modeARange(c, 3*time.Second, 15*time.Second)),
			For:       faults.Duration(modeARange(c, 9*time.Second, 12*time.Second)),
			Blackhole: c.Choose(2) == 0,
		})
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
