package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestPausePastLease: the pause falls between the lease check and the
// guarded write of a node that leads; another node takes over during it;
// the write the old leader sends when it wakes carries its old token and is
// refused, and its belief overlaps the new leader's term.
func TestPausePastLease(t *testing.T) {
	outs := runSeeds(t, PausePastLease, 30)
	checkFenced(t, outs)
	for _, o := range outs {
		checkPausesHealed(t, o)
		hits := faultEvents(o, sim.FaultPauseBeforeWrite)
		if len(hits) == 0 {
			t.Errorf("seed %d: no leader was paused between check and write", o.Seed)
			continue
		}
		f := hits[0]
		if term, ok := termAt(o, f.Node, f.At); !ok || term.Token != f.Token {
			t.Errorf("seed %d: n%d paused at %v with token %d while not leading with it", o.Seed, f.Node, f.At, f.Token)
			continue
		}
		var pauseEnd, resent = f.At, sim.Event{}
		for _, e := range o.Result.Trace.Events {
			if e.Node != f.Node || e.At < f.At {
				continue
			}
			if e.Kind == sim.EvPause && pauseEnd == f.At {
				pauseEnd = pauseEndOf(t, e)
			}
			if e.Kind == sim.EvFenceSend {
				resent = e
				break
			}
		}
		if pauseEnd == f.At || resent.Call == 0 {
			t.Errorf("seed %d: n%d's pause at %v, or the write after it, is missing", o.Seed, f.Node, f.At)
			continue
		}
		if resent.At < pauseEnd || resent.Token != f.Token {
			t.Errorf("seed %d: the guarded write %v was not sent after the pause ending %v under the checked token %d", o.Seed, resent, pauseEnd, f.Token)
		}
		successor := false
		for _, e := range events(o, sim.EvLead, anyNode) {
			if e.Node != f.Node && e.At > f.At && e.At < resent.At && e.Token > f.Token {
				successor = true
			}
		}
		if !successor {
			t.Errorf("seed %d: nobody took over from n%d during its pause %v-%v", o.Seed, f.Node, f.At, pauseEnd)
		}
		if a, ok := byCall(o, sim.EvFenceApply, resent.Call); !ok || a.Code != "stale" {
			t.Errorf("seed %d: n%d's write after the pause was not refused as stale: %v", o.Seed, f.Node, a)
		}
		overlapped := false
		for _, ov := range o.Overlaps {
			if (ov.Nodes[0] == f.Node || ov.Nodes[1] == f.Node) && ov.To >= pauseEnd {
				overlapped = true
			}
		}
		if !overlapped {
			t.Errorf("seed %d: n%d's belief did not overlap its successor's term up to its wake-up at %v", o.Seed, f.Node, pauseEnd)
		}
	}
}
