package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// WriteConflict is the other face of the ambiguous conditional write
// (docs/failure-modes.md#10-ambiguous-conditional-write): S3 answers
// conditional writes 409 ConditionalRequestConflict without applying them:
// every node's first, and, by chance, those sent while another conditional
// write on the key is in flight.
var WriteConflict = harness.Drawn(harness.Scenario{
	Name: "write-conflict",
	Doc: "S3 answers 409 ConditionalRequestConflict to every node's first PutObject and to most conditional writes " +
		"sent while another is in flight, as nodes stop and restart; a 409 means not applied, " +
		"so the candidates re-read, back off and try again, and one of them leads.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 35 * time.Second
		c := src.Sub("write-conflict")
		plan := &faults.Plan{HealAt: faults.Duration(18 * time.Second)}
		plan.S3.ConflictOnOverlapPPM = 500_000 + int64(c.Choose(500_001))
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.Refused, Node: i, Op: "PutObject", Nth: 1, Code: "ConditionalRequestConflict",
			})
			// Each node stops once and comes back, so that released leases
			// are raced for again while conditional writes overlap.
			stop := 3*time.Second + time.Duration(c.Choose(uint64(10*time.Second)))
			down := 500*time.Millisecond + time.Duration(c.Choose(uint64(time.Second)))
			plan.Events = append(plan.Events,
				faults.Event{Kind: faults.Stop, At: faults.Duration(stop), Node: i},
				faults.Event{Kind: faults.Restart, At: faults.Duration(stop + down), Node: i, Identity: fmt.Sprintf("n%d-r", i)})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
