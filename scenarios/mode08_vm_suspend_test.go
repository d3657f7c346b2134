package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestVMSuspend: in every seed some node was suspended while it led (the
// trace records the suspension and the pause it causes); another node took
// over during the suspension; on resume the suspended node still believed
// it led (its term outlasted the suspension, overlapping the successor's),
// and each write it sent then under its old token was refused.
func TestVMSuspend(t *testing.T) {
	rs := runSeeds(t, VMSuspend, 30)
	checkFenced(t, rs)
	for _, r := range rs {
		r.pausesHealed()
		for _, f := range r.faults(sim.FaultClockStall) {
			if !r.paused(f.Node, f.At, sim.FaultClockStall, f.For) {
				r.errorf("n%d's suspension at %v for %v did not stop its process", f.Node, f.At, f.For)
			}
		}
		var term sim.Term // the term of the first suspension of a leader
		f, ok := first(r.faults(sim.FaultClockStall), func(f sim.Event) (leading bool) { term, leading = r.termAt(f.Node, f.At); return })
		if !ok {
			r.errorf("no node was suspended while it led")
			continue
		}
		resumed := f.At + f.For
		if _, ok := r.takeover(f.Node, term.Token, f.At, resumed); !ok {
			r.errorf("nobody took over while n%d was suspended from %v to %v", f.Node, f.At, resumed)
			continue
		}
		if !term.Open && term.End <= resumed {
			r.errorf("n%d's term ended at %v, during its suspension (%v-%v)", f.Node, term.End, f.At, resumed)
		}
		for _, w := range r.Result.History.Writes {
			if w.Node == f.Node && w.Token == term.Token && w.Sent >= resumed && w.Accepted {
				r.errorf("n%d's write under token %d after its resume at %v was accepted: %+v", f.Node, term.Token, resumed, w)
			}
		}
	}
}
