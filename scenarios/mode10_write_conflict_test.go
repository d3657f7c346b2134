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
	outs := runSeeds(t, WriteConflict, 30)
	overlapping := 0
	for _, o := range outs {
		checkSurvives(t, o)
		calls := s3Calls(o)
		firstPut := map[int]bool{}
		for i, c := range calls {
			if c.Op != "PutObject" {
				continue
			}
			first := !firstPut[c.Node]
			firstPut[c.Node] = true
			if c.answered() != 409 {
				if first {
					t.Errorf("seed %d: n%d's first PutObject #%d was answered %d; want the aimed 409", o.Seed, c.Node, c.ID, c.answered())
				}
				continue
			}
			if c.Return.Code != "ConditionalRequestConflict" || c.Apply == nil || c.Apply.Fault != sim.FaultRefusedBefore {
				t.Errorf("seed %d: #%d answered %d %s, apply %+v; want a 409 ConditionalRequestConflict not applied", o.Seed, c.ID, c.answered(), c.Return.Code, c.Apply)
			}
			if !first {
				overlapping++
			}
			// The node's next request, if any, re-reads the object.
			for _, d := range calls[i+1:] {
				if d.Node == c.Node && d.Send.At >= c.Return.At {
					if d.Op != "GetObject" {
						t.Errorf("seed %d: after the 409 on #%d, n%d sent %s #%d; want a re-read", o.Seed, c.ID, c.Node, d.Op, d.ID)
					}
					break
				}
			}
		}
		// Every term starts on a write answered 200: never on a 409.
		for _, l := range events(o, sim.EvLead, anyNode) {
			var last *s3Call
			for _, c := range puts(calls, l.Node) {
				if c.Return != nil && c.Return.At <= l.At {
					last = c
				}
			}
			if last == nil || last.answered() != 200 {
				t.Errorf("seed %d: n%d led at %v after PutObject %+v; want one answered 200", o.Seed, l.Node, l.At, last)
			}
		}
	}
	t.Logf("%d 409s from the conflict-on-overlap knob over %d seeds", overlapping, len(outs))
	if overlapping == 0 {
		t.Errorf("the conflict-on-overlap knob answered no write 409")
	}
}
