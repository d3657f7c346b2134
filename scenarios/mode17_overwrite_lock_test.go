package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestOverwriteLock: the overwrite is in the trace; the leader of the
// moment stops at its next renewal; no one takes the foreign object over
// before a full lease has passed since it was written, so leaders do not
// overlap; a node restarted after the overwrite, which never saw the old
// tokens, takes over with a token above every earlier term's all the same
// (its wall clock in Unix milliseconds), and the fence accepts its writes.
func TestOverwriteLock(t *testing.T) {
	s := harness.DefaultElectorSettings
	outs := runSeeds(t, OverwriteLock, 30)
	refused, newcomers := 0, 0
	for _, o := range outs {
		checkOutsideButPass(t, o)
		h := o.Result.History
		notes := faultEvents(o, sim.FaultOverwrite)
		if len(notes) != 1 {
			t.Fatalf("seed %d: %d overwrites in the trace; want 1", o.Seed, len(notes))
		}
		at := notes[0].At
		refused += len(refusedWrites(o))
		if hasOverlap(o) {
			t.Errorf("seed %d: leaders overlapped: %v", o.Seed, o.Overlaps)
		}
		for _, term := range h.Terms {
			switch {
			case term.Start < at && (term.Open || term.End > at):
				if limit := at + s.RetryPeriod + 2*s.RequestTimeout; term.Open || term.End > limit {
					t.Errorf("seed %d: n%d (token %d) led on until %v after the overwrite at %v", o.Seed, term.Node, term.Token, term.End, at)
				}
			case term.Start > at && term.Start < at+s.LeaseDuration:
				t.Errorf("seed %d: n%d took the overwritten object at %v, less than a lease after the overwrite at %v", o.Seed, term.Node, term.Start, at)
			}
		}
		if tokensRise(t, o, at) {
			newcomers++
		}
	}
	t.Logf("%d of %d seeds: a node restarted after the overwrite led (its token above the old ones); %d fenced writes refused", newcomers, len(outs), refused)
	if newcomers == 0 {
		t.Errorf("want seeds where a node restarted after the overwrite leads")
	}
}
