package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// HungRenew is a hung renewal (docs/failure-modes.md#4-hung-renewal): the
// leader's renewal hangs for longer than the lease, as it would under an
// HTTP timeout longer than the lease.
var HungRenew = harness.Drawn(harness.Scenario{
	Name: "hung-renew",
	Doc: "While a node leads, S3 becomes so slow that every request would take 7-10 s to answer, longer than the " +
		"6 s lease. The elector's request timeout (1.5 s) cuts the hung renewals, and the leader steps down at its " +
		"deadline, 4 s after its last successful renewal was sent, instead of waiting for an answer.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("hung-renew")
		plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
		// The first leader leads from the first 100 ms until something
		// goes wrong: the window opens while it leads.
		plan.Events = append(plan.Events, faults.Event{
			Kind: faults.SlowS3,
			At:   faults.Duration(modeARange(c, 3*time.Second, 20*time.Second)),
			For:  faults.Duration(modeARange(c, 8*time.Second, 12*time.Second)),
			By:   faults.Duration(modeARange(c, 3500*time.Millisecond, 5*time.Second)),
		})
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
