package harness

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// The lineage rules on hand-built histories: n0 leads with token 100; at
// 10 s someone else overwrites the lock object (ETag "f"); the nodes that
// follow read what is there and take it over, each term acquired by a
// read and a PutObject If-Match of the ETag read.

// chain builds the history: the overwrite, n0's term, then one takeover
// per token in tokens, by nodes 1, 2, ..., the first of the overwrite's
// record, each of the one before, ten seconds apart.
func chain(tokens ...uint64) *sim.History {
	h := &sim.History{Nodes: 8, End: time.Minute}
	put := func(node int, ifMatch, etag string, at time.Duration) {
		putAnswered(h, node, ifMatch, etag, at, at+100*time.Millisecond, 200)
	}
	get := func(node int, etag string, at time.Duration) { getAnswered(h, node, etag, at, at+100*time.Millisecond) }
	put(0, "", `"a"`, secs(0.9))
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 100, Start: secs(1), End: secs(9)})
	foreignPut(h, faults.Overwrite, `"f"`, secs(10))
	prev := `"f"`
	for i, tok := range tokens {
		n, at := i+1, secs(11+10*float64(i))
		etag := `"` + string(rune('b'+i)) + `"`
		get(n, prev, at)
		put(n, prev, etag, at+time.Second)
		h.Terms = append(h.Terms, sim.Term{Node: n, Incarnation: 1, Token: tok, Start: at + 1100*time.Millisecond, End: at + 9*time.Second})
		prev = etag
	}
	return h
}

// putAnswered adds node's PutObject of a body with etag to h, If-Match
// ifMatch (If-None-Match: * if ""), sent at call and answered with status
// at ret.
func putAnswered(h *sim.History, node int, ifMatch, etag string, call, ret time.Duration, status int) {
	op := sim.S3Op{Node: node, Incarnation: 1, Identity: "n", Op: "PutObject", Key: "lock", IfMatch: ifMatch, BodyETag: etag,
		Call: call, Return: ret, Status: status}
	switch status {
	case 200:
		op.ETag = etag
	case 412:
		op.Code = "PreconditionFailed"
	}
	if ifMatch == "" {
		op.IfNoneMatch = "*"
	}
	h.S3 = append(h.S3, op)
}

// getAnswered adds node's GetObject to h, sent at call and answered at
// ret with the version etag.
func getAnswered(h *sim.History, node int, etag string, call, ret time.Duration) {
	h.S3 = append(h.S3, sim.S3Op{Node: node, Incarnation: 1, Identity: "n", Op: "GetObject", Key: "lock",
		Call: call, Return: ret, Status: 200, ETag: etag})
}

// foreignPut adds to h someone else's write of a body with etag at at, a
// fault of kind k.
func foreignPut(h *sim.History, k faults.Kind, etag string, at time.Duration) {
	h.S3 = append(h.S3, sim.S3Op{Node: -1, Op: "PutObject", Key: "lock", BodyETag: etag, Call: at, Return: at, Status: 200, ETag: etag})
	h.Faults = append(h.Faults, sim.FaultSpan{Kind: string(k), Node: -1, From: at, To: at})
}

// judgeHistory judges h as RunSetup would, under plan p.
func judgeHistory(t *testing.T, h *sim.History, p *faults.Plan) *Outcome {
	t.Helper()
	o := &Outcome{Plan: p, Result: &sim.Result{History: h}}
	o.Excuses, o.lineage = excuses(testProtocol, p, h)
	judge(o, testProtocol, p, nil, nil, nil)
	return o
}

// wantCountedOnly fails t unless o is unsafe, and every violation counted
// is of a term with token at at (want says which).
func wantCountedOnly(t *testing.T, o *Outcome, token uint64, at time.Duration, want string) {
	t.Helper()
	if o.Verdict != Unsafe {
		t.Fatalf("verdict %v; want unsafe for %s", o.Verdict, want)
	}
	for _, v := range o.Violations {
		if v.Token != token || v.At != at {
			t.Errorf("counted %v; want %s", v, want)
		}
	}
}

// TestLineageExcusesWhatReadTheForeignWrite: a term that took over the
// foreign record (token 6 after 100) is excused, and listed with the
// overwrite; the chain is never re-established, so the excuse runs to the
// end of the run.
func TestLineageExcusesWhatReadTheForeignWrite(t *testing.T) {
	o := judgeHistory(t, chain(6, 7), plan())
	if o.Verdict != Pass || len(o.Violations) > 0 {
		t.Fatalf("verdict %v %v; want pass", o.Verdict, o.Violations)
	}
	if len(o.Excused) == 0 {
		t.Fatal("nothing excused; want token 6 after 100")
	}
	for _, x := range o.Excused {
		if len(x.Excuses) != 1 || x.Excuses[0].Fault.Kind != string(faults.Overwrite) || !x.Excuses[0].Tokens || x.Excuses[0].To != time.Minute {
			t.Errorf("%v: want it excused by the overwrite, to the end of the run", x)
		}
	}
}

