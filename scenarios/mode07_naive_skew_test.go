package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestNaiveSkewVsElectorSkew is the evidence for the naive form of the
// single-object If-Match lock
// (docs/sources.md#quanttype-one-lock-object-with-if-match; expiry judged by
// comparing the stored expiry with the local clock) under clock offset: the
// harness reports the double leadership (Unsafe, overlap) on most seeds, and
// in every overlap the node that took over has the wall clock further ahead;
// the production elector under the same plans has no overlap, and after
// every node crashed the next leader waited a full lease.
func TestNaiveSkewVsElectorSkew(t *testing.T) {
	const seeds = 20
	caught, refused := 0, 0
	naive := runSeeds(t, NaiveSkew, seeds)
	for _, o := range naive {
		if len(o.Outside) > 0 {
			t.Errorf("seed %d: offsets alone left the naive lock's (empty) assumptions: %v", o.Seed, o.Outside)
		}
		offset := map[int]time.Duration{}
		for _, c := range o.Plan.Clocks {
			offset[c.Node] = c.Offset.D()
		}
		overlap := false
		for _, v := range o.Violations {
			overlap = overlap || v.Checker == "overlap"
		}
		if o.Verdict == harness.Unsafe && overlap {
			caught++
		}
		for _, ov := range o.Overlaps {
			holder, taker := ov.Nodes[0], ov.Nodes[1]
			if ov.Tokens[0] > ov.Tokens[1] {
				holder, taker = taker, holder
			}
			if offset[taker] <= offset[holder] {
				t.Errorf("seed %d: n%d (offset %v) overlapped n%d (offset %v) without a clock ahead: %v", o.Seed, taker, offset[taker], holder, offset[holder], ov)
			}
		}
		refused += len(refusedWrites(o))
	}
	t.Logf("naive-skew: double leadership reported on %d of %d seeds; %d stale writes refused by the fence", caught, len(naive), refused)
	if caught < len(naive)*3/4 {
		t.Errorf("naive-skew: overlap reported on only %d of %d seeds; want most", caught, len(naive))
	}

	for _, o := range runSeeds(t, ElectorSkew, seeds) {
		checkSurvives(t, o)
		crashes := events(o, sim.EvCrash, anyNode)
		if len(crashes) == 0 {
			t.Fatalf("seed %d: no crash", o.Seed)
		}
		crash := crashes[0].At
		var next *sim.Term
		for i, term := range o.Result.History.Terms {
			if term.Start > crash {
				next = &o.Result.History.Terms[i]
				break
			}
		}
		if next == nil || next.Start < crash+elector.DefaultSettings.LeaseDuration {
			t.Errorf("seed %d: after every node crashed at %v, next term %+v; want one a full lease later", o.Seed, crash, next)
		}
	}
}
