package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// AmbiguousWrite is the ambiguous conditional write
// (docs/failure-modes.md#10-ambiguous-conditional-write): the acquiring
// PutObject is applied but its answer is replaced by a 500, the SDK's
// retryer sends it again and the retry is answered 412 against the node's
// own write.
var AmbiguousWrite = harness.Drawn(harness.Scenario{
	Name: "ambiguous-write",
	Doc: "Every node's first PutObject is applied but answered 500 InternalError, and so is one later one (a renewal, for the leader); " +
		"the SDK retries (3 attempts) and the retry gets 412 against the node's own write. " +
		"The winner re-reads, recognises its nonce and leads with the token of the write it thought it lost.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 30 * time.Second
		c := src.Sub("ambiguous-write")
		plan := &faults.Plan{HealAt: faults.Duration(12 * time.Second), SDKAttempts: 3}
		// A later PutObject of every node (a renewal, for the leader) meets
		// the same fate.
		later := 4 + int(c.Choose(5))
		for i := range cfg.Nodes {
			for _, nth := range []int{1, later} {
				plan.Events = append(plan.Events, faults.Event{
					Kind: faults.AnswerFailed, Node: i, Op: "PutObject", Nth: nth, Code: "InternalError",
				})
			}
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
