package harness

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// tornHistory is a hand-built run with a torn read. n0 leads (token 5)
// and releases (record "r"); n1 reads the release and takes it over
// (token 6, record "b"); n2's read, racing n1's write, is answered torn:
// the released body under the ETag "b". Trusting the body, n2 takes the
// "released" record at once, If-Match "b", with n1's token 6 (record "c"),
// beside n1 until n1's renewal fails. Long after, n3 takes "c" over with
// token 7, which re-establishes the chain, and n4 takes n3's record "d"
// over with token 7 again: a token handed out twice between two terms
// that the torn read cannot have reached.
func tornHistory() *sim.History {
	h := &sim.History{Nodes: 5, End: time.Minute}
	put := func(node int, ifMatch, etag string, at time.Duration) {
		putAnswered(h, node, ifMatch, etag, at, at+100*time.Millisecond, 200)
	}
	get := func(node int, etag string, at time.Duration) { getAnswered(h, node, etag, at, at+100*time.Millisecond) }
	term := func(node int, token uint64, from, to time.Duration) {
		h.Terms = append(h.Terms, sim.Term{Node: node, Incarnation: 1, Token: token, Start: from, End: to})
	}
	put(0, "", `"a"`, secs(0.9))
	term(0, 5, secs(1), secs(9))
	put(0, `"a"`, `"r"`, secs(9))
	get(1, `"r"`, secs(9.15))
	put(1, `"r"`, `"b"`, secs(9.3))
	term(1, 6, secs(9.4), secs(10.5))
	getAnswered(h, 2, `"b"`, secs(9.25), secs(9.45))
	h.S3[len(h.S3)-1].TornBodyETag = `"r"`
	h.Faults = append(h.Faults, sim.FaultSpan{Kind: tornKind, Node: 2, From: secs(9.25), To: secs(9.45)})
	put(2, `"b"`, `"c"`, secs(9.45))
	term(2, 6, secs(9.55), secs(40))
	get(3, `"c"`, secs(41))
	put(3, `"c"`, `"d"`, secs(41.1))
	term(3, 7, secs(41.2), secs(50))
	get(4, `"d"`, secs(51))
	put(4, `"d"`, `"e"`, secs(51.1))
	term(4, 7, secs(51.2), time.Minute)
	return h
}

// judgeWith judges h as RunSetup would, with protocol p, under plan().
func judgeWith(p Protocol, h *sim.History) *Outcome {
	o := &Outcome{Plan: plan(), Result: &sim.Result{History: h}}
	o.Excuses, o.lineage = excuses(p, o.Plan, h)
	judge(o, p, o.Plan, nil, nil, nil)
	return o
}

// TestTornReadExcusesWhatItReaches: for a protocol that does not tolerate
// torn reads, the torn read excuses what its reader did on it (token 6
// handed out twice, n1 and n2 leading at once), each listed with the torn
// read; not the token 7 that n3 and n4 share after the chain was
// re-established. For a protocol that claims to tolerate them, nothing is
// excused.
func TestTornReadExcusesWhatItReaches(t *testing.T) {
	o := judgeWith(testProtocol, tornHistory())
	wantCountedOnly(t, o, 7, secs(51.2), "token 7 of n4 after n3's, which the torn read cannot reach")
	var tokens, overlaps int
	for _, x := range o.Excused {
		for _, e := range x.Excuses {
			if e.Kind != tornKind || e.Fault.Node != 2 {
				t.Errorf("%v: excused by %v; want the torn read of n2", x.Violation, e)
			}
		}
		switch {
		case x.Checker == "overlap":
			overlaps++
		case x.Token == 6:
			tokens++
		default:
			t.Errorf("excused %v; want only what token 6 and the overlap of n1 and n2 broke", x)
		}
	}
	if tokens == 0 || overlaps != 1 {
		t.Errorf("excused %d violations of token 6 and %d overlaps; want some and 1:\n%v", tokens, overlaps, o.Excused)
	}
	tolerant := testProtocol
	tolerant.Assumptions.TornReads = true
	if o := judgeWith(tolerant, tornHistory()); o.Verdict != Unsafe || len(o.Excused) > 0 || len(o.Outside) > 0 {
		t.Errorf("a protocol that tolerates torn reads: %v, %d excused, outside %q; want unsafe, nothing excused", o.Verdict, len(o.Excused), o.Outside)
	}
}
