package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestLateWrite: the delayed write was sent inside its sender's term,
// arrived more than a lease later and after that term ended, after a newer
// token from another node had been admitted, and was refused; no two
// terms overlapped.
func TestLateWrite(t *testing.T) {
	outs := runSeeds(t, LateWrite, 30)
	checkSurvives(t, outs...)
	lease := harness.DefaultElectorSettings.LeaseDuration
	for _, o := range outs {
		var sent sim.Event
		for _, e := range events(o, sim.EvFenceSend, anyNode) {
			if e.Fault == sim.FaultWriteDelayed {
				sent = e
				break
			}
		}
		if sent.Call == 0 {
			t.Errorf("seed %d: no fenced write was delayed", o.Seed)
			continue
		}
		if leads := events(o, sim.EvLead, anyNode); len(leads) == 0 || leads[0].Node != sent.Node {
			t.Errorf("seed %d: the delayed write's sender n%d was not the first leader", o.Seed, sent.Node)
		}
		term, ok := termAt(o, sent.Node, sent.At)
		if !ok || term.Token != sent.Token {
			t.Errorf("seed %d: n%d sent the delayed write %v outside its term", o.Seed, sent.Node, sent)
			continue
		}
		applied, ok := byCall(o, sim.EvFenceApply, sent.Call)
		switch {
		case !ok:
			t.Errorf("seed %d: the delayed write never arrived", o.Seed)
			continue
		case applied.At-sent.At <= lease || term.Open || applied.At <= term.End:
			t.Errorf("seed %d: the write sent at %v arrived at %v, not a lease later and after its term (%v-%v)",
				o.Seed, sent.At, applied.At, term.Start, term.End)
		case applied.Code != "stale":
			t.Errorf("seed %d: the late write was not refused: %v", o.Seed, applied)
		}
		newer := false
		for _, w := range o.Result.History.Writes {
			if w.Accepted && w.Node != sent.Node && w.Token > sent.Token && w.Applied < applied.At {
				newer = true
			}
		}
		if !newer {
			t.Errorf("seed %d: no newer token from another node was admitted before the late write arrived", o.Seed)
		}
	}
}
