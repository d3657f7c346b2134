package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestDeleteLock: the delete is in the trace; the leader of the moment
// stops at its next renewal. An elector that had seen the object knows the
// delete for what it is and times the absence for a lease before it
// recreates the object, so no elector that was running at the delete leads
// again within a lease of it; a node restarted after the delete never saw
// the object and recreates it at once, which may overlap the old leader
// until that leader's next renewal (outside the assumptions). Either way
// the tokens go on rising (each acquisition's token is at least its wall
// clock in Unix milliseconds): no token violation, and the fence accepts
// the writes of every term begun after the delete until a higher token
// follows. Every run passes.
func TestDeleteLock(t *testing.T) {
	s := harness.DefaultElectorSettings
	outs := runSeeds(t, DeleteLock, 30)
	overlaps, refused, newcomers := 0, 0, 0
	for _, o := range outs {
		checkOutsideButPass(t, o)
		h := o.Result.History
		deletes := faultEvents(o, sim.FaultDeleteLock)
		if len(deletes) != 1 {
			t.Fatalf("seed %d: %d deletes in the trace; want 1", o.Seed, len(deletes))
		}
		del := deletes[0].At
		restarted := map[string]bool{}
		for _, st := range events(o, sim.EvStart, anyNode) {
			if st.At > del {
				restarted[st.Detail] = true
			}
		}
		if hasOverlap(o) {
			overlaps++
			if len(restarted) == 0 {
				t.Errorf("seed %d: leaders overlapped though no node restarted after the delete: %v", o.Seed, o.Overlaps)
			}
		}
		refused += len(refusedWrites(o))
		lease := s.LeaseDuration - s.LeaseDuration*time.Duration(s.ClockDriftPPM)/1e6
		for _, term := range h.Terms {
			// The leader at the delete stops by its next renewal.
			if term.Start < del && (term.Open || term.End > del) {
				if limit := del + s.RetryPeriod + 2*s.RequestTimeout; term.Open || term.End > limit {
					t.Errorf("seed %d: n%d (token %d) led on until %v after the delete at %v", o.Seed, term.Node, term.Token, term.End, del)
				}
			}
			// Electors that saw the object wait a lease of absence.
			if term.Start > del && !restarted[term.Identity] && term.Start < del+lease {
				t.Errorf("seed %d: n%d (%s) led at %v, less than a lease after the delete at %v", o.Seed, term.Node, term.Identity, term.Start, del)
			}
		}
		if tokensRise(t, o, del) {
			newcomers++
		}
	}
	t.Logf("%d of %d seeds: a node restarted after the delete led (its token above the old ones); %d seeds with overlapping leaders; %d fenced writes refused",
		newcomers, len(outs), overlaps, refused)
	if newcomers == 0 || overlaps == 0 {
		t.Errorf("want seeds where a node restarted after the delete leads, and where it overlaps the old leader")
	}
}
