package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestAmbiguousWrite: the winner's acquiring PutObject was applied but its
// answer replaced by a 500; the SDK's retry was answered 412 against that
// very write; the node then led with the token of the write it
// thought it lost, without writing again first. An ambiguous renewal (500
// after applying, retry 412) does not end the term.
func TestAmbiguousWrite(t *testing.T) {
	outs := runSeeds(t, AmbiguousWrite, 30)
	retried412, renewals := 0, 0
	for _, o := range outs {
		checkSurvives(t, o)
		calls := s3Calls(o)
		var first *s3Call // the first PutObject S3 applied successfully
		for _, c := range puts(calls, anyNode) {
			if c.applied200() {
				first = c
				break
			}
		}
		if first == nil || first.Apply.Fault != sim.FaultFailedAfter || first.Cond != "If-None-Match:*" {
			t.Fatalf("seed %d: the creating write %+v was not an applied write with its answer replaced", o.Seed, first)
		}
		n := first.Node
		if first.answered() != 500 || first.Return.Code != "InternalError" {
			t.Errorf("seed %d: n%d's applied create #%d was answered %d, want 500 InternalError", o.Seed, n, first.ID, first.answered())
		}
		leads := events(o, sim.EvLead, anyNode)
		if token := floorAt(first.Send); len(leads) == 0 || leads[0].Node != n || leads[0].Token != token {
			t.Fatalf("seed %d: first lead %+v; want n%d with token %d, the token of its lost create #%d", o.Seed, leads, n, token, first.ID)
		}
		lead := leads[0]
		if lead.At < first.Return.At {
			t.Errorf("seed %d: n%d led at %v before it saw the answer of #%d", o.Seed, n, lead.At, first.ID)
		}
		// Between the lost create and the lead, n wrote nothing that S3
		// applied: it led on the strength of #first, found by its nonce.
		for _, c := range puts(calls, n) {
			if c.ID != first.ID && c.Send.At < lead.At && c.applied200() {
				t.Errorf("seed %d: n%d's PutObject #%d applied before it led; want the lead to come from #%d", o.Seed, n, c.ID, first.ID)
			}
			// The SDK's retry of the same create, answered 412.
			if c.ID > first.ID && c.Send.At < lead.At && c.Cond == first.Cond && c.Apply != nil && c.Apply.Status == 412 && c.answered() == 412 {
				retried412++
				break
			}
		}
		// Ambiguous renewals: applied, answer replaced, during a term; the
		// term goes on past a later successful renewal.
		for _, c := range puts(calls, anyNode) {
			term, leading := termAt(o, c.Node, c.Send.At)
			if !leading || c.Cond == "If-None-Match:*" || !c.applied200() || c.Apply.Fault != sim.FaultFailedAfter {
				continue
			}
			renewals++
			ok := false
			for _, d := range puts(calls, c.Node) {
				if d.ID > c.ID && d.answered() == 200 && (term.Open || d.Return.At < term.End) {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("seed %d: n%d's term (token %d) ended after its ambiguous renewal #%d without another successful renewal", o.Seed, c.Node, term.Token, c.ID)
			}
		}
	}
	t.Logf("%d of %d seeds: the SDK retry of the applied create was answered 412; %d ambiguous renewals survived", retried412, len(outs), renewals)
	if retried412 < len(outs)/2 {
		t.Errorf("only %d of %d seeds show the retry answered 412; want most", retried412, len(outs))
	}
	if renewals == 0 {
		t.Errorf("no ambiguous renewal hit a leader")
	}
}
