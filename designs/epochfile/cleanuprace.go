package epochfile

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
)

// EagerCleanup is the safe form as CleanupRace and StaleCreate run it:
// listings of two keys a page, so that a listing of a few files takes
// several requests, and a cleanup margin of one epoch, so that every new
// leader deletes.
var EagerCleanup = func() Config {
	c := Default
	c.PageSize, c.KeepEpochs = 2, 1
	return c
}()

// CleanupRace is the cleanup deleting old lock files while candidates list
// them: every few seconds every node stops (the leader releases) and the
// nodes restart at staggered instants, so that the first back creates the
// next epoch and, as its term begins, deletes the files below the epoch
// before, while the others, coming back one by one, list the prefix a page
// at a time.
var CleanupRace = harness.Drawn(harness.Scenario{
	Name: "epochfile/cleanup-race",
	Doc: "Listings two keys a page, a cleanup margin of one epoch; every 2-3 s all nodes stop (the leader releases) and " +
		"restart within 400 ms of each other, so each new leader deletes old lock files while the others list them page " +
		"by page: deletions land mid-listing, and the safe form keeps one leader.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		cfg := harness.World(seed)
		cfg.Duration = harness.SwarmDuration
		c := src.Sub("cleanup-race")
		plan := &faults.Plan{HealAt: faults.Duration(45 * time.Second), Clocks: clocksWithin(c, cfg.Nodes, EagerCleanup.DriftPPM)}
		at := 2 * time.Second
		for round := 1; ; round++ {
			at += 1500*time.Millisecond + time.Duration(c.Choose(uint64(time.Second)))
			back := at + 500*time.Millisecond
			if back+400*time.Millisecond >= plan.HealAt.D() {
				break
			}
			for i := range cfg.Nodes {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round),
						At: faults.Duration(back + time.Duration(c.Choose(uint64(400*time.Millisecond))))})
			}
			at = back
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: EagerCleanup.Safe()}
	},
})