// TestLineageJudgesTermsAfterTheChainInFull: once a takeover's token is
// above every token before the overwrite (101), the chain is
// re-established: a later term with the same token is unsafe though the
// run had a foreign write, and the violations of the terms before it stay
// excused.
func TestLineageJudgesTermsAfterTheChainInFull(t *testing.T) {
	o := judgeHistory(t, chain(6, 101, 101), plan())
	wantCountedOnly(t, o, 101, secs(32.1), "the second token 101 only")
	if len(o.Excused) == 0 || o.Excused[0].Token != 6 {
		t.Fatalf("excused %v; want token 6 after 100", o.Excused)
	}
	if e := o.Excused[0].Excuses[0]; e.To != secs(22.1) {
		t.Errorf("the overwrite's excuse ends at %v, want 22.1s, when token 101 re-established the chain", e.To)
	}
	// Without the repeat, the run passes.
	if o := judgeHistory(t, chain(6, 101, 102), plan()); o.Verdict != Pass {
		t.Errorf("verdict %v %v; want pass", o.Verdict, o.Violations)
	}
}

// TestLineageJudgesTheForeignLineageInFull: two terms that both read the
// foreign record's lineage, before the chain is re-established, are one
// class: a token one hands the other (6 after 6) is not the overwrite's
// doing, and is counted; the step from 100 down to 6 is excused.
func TestLineageJudgesTheForeignLineageInFull(t *testing.T) {
	o := judgeHistory(t, chain(6, 6), plan())
	wantCountedOnly(t, o, 6, secs(22.1), "n2's token 6 only")
	if len(o.Excused) == 0 {
		t.Error("nothing excused; want n1's token 6 after n0's 100")
	}
}

// TestLineageTermsThatDidNotReadTheForeignWrite: a term acquired before
// the overwrite that begins after it (its answer was slow) is not of the
// overwrite's lineage, and a term that read nothing the overwrite wrote is
// judged with the terms before it: n3, whose read returned n0's record
// from before the overwrite, taking token 100 again is counted.
func TestLineageTermsThatDidNotReadTheForeignWrite(t *testing.T) {
	h := chain(6)
	h.S3 = append(h.S3,
		sim.S3Op{Node: 3, Incarnation: 1, Op: "GetObject", Key: "lock", Call: secs(2), Return: secs(2.1), Status: 200, ETag: `"a"`},
		sim.S3Op{Node: 3, Incarnation: 1, Op: "PutObject", Key: "lock", BodyETag: `"z"`, Call: secs(30), Return: secs(30.1), Status: 200, ETag: `"z"`})
	h.Terms = append(h.Terms, sim.Term{Node: 3, Incarnation: 1, Token: 100, Start: secs(30.1), End: secs(40)})
	o := judgeHistory(t, h, plan())
	wantCountedOnly(t, o, 100, secs(30.1), "n3's token 100 only")
}

// TestLineageSpentTokens: a foreign record at the top of the token space
// leaves takeovers nothing but the largest token; the terms that hold it
// are excused whenever they began.
func TestLineageSpentTokens(t *testing.T) {
	o := judgeHistory(t, chain(math.MaxUint64, math.MaxUint64), plan())
	if o.Verdict != Pass {
		t.Fatalf("verdict %v %v; want pass", o.Verdict, o.Violations)
	}
}

// TestLineageDeleteLeavesAbsence: a foreign delete's absence, read by a
// 404 and taken by a create, is content of the delete's.
func TestLineageDeleteLeavesAbsence(t *testing.T) {
	h := chain()
	h.S3[1] = sim.S3Op{Node: -1, Op: "DeleteObject", Key: "lock", Call: secs(10), Return: secs(10), Status: 200}
	h.Faults[0].Kind = string(faults.DeleteLock)
	h.S3 = append(h.S3,
		sim.S3Op{Node: 1, Incarnation: 1, Op: "GetObject", Key: "lock", Call: secs(11), Return: secs(11.1), Status: 404, Code: "NoSuchKey"},
		sim.S3Op{Node: 1, Incarnation: 1, Op: "PutObject", Key: "lock", IfNoneMatch: "*", BodyETag: `"b"`, Call: secs(12), Return: secs(12.1), Status: 200, ETag: `"b"`})
	h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: 1, Start: secs(12.1), End: secs(20)})
	o := judgeHistory(t, h, plan())
	if o.Verdict != Pass || len(o.Excused) == 0 || o.Excused[0].Excuses[0].Fault.Kind != string(faults.DeleteLock) {
		t.Fatalf("verdict %v %v, excused %v; want token 1 after 100 excused by the delete", o.Verdict, o.Violations, o.Excused)
	}
}

