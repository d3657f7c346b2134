package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestVMSuspend: in every seed some node was suspended while it led;
// another node took over during the suspension; on resume the suspended
// node still believed it led (its term outlasted the suspension, overlapping
// the successor's), and each write it sent then under its old token was
// refused.
func TestVMSuspend(t *testing.T) {
	outs := runSeeds(t, VMSuspend, 30)
	checkFenced(t, outs)
	for _, o := range outs {
		checkPausesHealed(t, o)
		var hit bool
		for _, f := range faultEvents(o, sim.FaultClockStall) {
			term, ok := termAt(o, f.Node, f.At)
			if !ok {
				continue // a follower's suspension
			}
			hit = true
			var end = f.At
			for _, p := range events(o, sim.EvPause, f.Node) {
				if p.At == f.At {
					end = pauseEndOf(t, p)
				}
			}
			var successor sim.Event
			for _, l := range events(o, sim.EvLead, anyNode) {
				if l.Node != f.Node && l.At > f.At && l.At < end && l.Token > term.Token {
					successor = l
					break
				}
			}
			if end == f.At || successor.Token == 0 {
				t.Errorf("seed %d: nobody took over while n%d was suspended from %v to %v", o.Seed, f.Node, f.At, end)
				break
			}
			if !term.Open && term.End <= end {
				t.Errorf("seed %d: n%d's term ended at %v, during its suspension (%v-%v)", o.Seed, f.Node, term.End, f.At, end)
			}
			for _, w := range o.Result.History.Writes {
				if w.Node == f.Node && w.Token == term.Token && w.Sent >= end && w.Accepted {
					t.Errorf("seed %d: n%d's write under token %d after its resume at %v was accepted: %+v", o.Seed, f.Node, term.Token, end, w)
				}
			}
			break
		}
		if !hit {
			t.Errorf("seed %d: no node was suspended while it led", o.Seed)
		}
	}
}
