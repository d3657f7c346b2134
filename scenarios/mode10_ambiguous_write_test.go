package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestAmbiguousWrite: the winner's acquiring PutObject was applied but its
// answer replaced by a 500 (the trace records the fault on the request);
// the SDK's retry was answered 412 against that very write; the node then
// led with the token of the write it thought it lost, without writing
// again first. An ambiguous renewal (500 after applying, retry 412) does
// not end the term.
func TestAmbiguousWrite(t *testing.T) {
	rs := runSeeds(t, AmbiguousWrite, 30)
	retried412, renewals := 0, 0
	for _, r := range rs {
		r.survives()
		c, ok := first(r.puts(anyNode), (*s3Call).applied200) // the first PutObject S3 applied successfully
		if !ok || c.Send.Fault != sim.FaultFailedAfter || c.Apply.Fault != sim.FaultFailedAfter || c.Cond != "If-None-Match:*" {
			r.errorf("the creating write %+v was not an applied write with its answer replaced", c)
			continue
		}
		n := c.Node
		if c.answered() != 500 || c.Return.Code != "InternalError" {
			r.errorf("n%d's applied create #%d was answered %d, want 500 InternalError", n, c.ID, c.answered())
		}
		lead, ok := r.leadAfter(-1, -1)
		if token := floorAt(c.Send); !ok || lead.Node != n || lead.Token != token {
			r.errorf("first lead %+v; want n%d with token %d, the token of its lost create #%d", lead, n, token, c.ID)
			continue
		}
		if c.Return != nil && lead.At < c.Return.At {
			r.errorf("n%d led at %v before it saw the answer of #%d", n, lead.At, c.ID)
		}
		// Between the lost create and the lead, n wrote nothing that S3
		// applied: it led on the strength of c, found by its nonce.
		for _, d := range r.puts(n) {
			if d.ID != c.ID && d.Send.At < lead.At && d.applied200() {
				r.errorf("n%d's PutObject #%d applied before it led; want the lead to come from #%d", n, d.ID, c.ID)
			}
			// The SDK's retry of the same create, answered 412.
			if d.ID > c.ID && d.Send.At < lead.At && d.Cond == c.Cond && d.Apply != nil && d.Apply.Status == 412 && d.answered() == 412 {
				retried412++
				break
			}
		}
		// Ambiguous renewals: applied, answer replaced, during a term; the
		// term goes on past a later successful renewal.
		for _, a := range r.puts(anyNode) {
			term, leading := r.termAt(a.Node, a.Send.At)
			if !leading || a.Cond == "If-None-Match:*" || !a.applied200() || a.Apply.Fault != sim.FaultFailedAfter {
				continue
			}
			renewals++
			if _, ok := first(r.puts(a.Node), func(d *s3Call) bool {
				return d.ID > a.ID && d.answered() == 200 && (term.Open || d.Return.At < term.End)
			}); !ok {
				r.errorf("n%d's term (token %d) ended after its ambiguous renewal #%d without another successful renewal", a.Node, term.Token, a.ID)
			}
		}
	}
	t.Logf("%d of %d seeds: the SDK retry of the applied create was answered 412; %d ambiguous renewals survived", retried412, len(rs), renewals)
	if retried412 < len(rs)/2 || renewals == 0 {
		t.Errorf("%d of %d seeds show the retry answered 412 and %d ambiguous renewals hit a leader; want most, and some", retried412, len(rs), renewals)
	}
}