// TestLineageAcquisitionInFlight: n1's acquisition (token 101, after n0's
// 100) lands just before someone else overwrites the lock object, and its
// answer comes late; n2 takes over the overwrite's record with token 5000
// and begins before n1 learns that it leads. n1's token, below n2's from
// an earlier start, is the overwrite's doing (it hid n1's record), and is
// excused with it; the chain is re-established only when n1's term began
// (the renewal n1 sends that instant is not its acquisition). Token 5001
// handed out twice after that is counted.
func TestLineageAcquisitionInFlight(t *testing.T) {
	h := &sim.History{Nodes: 8, End: time.Minute}
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 100, Start: secs(1), End: secs(9)})
	getAnswered(h, 1, `"a"`, secs(9.5), secs(9.6))
	putAnswered(h, 1, `"a"`, `"b"`, secs(9.7), secs(12), 200)
	putAnswered(h, 1, `"b"`, `"b2"`, secs(12), secs(12.1), 412)
	h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: 101, Start: secs(12), End: secs(12.5)})
	foreignPut(h, faults.Overwrite, `"f"`, secs(10))
	prev := `"f"`
	for i, tok := range []uint64{5000, 5001, 5001} {
		n, at := i+2, secs(10.5+10*float64(i))
		etag := `"` + string(rune('c'+i)) + `"`
		getAnswered(h, n, prev, at, at+100*time.Millisecond)
		putAnswered(h, n, prev, etag, at+200*time.Millisecond, at+300*time.Millisecond, 200)
		h.Terms = append(h.Terms, sim.Term{Node: n, Incarnation: 1, Token: tok, Start: at + 300*time.Millisecond, End: at + 9*time.Second})
		prev = etag
	}
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	slices.SortStableFunc(h.Terms, func(a, b sim.Term) int { return cmp.Compare(a.Start, b.Start) })
	o := judgeHistory(t, h, plan())
	wantCountedOnly(t, o, 5001, secs(30.8), "n4's token 5001 only")
	var tokens bool
	for _, x := range o.Excused {
		if x.Checker != "monotonic-tokens" {
			continue
		}
		tokens = true
		if x.Token != 101 || len(x.Excuses) != 1 || x.Excuses[0].Fault.Kind != string(faults.Overwrite) || x.Excuses[0].To != secs(12) {
			t.Errorf("%v: want n1's token 101 excused by the overwrite, whose excuse ends at 12s", x)
		}
	}
	if !tokens {
		t.Errorf("excused %v; want n1's token 101 after n2's 5000", o.Excused)
	}
}

// TestLineageRestoreReusesAnETag: someone else writes back n0's old record
// (token 5, ETag "a") while n3 holds token 100; n1, which read "a" before
// n3 took over, takes over the restored version with token 6, and n2 takes
// over n1's record with token 7. Both derive from the restore, so both
// steps down from 100 are excused: whether n1 read the restored bytes, or
// its If-Match on "a" was sent before the restore (ETag reuse: its read
// was older than the restore): n3 had replaced "a" by then, so n1's write
// can only have succeeded on the restored version.
func TestLineageRestoreReusesAnETag(t *testing.T) {
	for _, c := range []struct {
		name     string
		get, put float64 // when n1 reads "a", when it sends its If-Match on it
	}{
		{"read of the restored bytes", 10.05, 10.1},
		{"If-Match sent before the restore", 2, 9.95},
	} {
		h := &sim.History{Nodes: 8, End: time.Minute}
		putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
		h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 5, Start: secs(1), End: secs(3)})
		getAnswered(h, 3, `"a"`, secs(3.5), secs(3.6))
		putAnswered(h, 3, `"a"`, `"x"`, secs(3.7), secs(3.8), 200)
		h.Terms = append(h.Terms, sim.Term{Node: 3, Incarnation: 1, Token: 100, Start: secs(3.8), End: secs(9.9)})
		foreignPut(h, faults.Restore, `"a"`, secs(10))
		getAnswered(h, 1, `"a"`, secs(c.get), secs(c.get)+50*time.Millisecond)
		putAnswered(h, 1, `"a"`, `"b"`, secs(c.put), secs(10.2), 200)
		h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: 6, Start: secs(10.2), End: secs(15)})
		getAnswered(h, 2, `"b"`, secs(16), secs(16.1))
		putAnswered(h, 2, `"b"`, `"c"`, secs(16.2), secs(16.3), 200)
		h.Terms = append(h.Terms, sim.Term{Node: 2, Incarnation: 1, Token: 7, Start: secs(16.3), End: secs(25)})
		slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
		o := judgeHistory(t, h, plan())
		if o.Verdict != Pass || len(o.Excused) == 0 {
			t.Errorf("%s: verdict %v %v, excused %v; want pass, tokens 6 and 7 after 100 excused by the restore", c.name, o.Verdict, o.Violations, o.Excused)
		}
		for _, x := range o.Excused {
			if x.Excuses[0].Fault.Kind != string(faults.Restore) {
				t.Errorf("%s: %v: want it excused by the restore", c.name, x)
			}
		}
	}
}

