package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
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
	s := elector.DefaultSettings
	lease := s.LeaseDuration - s.LeaseDuration*time.Duration(s.ClockDriftPPM)/1e6
	rs := runSeeds(t, DeleteLock, 30)
	overlaps, refused, newcomers := 0, 0, 0
	for _, r := range rs {
		r.outsideButPasses()
		deleted, ok := r.onlyFault(sim.FaultDeleteLock)
		if !ok {
			continue
		}
		del := deleted.At
		restarted := r.restartedAfter(del)
		if r.overlapped() {
			overlaps++
			if len(restarted) == 0 {
				r.errorf("leaders overlapped though no node restarted after the delete: %v", r.Overlaps)
			}
		}
		refused += len(r.refused())
		r.stopsAtNextRenewal(del)
		for _, term := range r.Result.History.Terms {
			// Electors that saw the object wait a lease of absence.
			if term.Start > del && !restarted[term.Identity] && term.Start < del+lease {
				r.errorf("n%d (%s) led at %v, less than a lease after the delete at %v", term.Node, term.Identity, term.Start, del)
			}
		}
		if r.tokensRise(del) {
			newcomers++
		}
	}
	t.Logf("%d of %d seeds: a node restarted after the delete led (its token above the old ones); %d seeds with overlapping leaders; %d fenced writes refused",
		newcomers, len(rs), overlaps, refused)
	if newcomers == 0 || overlaps == 0 {
		t.Errorf("want seeds where a node restarted after the delete leads, and where it overlaps the old leader")
	}
}

// stopsAtNextRenewal asserts that the term running when someone else wrote
// the lock object at at ended by its next renewal.
func (r *run) stopsAtNextRenewal(at time.Duration) {
	r.t.Helper()
	s := elector.DefaultSettings
	for _, term := range r.Result.History.Terms {
		if limit := at + s.RetryPeriod + 2*s.RequestTimeout; term.Start < at && (term.Open || term.End > at) && (term.Open || term.End > limit) {
			r.errorf("n%d (token %d) led on until %v after the lock object was written at %v", term.Node, term.Token, term.End, at)
		}
	}
}
