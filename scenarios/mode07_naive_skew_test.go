package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
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
	for _, r := range naive {
		if len(r.Outside) > 0 {
			r.errorf("offsets alone left the naive lock's (empty) assumptions: %v", r.Outside)
		}
		offset := map[int]time.Duration{}
		for _, e := range r.faults(sim.FaultClockOffset) {
			offset[e.Node] = e.For
		}
		if _, overlap := first(r.Violations, func(v linearizability.Violation) bool { return v.Checker == "overlap" }); overlap && r.Verdict == harness.Unsafe {
			caught++
		}
		for _, ov := range r.Overlaps {
			holder, taker := ov.Nodes[0], ov.Nodes[1]
			if ov.Tokens[0] > ov.Tokens[1] {
				holder, taker = taker, holder
			}
			if offset[taker] <= offset[holder] {
				r.errorf("n%d (offset %v) overlapped n%d (offset %v) without a clock ahead: %v", taker, offset[taker], holder, offset[holder], ov)
			}
		}
		refused += len(r.refused())
	}
	t.Logf("naive-skew: double leadership reported on %d of %d seeds; %d stale writes refused by the fence", caught, len(naive), refused)
	if caught < len(naive)*3/4 {
		t.Errorf("naive-skew: overlap reported on only %d of %d seeds; want most", caught, len(naive))
	}

	for _, r := range runSeeds(t, ElectorSkew, seeds) {
		r.survives()
		crash, ok := first(r.events(sim.EvCrash, anyNode), func(sim.Event) bool { return true })
		next, led := first(r.Result.History.Terms, func(t sim.Term) bool { return t.Start > crash.At })
		if !ok || !led || next.Start < crash.At+elector.DefaultSettings.LeaseDuration {
			r.errorf("after every node crashed at %v, next term %+v; want one a full lease later", crash.At, next)
		}
	}
}