// TestLineageRestoreOfTheVersionInFlight: n3's If-Match on n0's current
// "a" is in flight when someone restores "a" (the same bytes), and n2
// takes over the restored "a" with n3's token 5. n3's write replaced the
// version current when it was sent (n2's success shows the restore came
// after it): n3's acquisition did not read the restore, n2's did, and
// token 5 twice is the restore's doing.
func TestLineageRestoreOfTheVersionInFlight(t *testing.T) {
	h := &sim.History{Nodes: 8, End: time.Minute}
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 4, Start: secs(1), End: secs(9)})
	getAnswered(h, 3, `"a"`, secs(9.5), secs(9.6))
	putAnswered(h, 3, `"a"`, `"b"`, secs(9.7), secs(10.05), 200)
	foreignPut(h, faults.Restore, `"a"`, secs(10))
	h.Terms = append(h.Terms, sim.Term{Node: 3, Incarnation: 1, Token: 5, Start: secs(10.05), End: secs(11)})
	getAnswered(h, 2, `"a"`, secs(10.1), secs(10.2))
	putAnswered(h, 2, `"a"`, `"c"`, secs(10.3), secs(10.4), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 2, Incarnation: 1, Token: 5, Start: secs(10.4), End: secs(12)})
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	o := judgeHistory(t, h, plan())
	if o.Verdict != Pass || len(o.Excused) == 0 {
		t.Fatalf("verdict %v %v, excused %v; want pass, token 5 twice excused by the restore", o.Verdict, o.Violations, o.Excused)
	}
	if !o.lineage.read[1].empty() {
		t.Errorf("n3's acquisition read the content of foreign writes %v; want none", o.lineage.read[1].members())
	}
}

// TestLineageTwoRestoresOfOneRecord: someone writes the same record "f"
// twice, at 5 s and at 10 s (one ETag). n1 and n4 both read the first
// and send a takeover If-Match "f" before the second restore; S3 applied
// n1's at 9.9 s, on the first restore, and n4's at 10.05 s, on the second,
// which had hidden n1's record. Both succeed, n1 with token 7, n4 with 8,
// and n1 learns it leads after n4 began: tokens out of order, which only
// the second restore could cause. The history knows when S3 applied each
// write (sim.S3Op.Applied): n4's replaced the second restore, n1's did
// not, and the violation is excused by the second restore. Without the
// instants (a history recorded outside the simulator), both would be taken
// to have replaced the version current when they were sent.
func TestLineageTwoRestoresOfOneRecord(t *testing.T) {
	h := &sim.History{Nodes: 8, End: time.Minute}
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 6, Start: secs(1), End: secs(4)})
	foreignPut(h, faults.Restore, `"f"`, secs(5))
	getAnswered(h, 1, `"f"`, secs(9.7), secs(9.75))
	getAnswered(h, 4, `"f"`, secs(9.7), secs(9.75))
	putAnswered(h, 1, `"f"`, `"b"`, secs(9.8), secs(10.2), 200)
	putAnswered(h, 4, `"f"`, `"c"`, secs(9.85), secs(10.1), 200)
	foreignPut(h, faults.Restore, `"f"`, secs(10))
	h.Terms = append(h.Terms,
		sim.Term{Node: 4, Incarnation: 1, Token: 8, Start: secs(10.1), End: secs(12)},
		sim.Term{Node: 1, Incarnation: 1, Token: 7, Start: secs(10.2), End: secs(11)})
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	for i := range h.S3 {
		switch op := &h.S3[i]; {
		case op.Node < 0:
			op.Applied = op.Call
		case op.Node == 1 && op.Op == "PutObject":
			op.Applied = secs(9.9)
		case op.Node == 4 && op.Op == "PutObject":
			op.Applied = secs(10.05)
		default:
			op.Applied = -1
		}
	}
	o := judgeHistory(t, h, plan())
	if o.Verdict != Pass {
		t.Fatalf("verdict %v %v; want pass: token 7 after 8 is the second restore's doing", o.Verdict, o.Violations)
	}
	if got := o.lineage.read[1].members(); !slices.Contains(got, 1) {
		t.Errorf("n4's acquisition read the content of foreign writes %v; want the second restore's (1) among them", got)
	}
	if got := o.lineage.read[2].members(); slices.Contains(got, 1) {
		t.Errorf("n1's acquisition read the content of foreign writes %v; want not the second restore's", got)
	}
}

