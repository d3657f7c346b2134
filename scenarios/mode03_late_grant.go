package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// LateGrant is a late grant (docs/failure-modes.md#3-late-grant): the answer
// granting the lease arrives, or is learnt, only after the lease it grants
// has expired.
var LateGrant = harness.Drawn(harness.Scenario{
	Name: "late-grant",
	Doc: "Every node's first PutObject (for most, the race to create the lock) is answered 7-10 s late, longer than the " +
		"lease, and S3 is so slow for the first seconds that reads time out too. The winner gives up waiting for " +
		"the grant; when it finally reads its own record after the term it would have granted is over, it does not " +
		"lead with that token but takes the lock again with a new one.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("late-grant")
		plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
		for i := range cfg.Nodes {
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.AnswerDelayed, Node: i, Op: "PutObject", Nth: 1,
				By: faults.Duration(modeARange(c, 7*time.Second, 10*time.Second)),
			})
		}
		// Every node's first read is answered within 80 ms and its first
		// PutObject is sent then. From 100 ms every other request takes a
		// second longer on each leg, more than the request timeout, until
		// the window closes: mostly after the grant's term would have
		// ended, for a few seeds before it.
		const from = 100 * time.Millisecond
		plan.Events = append(plan.Events, faults.Event{
			Kind: faults.SlowS3, At: faults.Duration(from), By: faults.Duration(time.Second),
			For: faults.Duration(modeARange(c, time.Second, 7*time.Second) - from),
		})
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
