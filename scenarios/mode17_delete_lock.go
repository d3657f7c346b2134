package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// DeleteLock is a deleted lock object
// (docs/failure-modes.md#17-lock-object-deleted-or-overwritten): someone
// else deletes the lock object, and with it the token sequence the object
// kept.
var DeleteLock = harness.Drawn(harness.Scenario{
	Name: "delete-lock",
	Doc: "After two hand-overs, someone deletes the lock object while a node leads. The leader stops at its next renewal; " +
		"every elector that had seen the object times its absence for a lease before recreating it. " +
		"On half the seeds a node restarts just after the delete, never saw the object, and recreates it at once, " +
		"which may overlap the old leader until its next renewal. Tokens go on rising either way: " +
		"each acquisition's token is at least the acquirer's wall clock in Unix milliseconds, so the fence accepts the new leader's writes.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 29 * time.Second
		c := src.Sub("delete-lock")
		plan := &faults.Plan{}
		modeBHandOver(plan, cfg.Nodes)
		at := 6*time.Second + time.Duration(c.Choose(uint64(3*time.Second)))
		plan.HealAt = faults.Duration(at + 2*time.Second)
		plan.Events = append(plan.Events, faults.Event{Kind: faults.DeleteLock, At: faults.Duration(at)})
		if c.Choose(2) == 0 {
			n := int(c.Choose(uint64(cfg.Nodes)))
			back := at + time.Millisecond + time.Duration(c.Choose(uint64(50*time.Millisecond)))
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Restart, At: faults.Duration(back), Node: n, Identity: fmt.Sprintf("n%d-new", n)})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// modeBHandOver makes the lease change hands twice before 5 s, so that the token
// in the lock object is 3: every node stops at 1.5 s and 3.5 s (the leader
// releases) and restarts 0.5 s later.
func modeBHandOver(plan *faults.Plan, nodes int) {
	for round, at := range []time.Duration{1500 * time.Millisecond, 3500 * time.Millisecond} {
		for i := range nodes {
			plan.Events = append(plan.Events,
				faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
				faults.Event{Kind: faults.Restart, At: faults.Duration(at + 500*time.Millisecond), Node: i, Identity: fmt.Sprintf("n%d-h%d", i, round+1)})
		}
	}
}
