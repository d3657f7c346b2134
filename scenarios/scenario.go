package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// Swarm is the default campaign: the production elector with its default
// settings under harness.Swarm, every seed drawing its own fault plan; on
// one seed in eight its applications also hand watermarks over
// (withWatermarkApps), judged by the watermark checker and the watermark
// API's contract.
var Swarm = withWatermarkApps(harness.Swarm("swarm", elector.Protocol(elector.DefaultSettings)), elector.DefaultSettings)

// Reference is the scenario of the benchmark: five nodes, one simulated
// minute, clocks with offsets and drift within the elector's bound, and
// rolling restarts: some nodes are asked to stop (releasing their lease if
// they lead) and come back a little later, some under a new identity.
var Reference = harness.Drawn(harness.Scenario{
	Name:   "reference",
	Doc:    "5 nodes, 60 s, clock offsets and drift within bounds, rolling restarts with release",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		return harness.Setup{Config: harness.World(seed), Plan: rollingRestarts(src.Sub("reference"), 5), Protocol: p}
	},
})

// rollingRestarts is the reference plan: every node a clock within the
// elector's drift bound; about half the nodes stopped between 5 s and 35 s
// and restarted one to three seconds later; every choice c's.
func rollingRestarts(c *faults.Source, nodes int) *faults.Plan {
	p := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
	for i := range nodes {
		p.Clocks = append(p.Clocks, faults.ClockSetting{
			Node:     i,
			Offset:   faults.Duration(time.Duration(c.Choose(uint64(4*time.Second))) - 2*time.Second),
			DriftPPM: int64(c.Choose(401)) - 200,
		})
		if c.Choose(2) == 0 {
			continue
		}
		stopAt := 5*time.Second + time.Duration(c.Choose(uint64(30*time.Second)))
		down := time.Second + time.Duration(c.Choose(uint64(2*time.Second)))
		identity := ""
		if c.Choose(2) == 0 {
			identity = fmt.Sprintf("n%d-r", i)
		}
		p.Events = append(p.Events,
			faults.Event{Kind: faults.Stop, At: faults.Duration(stopAt), Node: i},
			faults.Event{Kind: faults.Restart, At: faults.Duration(stopAt + down), Node: i, Identity: identity})
	}
	return p
}
