package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// LateWrite is a late write (docs/failure-modes.md#2-late-write): a fenced
// write sent under a valid lease reaches the resource long after that lease
// expired.
//
// A delayed fenced write is not a process fault, so the plan stays inside
// the elector's assumptions and the scenario expects Survives: the overlap
// checker judges terms (what the applications believed), and the old
// leader's belief ends at its local deadline, before anyone takes over; the
// late write itself is judged by the fence alone, which must refuse it
// because the successor's newer token was admitted first.
var LateWrite = harness.Drawn(harness.Scenario{
	Name: "late-write",
	Doc: "The leader sends a fenced write under its valid lease, but the write sits in the network for 12-16 s, " +
		"twice the lease. Meanwhile the leader is cut off from S3, its term ends at its deadline and another node " +
		"takes over and writes with a newer token; when the old write finally arrives the resource refuses it. " +
		"A slow write is no process fault: the run stays inside the assumptions, no two terms overlap, and the fence alone judges the late write.",
	Expect: harness.Survives,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		c := src.Sub("late-write")
		plan := &faults.Plan{HealAt: faults.Duration(40 * time.Second)}
		leader := modeAFirstLeader(c, plan, cfg.Nodes)
		// The leader's k-th write leaves about (k-1) write intervals after
		// it starts leading, a little after the run starts.
		nth := 4 + int(c.Choose(13))
		sent := 100*time.Millisecond + time.Duration(nth-1)*(cfg.WriteInterval+10*time.Millisecond)
		plan.Events = append(plan.Events,
			faults.Event{Kind: faults.WriteDelayed, Node: leader, Nth: nth,
				By: faults.Duration(modeARange(c, 12*time.Second, 16*time.Second))},
			// Cut the leader off from S3 around the time it sends that
			// write (up to a second before or after): its term ends at its
			// deadline, and a follower takes over about a lease later.
			faults.Event{Kind: faults.Partition, Node: leader,
				At:        faults.Duration(sent - time.Second + modeARange(c, 0, 2*time.Second)),
				For:       faults.Duration(modeARange(c, 10*time.Second, 13*time.Second)),
				Blackhole: c.Choose(2) == 0})
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// modeAFirstLeader picks a node from c and makes it the first leader by
// keeping every other node from reaching S3 for the first 1.5 s: by the
// time they read the lock object it holds the chosen node's record. A
// partition is inside the elector's assumptions. It returns the node.
func modeAFirstLeader(c *faults.Source, plan *faults.Plan, nodes int) int {
	leader := int(c.Choose(uint64(nodes)))
	for i := range nodes {
		if i != leader {
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Partition, Node: i, For: faults.Duration(1500 * time.Millisecond)})
		}
	}
	return leader
}
