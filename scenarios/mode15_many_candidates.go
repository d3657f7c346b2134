package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// modeBManyCandidatesSettings are the elector's settings in ManyCandidates: the
// defaults with a short retry period, so that fifteen candidates poll and
// race often.
var modeBManyCandidatesSettings = elector.Settings{
	LeaseDuration:   6 * time.Second,
	RenewDeadline:   4 * time.Second,
	RetryPeriod:     300 * time.Millisecond,
	RequestTimeout:  1500 * time.Millisecond,
	ClockDriftPPM:   1000,
	ReleaseOnCancel: true,
}

// ManyCandidates is many candidates
// (docs/failure-modes.md#15-many-candidates): many candidates contending at
// once must not produce overlapping terms.
var ManyCandidates = harness.Drawn(harness.Scenario{
	Name: "many-candidates",
	Doc: "Fifteen nodes polling every 300 ms race for the lock; S3 answers 409 to most conditional writes that overlap " +
		"another and to a few others; three times all nodes stop (the leader releases) and restart together " +
		"to race for the released lease. Every race has one winner and terms never overlap.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(modeBManyCandidatesSettings)
		cfg := harness.World(seed)
		cfg.Nodes = 15
		cfg.Duration = 30 * time.Second
		c := src.Sub("many-candidates")
		plan := &faults.Plan{HealAt: faults.Duration(16 * time.Second)}
		plan.S3.ConflictOnOverlapPPM = 500_000 + int64(c.Choose(500_001))
		plan.S3.ConflictPPM = 20_000 + int64(c.Choose(30_001))
		// Three times, every node stops (the leader releases) and all
		// restart together, to race for the released lease.
		at := time.Duration(0)
		for round := range 3 {
			at += 3*time.Second + time.Duration(c.Choose(uint64(time.Second)))
			back := at + 500*time.Millisecond + time.Duration(c.Choose(uint64(time.Second)))
			for i := range cfg.Nodes {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, At: faults.Duration(back), Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round+1)})
			}
			at = back
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