// TestLineageUnansweredWriteShownBeforeARestore: n1 read n0's "a", and
// n3 replaced it; n1's If-Match on "a", sent after that, got no answer,
// yet n1 read what it wrote ("b") at 3.6 s and led. It can only have
// applied after someone restored "a" at 3 s, and before n1 read "b": n1's
// term derives from that restore, not from the second one at 10 s.
func TestLineageUnansweredWriteShownBeforeARestore(t *testing.T) {
	h := &sim.History{Nodes: 8, End: time.Minute}
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 5, Start: secs(1), End: secs(2)})
	getAnswered(h, 1, `"a"`, secs(1.5), secs(1.6))
	getAnswered(h, 3, `"a"`, secs(2), secs(2.05))
	putAnswered(h, 3, `"a"`, `"x"`, secs(2.1), secs(2.2), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 3, Incarnation: 1, Token: 6, Start: secs(2.2), End: secs(2.9)})
	putAnswered(h, 1, `"a"`, `"b"`, secs(2.5), -1, 0)
	foreignPut(h, faults.Restore, `"a"`, secs(3))
	getAnswered(h, 1, `"b"`, secs(3.5), secs(3.6))
	h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: 6, Start: secs(3.6), End: secs(9)})
	foreignPut(h, faults.Restore, `"a"`, secs(10))
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	o := judgeHistory(t, h, plan())
	if o.lineage == nil {
		t.Fatal("no lineage traced from the restores")
	}
	if got := o.lineage.read[2].members(); !slices.Equal(got, []int{0}) {
		t.Errorf("n1's term read the content of foreign writes %v; want the first restore's (0) only", got)
	}
	if o.Verdict != Pass {
		t.Errorf("verdict %v %v; want pass (n1's token 6 again is the first restore's doing)", o.Verdict, o.Violations)
	}
}

// TestLineageSpentTokensComeBack: someone else overwrites the lock object
// with a record at the top of the token space; n1 takes it over with the
// largest token, n2 starts again at 1, n1 (which remembers the largest
// token it saw) takes the largest again, and n3 starts again at 1: the
// second 1 is the overwrite's doing, and excused. n0 and n2 then both
// take token 2 in turn: that is the electors' doing, and counted.
func TestLineageSpentTokensComeBack(t *testing.T) {
	h := &sim.History{Nodes: 8, End: time.Minute}
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 100, Start: secs(1), End: secs(9)})
	foreignPut(h, faults.Overwrite, `"f"`, secs(10))
	prev := `"f"`
	for i, s := range []struct {
		node  int
		token uint64
	}{{1, math.MaxUint64}, {2, 1}, {1, math.MaxUint64}, {3, 1}, {0, 2}, {2, 2}} {
		at := secs(10 + 2*float64(i))
		etag := `"` + string(rune('b'+i)) + `"`
		getAnswered(h, s.node, prev, at, at+100*time.Millisecond)
		putAnswered(h, s.node, prev, etag, at+200*time.Millisecond, at+300*time.Millisecond, 200)
		h.Terms = append(h.Terms, sim.Term{Node: s.node, Incarnation: 1, Token: s.token, Start: at + 300*time.Millisecond, End: at + 1900*time.Millisecond})
		prev = etag
	}
	o := judgeHistory(t, h, plan())
	wantCountedOnly(t, o, 2, secs(20.3), "n2's token 2 after n0's")
	for _, x := range o.Excused {
		if x.Token == 1 && x.At == secs(16.3) {
			return
		}
	}
	t.Errorf("excused %v; want n3's token 1 after n2's", o.Excused)
}
