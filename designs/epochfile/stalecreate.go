package epochfile

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// staleCreateRounds is how many epochs StaleCreate has the other nodes
// create while node 0 is paused.
const staleCreateRounds = 3

// StaleCreate is why a create must be confirmed by a listing before its
// node leads: node 0 lists an empty prefix and pauses (within the pause
// bound) as the answer arrives; meanwhile the other nodes create epoch 1,
// and three times stop (the leader releases) and restart, so that epochs 2
// to 4 follow and the cleanup deletes epoch 1. Node 0 then acts on its old
// listing and creates epoch 1 again, successfully: If-None-Match cannot
// tell a key never written from one deleted. Only the listing after the
// create, which shows epoch 4, keeps it from leading with token 1.
var StaleCreate = harness.Drawn(harness.Scenario{
	Name: "epochfile/stale-create",
	Doc: "Node 0 pauses 1.85-1.95 s on its first listing (empty); meanwhile the others create epochs 1 to 4 through " +
		"releases and the cleanup deletes epoch 1, which node 0 then creates again, successfully. The safe form's " +
		"listing after each create shows epoch 4, so node 0 does not lead on the resurrected epoch.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		cfg := harness.World(seed)
		cfg.Duration = 30 * time.Second
		c := src.Sub("stale-create")
		// Short legs, so that epochs follow each other quickly; one
		// request leg for every request, so that node 0's first listing is
		// applied before any create and shows no file.
		leg := 2*time.Millisecond + time.Duration(c.Choose(uint64(8*time.Millisecond)))
		cfg.S3Request = sim.Latency{Min: leg, Max: leg}
		cfg.S3Response = sim.Latency{Min: 2 * time.Millisecond, Max: 10 * time.Millisecond}
		pause := 1850*time.Millisecond + time.Duration(c.Choose(uint64(100*time.Millisecond)))
		plan := &faults.Plan{HealAt: faults.Duration(3 * time.Second), Clocks: clocksWithin(c, cfg.Nodes, EagerCleanup.DriftPPM),
			Events: []faults.Event{{Kind: faults.AnswerPause, Node: 0, Op: "ListObjectsV2", Nth: 1, For: faults.Duration(pause)}}}
		at := 0 * time.Second
		for round := 1; round <= staleCreateRounds; round++ {
			at += 280*time.Millisecond + time.Duration(c.Choose(uint64(40*time.Millisecond)))
			for i := 1; i < cfg.Nodes; i++ {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, At: faults.Duration(at + 50*time.Millisecond), Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round)})
			}
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: EagerCleanup.Safe()}
	},
})
