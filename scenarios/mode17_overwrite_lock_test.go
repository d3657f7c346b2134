package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestOverwriteLock: the overwrite is in the trace; the leader of the
// moment stops at its next renewal; no one takes the foreign object over
// before a full lease has passed since it was written, so leaders do not
// overlap; a node restarted after the overwrite, which never saw the old
// tokens, takes over with a token above every earlier term's all the same
// (its wall clock in Unix milliseconds), and the fence accepts its writes.
func TestOverwriteLock(t *testing.T) {
	lease := elector.DefaultSettings.LeaseDuration
	rs := runSeeds(t, OverwriteLock, 30)
	refused, newcomers := 0, 0
	for _, r := range rs {
		r.outsideButPasses()
		overwrite, ok := r.onlyFault(sim.FaultOverwrite)
		if !ok {
			continue
		}
		at := overwrite.At
		refused += len(r.refused())
		if r.overlapped() {
			r.errorf("leaders overlapped: %v", r.Overlaps)
		}
		r.stopsAtNextRenewal(at)
		if term, early := first(r.Result.History.Terms, func(t sim.Term) bool { return t.Start > at && t.Start < at+lease }); early {
			r.errorf("n%d took the overwritten object at %v, less than a lease after the overwrite at %v", term.Node, term.Start, at)
		}
		if r.tokensRise(at) {
			newcomers++
		}
	}
	t.Logf("%d of %d seeds: a node restarted after the overwrite led (its token above the old ones); %d fenced writes refused", newcomers, len(rs), refused)
	if newcomers == 0 {
		t.Errorf("want seeds where a node restarted after the overwrite leads")
	}
}
