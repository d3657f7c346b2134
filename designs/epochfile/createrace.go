package epochfile

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// createRaceRounds is how many times CreateRace stops and restarts every
// node, each a race for the epoch after the released one.
const createRaceRounds = 3

// CreateRace is If-None-Match deciding who leads an epoch: every S3 leg
// takes the same time, all nodes start together and race to create epoch
// 1; then, three times, every node is stopped (the leader releases its
// file with expired: true) and restarted together, so that all list, read
// the released file and create the next epoch at the same instant. Exactly
// one create of each epoch succeeds; the others are answered 412.
var CreateRace = harness.Drawn(harness.Scenario{
	Name: "epochfile/create-race",
	Doc: "Every S3 leg takes the same time; five nodes race to create epoch 1, then three times all stop (the leader " +
		"releases its file with expired: true) and restart together to race for the next epoch: If-None-Match lets " +
		"exactly one create of each epoch succeed, the others get 412.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		cfg := harness.World(seed)
		cfg.Duration = 50 * time.Second
		c := src.Sub("create-race")
		leg := 2*time.Millisecond + time.Duration(c.Choose(uint64(38*time.Millisecond)))
		cfg.S3Request = sim.Latency{Min: leg, Max: leg}
		cfg.S3Response = cfg.S3Request
		plan := &faults.Plan{HealAt: faults.Duration(25 * time.Second)}
		at := time.Duration(0)
		for round := range createRaceRounds {
			at += 4*time.Second + time.Duration(c.Choose(uint64(2*time.Second)))
			for i := range cfg.Nodes {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, At: faults.Duration(at + 2*time.Second), Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round+1)})
			}
			at += 2 * time.Second
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: Safe()}
	},
})
