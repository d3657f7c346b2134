package epochfile

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// ListRace is the race window of a listing. No dialect of the simulated S3
// serves a stale listing (ListObjectsV2 is strongly consistent on AWS, and
// sim lists by the AWS rules in both dialects, docs/s3-semantics.md), so a
// listing misses a just-created file only by being answered after the
// create applied: it was right when S3 applied it and is stale when the
// candidate acts on it. Every node starts at once; the answers to the
// first listing of nodes 1 to 4 are delayed, so node 0 lists, creates
// epoch 1 and confirms it while their listings, applied before the create,
// are still on their way, and each of them then tries to create epoch 1
// too and gets 412.
var ListRace = harness.Drawn(harness.Scenario{
	Name: "epochfile/list-race",
	Doc: "Five nodes start at once; the answers to four nodes' first listing are delayed 150-400 ms, so they arrive " +
		"after the fifth node created epoch 1: each listing missed a file created after S3 applied it (no dialect lists " +
		"stale), the four try epoch 1 on it and get 412, and the safe form goes on with one leader.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		cfg := harness.World(seed)
		cfg.Duration = 30 * time.Second
		c := src.Sub("list-race")
		// One request leg for every request, so that every first listing
		// is applied before any create; answers take 2-40 ms as usual.
		leg := 2*time.Millisecond + time.Duration(c.Choose(uint64(38*time.Millisecond)))
		cfg.S3Request = sim.Latency{Min: leg, Max: leg}
		plan := &faults.Plan{HealAt: faults.Duration(5 * time.Second), Clocks: clocksWithin(c, cfg.Nodes, Default.DriftPPM)}
		for i := 1; i < cfg.Nodes; i++ {
			by := 150*time.Millisecond + time.Duration(c.Choose(uint64(250*time.Millisecond)))
			plan.Events = append(plan.Events, faults.Event{Kind: faults.AnswerDelayed, Node: i, Op: "ListObjectsV2", Nth: 1, By: faults.Duration(by)})
		}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: Safe()}
	},
})

// clocksWithin gives every node a wall-clock offset of up to ±5 minutes
// and a drift within ±ppm: clocks the safe form's assumptions allow.
func clocksWithin(c *faults.Source, nodes int, ppm int64) []faults.ClockSetting {
	out := make([]faults.ClockSetting, nodes)
	for i := range out {
		out[i] = faults.ClockSetting{Node: i,
			Offset:   faults.Duration(time.Duration(c.Choose(uint64(10*time.Minute))) - 5*time.Minute),
			DriftPPM: int64(c.Choose(uint64(2*ppm+1))) - ppm}
	}
	return out
}
