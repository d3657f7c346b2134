package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// modeBGarbageRecord is what another tool writes over the lock object in
// OverwriteLock: not a lock record at all.
const modeBGarbageRecord = "# lifecycle-rule placeholder: this key is managed by ops\n"

// OverwriteLock is the other half of
// docs/failure-modes.md#17-lock-object-deleted-or-overwritten: someone
// overwrites the lock object with something that is not a lock record, and
// with it the token sequence the object kept.
var OverwriteLock = harness.Drawn(harness.Scenario{
	Name: "overwrite-lock",
	Doc: "After two hand-overs, another tool overwrites the lock object with a text that is no lock record. " +
		"The leader stops at its next renewal; everyone times the foreign object for a full lease before taking it over. " +
		"On half the seeds a node restarts just after the overwrite and never saw the old tokens; " +
		"its token is still above them (at least its wall clock in Unix milliseconds), and the fence accepts its writes.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 29 * time.Second
		c := src.Sub("overwrite-lock")
		plan := &faults.Plan{}
		modeBHandOver(plan, cfg.Nodes)
		at := 6*time.Second + time.Duration(c.Choose(uint64(3*time.Second)))
		plan.HealAt = faults.Duration(at + 2*time.Second)
		plan.Events = append(plan.Events, faults.Event{Kind: faults.Overwrite, At: faults.Duration(at), Body: modeBGarbageRecord})
		if c.Choose(2) == 0 {
			n := int(c.Choose(uint64(cfg.Nodes)))
			back := at + time.Millisecond + time.Duration(c.Choose(uint64(50*time.Millisecond)))
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Restart, At: faults.Duration(back), Node: n, Identity: fmt.Sprintf("n%d-new", n)})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
