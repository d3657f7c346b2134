package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestWriteConflict: 409 ConditionalRequestConflict answers (the aimed
// ones on every node's first PutObject and the knob's on overlapping
// conditional writes) are not applied; the node re-reads before writing
// again, no term starts on a 409, and the run survives.
func TestWriteConflict(t *testing.T) {
	rs := runSeeds(t, WriteConflict, 30)
	overlapping := 0
	for _, r := range rs {
		r.survives()
		calls := r.s3()
		firstPut := map[int]bool{}
		for i, c := range calls {
			if c.Op != "PutObject" {
				continue
			}
			aimed := !firstPut[c.Node]
			firstPut[c.Node] = true
			if c.answered() != 409 {
				if aimed {
					r.errorf("n%d's first PutObject #%d was answered %d; want the aimed 409", c.Node, c.ID, c.answered())
				}
				continue
			}
			if c.Return.Code != "ConditionalRequestConflict" || c.Send.Fault != sim.FaultRefusedBefore || c.Apply == nil || c.Apply.Fault != sim.FaultRefusedBefore {
				r.errorf("#%d answered %d %s, apply %+v; want a 409 ConditionalRequestConflict not applied", c.ID, c.answered(), c.Return.Code, c.Apply)
			}
			if !aimed {
				overlapping++
			}
			// The node's next request, if any, re-reads the object.
			if d, ok := first(calls[i+1:], func(d *s3Call) bool { return d.Node == c.Node && d.Send.At >= c.Return.At }); ok && d.Op != "GetObject" {
				r.errorf("after the 409 on #%d, n%d sent %s #%d; want a re-read", c.ID, c.Node, d.Op, d.ID)
			}
		}
		// Every term starts on a write answered 200: never on a 409.
		for _, l := range r.events(sim.EvLead, anyNode) {
			var last *s3Call
			for _, c := range r.puts(l.Node) {
				if c.Return != nil && c.Return.At <= l.At {
					last = c
				}
			}
			if last == nil || last.answered() != 200 {
				r.errorf("n%d led at %v after PutObject %+v; want one answered 200", l.Node, l.At, last)
			}
		}
	}
	t.Logf("%d 409s from the conflict-on-overlap knob over %d seeds", overlapping, len(rs))
	if overlapping == 0 {
		t.Errorf("the conflict-on-overlap knob answered no write 409")
	}
}
