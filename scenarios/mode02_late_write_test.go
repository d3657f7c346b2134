package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLateWrite: the delayed write was sent inside its sender's term,
// arrived more than a lease later and after that term ended, after a newer
// token from another node had been admitted, and was refused; no two
// terms overlapped.
func TestLateWrite(t *testing.T) {
	lease := elector.DefaultSettings.LeaseDuration
	for _, r := range runSeeds(t, LateWrite, 30) {
		r.survives()
		sent, ok := first(r.events(sim.EvFenceSend, anyNode), func(e sim.Event) bool { return e.Fault == sim.FaultWriteDelayed })
		if !ok {
			r.errorf("no fenced write was delayed")
			continue
		}
		if l, ok := r.leadAfter(-1, -1); !ok || l.Node != sent.Node {
			r.errorf("the delayed write's sender n%d was not the first leader", sent.Node)
		}
		term, ok := r.termAt(sent.Node, sent.At)
		applied, arrived := r.byCall(sim.EvFenceApply, sent.Call)
		switch {
		case !ok || term.Token != sent.Token:
			r.errorf("n%d sent the delayed write %v outside its term", sent.Node, sent)
			continue
		case !arrived:
			r.errorf("the delayed write never arrived")
			continue
		case applied.At-sent.At <= lease || term.Open || applied.At <= term.End:
			r.errorf("the write sent at %v arrived at %v, not a lease later and after its term (%v-%v)", sent.At, applied.At, term.Start, term.End)
		case applied.Code != "stale":
			r.errorf("the late write was not refused: %v", applied)
		}
		if _, ok := first(r.Result.History.Writes, func(w sim.FencedWrite) bool {
			return w.Accepted && w.Node != sent.Node && w.Token > sent.Token && w.Applied < applied.At
		}); !ok {
			r.errorf("no newer token from another node was admitted before the late write arrived")
		}
	}
}
