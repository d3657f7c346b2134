package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// CreateRace is the production elector in the contention that breaks
// UnconditionalWrite: every node races for an absent object at the same
// instant, with equal latencies, and again for each released lease.
var CreateRace = harness.Drawn(harness.Scenario{
	Name: "create-race",
	Doc: "Five nodes start at once and race to create the absent lock object, every S3 leg taking the same time; " +
		"twice more, all stop (the leader releases) and restart together to race for the released record. " +
		"Conditional writes let exactly one win each race.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 35 * time.Second
		c := src.Sub("create-race")
		leg := 2*time.Millisecond + time.Duration(c.Choose(uint64(38*time.Millisecond)))
		cfg.S3Request = sim.Latency{Min: leg, Max: leg}
		cfg.S3Response = cfg.S3Request
		plan := &faults.Plan{HealAt: faults.Duration(20 * time.Second)}
		at := time.Duration(0)
		for round := range 2 {
			at += 5*time.Second + time.Duration(c.Choose(uint64(2*time.Second)))
			for i := range cfg.Nodes {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, At: faults.Duration(at + 2*time.Second), Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round+1)})
			}
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
