package scenarios

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// modeAShortLease and modeALongLease are the settings of mixed-leases
// besides the default: a third and twice the default lease, each valid for
// protocol.NewElector (RenewDeadline > 1.2 RetryPeriod, RequestTimeout <=
// RenewDeadline/2, RenewDeadline <= LeaseDuration less the drift margin).
var (
	modeAShortLease = elector.Settings{
		LeaseDuration: 4 * time.Second, RenewDeadline: 2500 * time.Millisecond,
		RetryPeriod: 500 * time.Millisecond, RequestTimeout: time.Second,
		ClockDriftPPM: 1000, ReleaseOnCancel: true,
	}
	modeALongLease = elector.Settings{
		LeaseDuration: 12 * time.Second, RenewDeadline: 8 * time.Second,
		RetryPeriod: 2 * time.Second, RequestTimeout: 3 * time.Second,
		ClockDriftPPM: 1000, ReleaseOnCancel: true,
	}
	// modeAMixedSettings: node i runs modeAMixedSettings[i%3].
	modeAMixedSettings = []elector.Settings{modeAShortLease, modeALongLease, elector.DefaultSettings}
)

// MixedLeases is mixed lease durations
// (docs/failure-modes.md#9-mixed-lease-durations): candidates configured
// with different lease durations.
var MixedLeases = harness.Drawn(harness.Scenario{
	Name: "mixed-leases",
	Doc: "Nodes run three different configurations (leases of 4 s, 12 s and 6 s, with matching renew deadlines, " +
		"retry periods and request timeouts). Every node crashes or is stopped once, at its own slot, and comes " +
		"back; leadership passes between nodes of different settings, and a follower always waits out the " +
		"longer of its own lease and the one written in the record.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Nodes(modeAMixedSettings...)
		cfg := harness.World(seed)
		cfg.Duration = 75 * time.Second
		c := src.Sub("mixed-leases")
		plan := &faults.Plan{HealAt: faults.Duration(44 * time.Second)}
		// One slot per node, 7 s apart, in an order drawn from the seed.
		order := make([]int, cfg.Nodes)
		for i := range order {
			j := int(c.Choose(uint64(i + 1)))
			order[i], order[j] = order[j], i
		}
		for slot, node := range order {
			at := 4*time.Second + time.Duration(slot)*7*time.Second + modeARange(c, 0, 2*time.Second)
			kind := faults.Crash
			if c.Choose(2) == 0 {
				kind = faults.Stop
			}
			identity := ""
			if c.Choose(2) == 0 {
				identity = fmt.Sprintf("n%d-r", node)
			}
			plan.Events = append(plan.Events,
				faults.Event{Kind: kind, Node: node, At: faults.Duration(at)},
				faults.Event{Kind: faults.Restart, Node: node, Identity: identity,
					At: faults.Duration(at + modeARange(c, time.Second, 3*time.Second))})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
