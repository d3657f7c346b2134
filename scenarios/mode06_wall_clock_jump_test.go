package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestWallClockJump: every node's wall clock really stepped (the trace's
// wall readings move by the step) while one node led, and that term went on
// across the step until the planned crash; after the crash, with followers'
// clocks stepping by hours while they timed the abandoned lease, the
// successor took over no sooner than a lease after the last renewal was
// applied and within the liveness bound.
func TestWallClockJump(t *testing.T) {
	rs := runSeeds(t, WallClockJump, 30)
	s := elector.DefaultSettings
	timedAcross := 0
	for _, r := range rs {
		r.survives()
		nodes := r.Result.History.Nodes
		jumps, crashes := r.faults(sim.FaultClockJump), r.events(sim.EvCrash, anyNode)
		if len(jumps) != 2*nodes || len(crashes) != 1 {
			r.errorf("%d wall-clock steps and %d crashes, want two steps per node and one crash", len(jumps), len(crashes))
			continue
		}
		stepped := map[int]time.Duration{} // each node's wall clock minus true time (no offsets here)
		for _, j := range jumps {
			stepped[j.Node] += j.For
			if j.For.Abs() < time.Minute || j.Local != j.At+stepped[j.Node] {
				r.errorf("n%d's wall clock reads %v at %v, not stepped by %v (a step of at least a minute)", j.Node, j.Local, j.At, stepped[j.Node])
			}
		}
		var leader sim.Term
		for _, j := range jumps[:nodes] {
			if j.At != jumps[0].At {
				r.errorf("n%d's first step at %v, not with the others at %v", j.Node, j.At, jumps[0].At)
			}
			if term, ok := r.termAt(j.Node, j.At); ok {
				leader = term
			}
		}
		crash := crashes[0]
		if leader.Token == 0 || leader.Node != crash.Node || leader.Open || leader.End != crash.At {
			r.errorf("the term leading at the step %v (n%d token %d, %v-%v) did not go on until n%d's crash at %v",
				jumps[0].At, leader.Node, leader.Token, leader.Start, leader.End, crash.Node, crash.At)
			continue
		}
		lastApplied := r.lastApplied(leader.Node, leader.End)
		next, _ := r.leadAfter(leader.End, -1)
		if next.Token <= leader.Token || next.At < lastApplied+s.LeaseDuration || next.At > leader.End+s.LivenessBound() {
			r.errorf("after n%d's crash at %v (last renewal applied %v) the next term %v is not a lease later and within %v",
				leader.Node, leader.End, lastApplied, next, s.LivenessBound())
		}
		if _, ok := first(jumps, func(j sim.Event) bool { return j.Node != leader.Node && j.At > lastApplied && j.At < next.At }); ok {
			timedAcross++
		}
	}
	if timedAcross < len(rs)/2 {
		t.Errorf("in only %d of %d seeds did a follower's clock step while it timed the crashed leader's lease", timedAcross, len(rs))
	}
}
