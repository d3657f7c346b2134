package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// NaiveSkew is the naive form of the single-object If-Match lock
// (docs/sources.md#quanttype-one-lock-object-with-if-match; expiry judged by
// comparing the stored expiry with the local wall clock) under clock offsets
// between nodes (docs/failure-modes.md#7-clock-offset-and-drift): the
// harness must report the double leadership. ElectorSkew is the production
// elector under the same plan.
var NaiveSkew = harness.Drawn(harness.Scenario{
	Name: "naive-skew",
	Doc: "Five nodes run the naive lock (4 s lease; a record is expired when its stored expiry is before the reader's wall clock) " +
		"with wall clocks offset by up to 3 s either way, no drift: a node whose clock runs ahead takes the lock while its holder " +
		"still leads, and the harness reports the overlap. Compare elector-skew.",
	Expect: harness.Caught,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := zoo.NaiveLock{Lease: 4 * time.Second}.Protocol()
		cfg := harness.World(seed)
		return harness.Setup{Config: cfg, Plan: modeBSkewPlan(src.Sub("skew"), cfg.Nodes), Protocol: p}
	},
})

// ElectorSkew is the production elector under NaiveSkew's plan.
var ElectorSkew = harness.Drawn(harness.Scenario{
	Name: "elector-skew",
	Doc: "The plan of naive-skew (wall clocks offset by up to 3 s either way, every node crashing once and restarting) " +
		"run by the production elector, which never compares a stored time with its own clock: no two leaders overlap.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		return harness.Setup{Config: cfg, Plan: modeBSkewPlan(src.Sub("skew"), cfg.Nodes), Protocol: p}
	},
})

// modeBSkewPlan gives every node a wall-clock offset in [-3 s, +3 s] and no
// drift, and, so that a lease has to expire under the skewed clocks, crashes
// every node at one instant between 15 and 25 s, each restarting 0.5-3 s
// later; every choice c's.
func modeBSkewPlan(c *faults.Source, nodes int) *faults.Plan {
	crash := 15*time.Second + time.Duration(c.Choose(uint64(10*time.Second)))
	p := &faults.Plan{HealAt: faults.Duration(crash + 4*time.Second)}
	for i := range nodes {
		p.Clocks = append(p.Clocks, faults.ClockSetting{
			Node:   i,
			Offset: faults.Duration(time.Duration(c.Choose(uint64(6*time.Second)+1)) - 3*time.Second),
		})
		back := crash + 500*time.Millisecond + time.Duration(c.Choose(uint64(2500*time.Millisecond)))
		p.Events = append(p.Events,
			faults.Event{Kind: faults.Crash, At: faults.Duration(crash), Node: i},
			faults.Event{Kind: faults.Restart, At: faults.Duration(back), Node: i})
	}
	return p
}
