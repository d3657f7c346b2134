package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// TestPausePastLease: the pause falls between the lease check and the
// guarded write of a node that leads; another node takes over during it;
// the write the old leader sends when it wakes carries its old token and is
// refused, and its belief overlaps the new leader's term.
func TestPausePastLease(t *testing.T) {
	rs := runSeeds(t, PausePastLease, 30)
	checkFenced(t, rs)
	for _, r := range rs {
		r.pausesHealed()
		fs := r.faults(sim.FaultPauseBeforeWrite)
		if len(fs) == 0 {
			r.errorf("no leader was paused between check and write")
			continue
		}
		f, woke := fs[0], fs[0].At+fs[0].For
		if term, ok := r.termAt(f.Node, f.At); !ok || term.Token != f.Token || !r.paused(f.Node, f.At, f.Fault, f.For) {
			r.errorf("n%d did not pause at %v for %v while leading with token %d", f.Node, f.At, f.For, f.Token)
			continue
		}
		resent, ok := first(r.events(sim.EvFenceSend, f.Node), func(e sim.Event) bool { return e.At >= f.At })
		if !ok || resent.At < woke || resent.Token != f.Token {
			r.errorf("n%d's guarded write %v was not sent after the pause ending %v under the checked token %d", f.Node, resent, woke, f.Token)
			continue
		}
		if _, ok := r.takeover(f.Node, f.Token, f.At, resent.At); !ok {
			r.errorf("nobody took over from n%d during its pause %v-%v", f.Node, f.At, woke)
		}
		if a, ok := r.byCall(sim.EvFenceApply, resent.Call); !ok || a.Code != "stale" {
			r.errorf("n%d's write after the pause was not refused as stale: %v", f.Node, a)
		}
		if _, ok := first(r.Overlaps, func(ov linearizability.Overlap) bool {
			return (ov.Nodes[0] == f.Node || ov.Nodes[1] == f.Node) && ov.To >= woke
		}); !ok {
			r.errorf("n%d's belief did not overlap its successor's term up to its wake-up at %v", f.Node, woke)
		}
	}
}
