package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestWallClockJump: every node's wall clock really stepped (the trace's
// wall readings move by the step) while one node led, and that term went on
// across the step until the planned crash; after the crash, with followers'
// clocks stepping by hours while they timed the abandoned lease, the
// successor took over no sooner than a lease after the last renewal was
// applied and within the liveness bound.
func TestWallClockJump(t *testing.T) {
	outs := runSeeds(t, WallClockJump, 30)
	checkSurvives(t, outs...)
	s := harness.DefaultElectorSettings
	timedAcross := 0
	for _, o := range outs {
		var crash faults.Event
		for _, e := range o.Plan.Events {
			if e.Kind == faults.Crash {
				crash = e
			}
		}
		jumps := faultEvents(o, sim.FaultClockJump)
		if len(jumps) != 2*o.Result.History.Nodes {
			t.Errorf("seed %d: %d wall-clock steps, want two per node", o.Seed, len(jumps))
			continue
		}
		stepped := map[int]time.Duration{} // each node's wall clock minus true time (no offsets here)
		for _, j := range jumps {
			by := j.For
			if by.Abs() < time.Minute {
				t.Errorf("seed %d: a step of %v", o.Seed, by)
			}
			stepped[j.Node] += by
			if j.Local != j.At+stepped[j.Node] {
				t.Errorf("seed %d: n%d's wall clock reads %v at %v, not stepped by %v", o.Seed, j.Node, j.Local, j.At, stepped[j.Node])
			}
		}
		first := jumps[0].At
		var leader sim.Term
		for _, j := range jumps[:o.Result.History.Nodes] {
			if j.At != first {
				t.Errorf("seed %d: n%d's first step at %v, not with the others at %v", o.Seed, j.Node, j.At, first)
			}
			if term, ok := termAt(o, j.Node, j.At); ok {
				leader = term
			}
		}
		if leader.Token == 0 || leader.Node != crash.Node || leader.Open || leader.End != crash.At.D() {
			t.Errorf("seed %d: the term leading at the step %v (n%d token %d, %v-%v) did not go on until n%d's crash at %v",
				o.Seed, first, leader.Node, leader.Token, leader.Start, leader.End, crash.Node, crash.At)
			continue
		}
		var lastApplied time.Duration
		for _, e := range events(o, sim.EvS3Send, leader.Node) {
			if a, ok := byCall(o, sim.EvS3Apply, e.Call); ok && e.Op == "PutObject" && a.Status == 200 && a.At < leader.End {
				lastApplied = a.At
			}
		}
		var next sim.Event
		for _, l := range events(o, sim.EvLead, anyNode) {
			if l.At > leader.End {
				next = l
				break
			}
		}
		if next.Token <= leader.Token || next.At < lastApplied+s.LeaseDuration || next.At > leader.End+s.LivenessBound() {
			t.Errorf("seed %d: after n%d's crash at %v (last renewal applied %v) the next term %v is not a lease later and within %v",
				o.Seed, leader.Node, leader.End, lastApplied, next, s.LivenessBound())
		}
		for _, j := range jumps {
			if j.Node != leader.Node && j.At > lastApplied && j.At < next.At {
				timedAcross++
				break
			}
		}
	}
	if timedAcross < len(outs)/2 {
		t.Errorf("in only %d of %d seeds did a follower's clock step while it timed the crashed leader's lease", timedAcross, len(outs))
	}
}
