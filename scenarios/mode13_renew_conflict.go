package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// RenewConflict is a renewal conflict
// (docs/failure-modes.md#13-renewal-conflict): S3 answers the leader's
// renewals 409 ConditionalRequestConflict, and the leader must not go on
// believing it leads past its deadline.
var RenewConflict = harness.Drawn(harness.Scenario{
	Name: "renew-conflict",
	Doc: "S3 answers 409 ConditionalRequestConflict to a run of each node's PutObjects from its second on, its renewals if it leads: " +
		"on some seeds 3-8 of them (the leader's retries get through and its term goes on), on others 30 " +
		"(no renewal succeeds, and the term ends at its local deadline, never later).",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 35 * time.Second
		c := src.Sub("renew-conflict")
		refused := 3 + int(c.Choose(6))
		if c.Choose(2) == 0 {
			refused = 30
		}
		plan := &faults.Plan{HealAt: faults.Duration(20 * time.Second)}
		for i := range cfg.Nodes {
			for nth := 2; nth < 2+refused; nth++ {
				plan.Events = append(plan.Events, faults.Event{
					Kind: faults.Refused, Node: i, Op: "PutObject", Nth: nth, Code: "ConditionalRequestConflict",
				})
			}
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
