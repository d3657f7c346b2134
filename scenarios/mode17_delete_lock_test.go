package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
)

// TestDeleteLock: the delete is in the trace; the leader of the moment
// stops at its next renewal, and meanwhile a recreating follower may lead
// with it (overlap, outside the assumptions); a node restarted after the
// delete, which never saw the old tokens, recreates the object with a token
// below an earlier term's (monotonic-tokens, reported as expected), and the
// fence refuses every write it makes under that token. Every run passes: no
// stale write accepted.
func TestDeleteLock(t *testing.T) {
	s := harness.DefaultElectorSettings
	outs := runSeeds(t, DeleteLock, 30)
	overlaps, refused, restarts := 0, 0, 0
	for _, o := range outs {
		checkOutsideButPass(t, o)
		h := o.Result.History
		deletes := faultEvents(o, faults.DeleteLock)
		if len(deletes) != 1 {
			t.Fatalf("seed %d: %d deletes in the trace; want 1", o.Seed, len(deletes))
		}
		del := deletes[0].At
		if hasOverlap(o) {
			overlaps++
		}
		refused += len(refusedWrites(o))
		// The leader at the delete stops by its next renewal.
		for _, term := range h.Terms {
			if term.Start < del && (term.Open || term.End > del) {
				if limit := del + s.RetryPeriod + 2*s.RequestTimeout; term.Open || term.End > limit {
					t.Errorf("seed %d: n%d (token %d) led on until %v after the delete at %v", o.Seed, term.Node, term.Token, term.End, del)
				}
			}
		}
		if tokenRestart(t, o, del) {
			restarts++
		}
	}
	t.Logf("%d of %d seeds restarted the token sequence; %d seeds with overlapping leaders; %d fenced writes refused", restarts, len(outs), overlaps, refused)
	if restarts == 0 || overlaps == 0 || refused == 0 {
		t.Errorf("want seeds with a restarted token sequence, with overlapping leaders, and refused writes")
	}
}
