package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// LeaderCrash is liveness after crashes
// (docs/failure-modes.md#14-liveness-after-crashes): the holder crashes
// without releasing, and the candidates that come back are strangers to its
// record. The lease must
// expire (no wedge), and no candidate may take it before a full lease.
var LeaderCrash = harness.Drawn(harness.Scenario{
	Name: "leader-crash",
	Doc: "Every node crashes at once, the leader with them, and each restarts 0.2-3 s later under a new identity: " +
		"none recognises the record, so each waits a full lease from its first read before taking over; " +
		"16-18 s later one random node crashes and restarts as a stranger again (on some seeds the leader).",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 45 * time.Second
		c := src.Sub("leader-crash")
		plan := &faults.Plan{HealAt: faults.Duration(29 * time.Second)}
		down := func() time.Duration {
			return 200*time.Millisecond + time.Duration(c.Choose(uint64(2800*time.Millisecond)))
		}
		crash := func(at time.Duration, node int, identity string) {
			plan.Events = append(plan.Events,
				faults.Event{Kind: faults.Crash, At: faults.Duration(at), Node: node},
				faults.Event{Kind: faults.Restart, At: faults.Duration(at + down()), Node: node, Identity: identity})
		}
		all := 4*time.Second + time.Duration(c.Choose(uint64(3*time.Second)))
		for i := range cfg.Nodes {
			crash(all, i, fmt.Sprintf("n%d-r1", i))
		}
		one := int(c.Choose(uint64(cfg.Nodes)))
		crash(all+16*time.Second+time.Duration(c.Choose(uint64(2*time.Second))), one, fmt.Sprintf("n%d-r2", one))
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
