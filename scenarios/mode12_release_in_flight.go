package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// ReleaseInFlight is a release racing a renewal
// (docs/failure-modes.md#12-release-racing-a-renewal): the leader is asked
// to stop while a renewal is in flight, and releases its lease; the release
// must neither lose the race with the renewal nor come before the
// application stopped.
var ReleaseInFlight = harness.Drawn(harness.Scenario{
	Name: "release-in-flight",
	Doc: "Twice (the second time once a leader is surely back), while S3 is slow (every leg 250-450 ms longer and a third of them up to 600 ms more, so renewals spend most of their time in flight), " +
		"every node is stopped at once and restarted 4 s later. The leader is usually stopped with a renewal in flight: its application's term ends, " +
		"then it releases; when the renewal lands first, the release gets 412, re-reads, recognises its own renewal and releases that record. " +
		"The restarted nodes take the released lease at once.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings) // ReleaseOnCancel
		cfg := harness.World(seed)
		cfg.Duration = 42 * time.Second
		c := src.Sub("release-in-flight")
		plan := &faults.Plan{HealAt: faults.Duration(27 * time.Second)}
		// A long tail on a third of the requests, so that a release sometimes
		// overtakes the renewal in flight before it.
		plan.S3.SlowPPM, plan.S3.SlowMax = 300_000, faults.Duration(600*time.Millisecond)
		at := time.Duration(0)
		for round := range 2 {
			// The first round comes once a leader is in place; the second
			// once one surely is again, even if the first release did not
			// make it and the restarted nodes waited out a lease.
			lead := 3 * time.Second
			if round > 0 {
				lead = elector.DefaultSettings.LeaseDuration + 3*elector.DefaultSettings.RetryPeriod
			}
			at += lead + time.Duration(c.Choose(uint64(3*time.Second)))
			slow := 250*time.Millisecond + time.Duration(c.Choose(uint64(200*time.Millisecond)))
			plan.Events = append(plan.Events, faults.Event{
				Kind: faults.SlowS3, At: faults.Duration(at - 2*time.Second), For: faults.Duration(3 * time.Second), By: faults.Duration(slow),
			})
			for i := range cfg.Nodes {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.Stop, At: faults.Duration(at), Node: i},
					faults.Event{Kind: faults.Restart, At: faults.Duration(at + 4*time.Second), Node: i, Identity: fmt.Sprintf("n%d-r%d", i, round+1)})
			}
			at += 4 * time.Second
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
