package harness

import (
	"math"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// The watermark rules on a hand-built history: n0 (token 100) publishes a
// watermark 20 s ahead; someone else overwrites the lock object at 10 s
// with a record that hands on none; n1 takes it over (token 101, which
// re-establishes the token chain at once) and publishes 15 s ahead; n2
// takes over n1's record (token 102). Both n1 and n2 are of the
// overwrite's hand-over lineage, n0 of none.
func watermarkChain() (*sim.History, linearizability.WatermarkHistory) {
	h := &sim.History{Nodes: 4, End: time.Minute}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return base.Add(secs(s)) }
	var wh linearizability.WatermarkHistory
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	putAnswered(h, 0, `"a"`, `"a2"`, secs(2), secs(2.1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 100, Start: secs(1), End: secs(9)})
	wh.Publications = append(wh.Publications, linearizability.Publication{Token: 100, Watermark: at(20), Known: secs(2.1), ETag: `"a2"`})
	foreignPut(h, faults.Overwrite, `"f"`, secs(10))
	getAnswered(h, 1, `"f"`, secs(11), secs(11.1))
	putAnswered(h, 1, `"f"`, `"b"`, secs(12), secs(12.1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: 101, Start: secs(12.1), End: secs(19)})
	wh.Publications = append(wh.Publications, linearizability.Publication{Token: 101, Watermark: at(15), Known: secs(12.1), ETag: `"b"`})
	wh.Writes = append(wh.Writes, linearizability.StampedWrite{Node: 1, Token: 101, Stamp: at(13), At: secs(13)})
	getAnswered(h, 2, `"b"`, secs(21), secs(21.1))
	putAnswered(h, 2, `"b"`, `"c"`, secs(22), secs(22.1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 2, Incarnation: 1, Token: 102, Start: secs(22.1), End: secs(30)})
	wh.Publications = append(wh.Publications, linearizability.Publication{Token: 102, Watermark: at(40), Known: secs(22.1), ETag: `"c"`})
	return h, wh
}

// judgeWatermarks judges h with the watermark history wh and the audit's
// violations contract, as RunSetup would.
func judgeWatermarks(h *sim.History, wh linearizability.WatermarkHistory, contract []linearizability.Violation) *Outcome {
	p := plan()
	o := &Outcome{Plan: p, Result: &sim.Result{History: h}}
	o.Excuses, o.lineage = excuses(testProtocol, p, h)
	judge(o, testProtocol, p, nil,
		func(*sim.Result) []linearizability.Violation { return contract },
		func(*sim.Result) linearizability.WatermarkHistory { return wh })
	return o
}

// TestWatermarkExcuseFollowsTheHandOver: n1's entry below n0's watermark
// is the overwrite's doing (n1 was handed the overwrite's record, not
// n0's watermark), though n1's token re-established the chain: excused,
// and listed with the overwrite.
func TestWatermarkExcuseFollowsTheHandOver(t *testing.T) {
	h, wh := watermarkChain()
	o := judgeWatermarks(h, wh, nil)
	if o.Verdict != Pass {
		t.Fatalf("verdict %v %v; want pass", o.Verdict, o.Violations)
	}
	if len(o.Excused) != 1 || o.Excused[0].Rule != linearizability.RuleBelowPredecessor || o.Excused[0].Excuses[0].Fault.Kind != string(faults.Overwrite) {
		t.Fatalf("excused %v; want n1's entry below n0's watermark, excused by the overwrite", o.Excused)
	}
}

// TestWatermarkHandedOnByElectorsIsJudged: n2 was handed n1's watermark
// by electors alone; its entry below it is counted, though the run had a
// foreign write and n2's acquisition read what it wrote (the entry is
// below n0's watermark too: that part is excused).
func TestWatermarkHandedOnByElectorsIsJudged(t *testing.T) {
	h, wh := watermarkChain()
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	wh.Writes = append(wh.Writes, linearizability.StampedWrite{Node: 2, Token: 102, Stamp: base.Add(secs(14)), At: secs(23)})
	o := judgeWatermarks(h, wh, nil)
	if o.Verdict != Unsafe || len(o.Violations) != 1 {
		t.Fatalf("verdict %v %v; want unsafe for n2's entry below n1's watermark", o.Verdict, o.Violations)
	}
	if v := o.Violations[0]; v.Rule != linearizability.RuleBelowPredecessor || v.Token != 102 || v.At != secs(23) {
		t.Errorf("counted %v; want n2's entry at 23s", v)
	}
}

// TestWatermarkContractExcusedByTheRecordTakenOver: a broken watermark
// contract is excused for n1, which took over the overwrite's record
// itself, and counted for n2, which took over n1's.
func TestWatermarkContractExcusedByTheRecordTakenOver(t *testing.T) {
	h, wh := watermarkChain()
	contract := func(node int, token uint64, at float64) linearizability.Violation {
		return linearizability.Violation{Checker: linearizability.WatermarkChecker, Rule: "api-contract", At: secs(at), Nodes: []int{node}, Token: token, Message: "published below handed"}
	}
	o := judgeWatermarks(h, wh, []linearizability.Violation{contract(1, 101, 12.2), contract(2, 102, 22.2)})
	if len(o.Violations) != 1 || o.Violations[0].Token != 102 {
		t.Errorf("counted %v; want n2's only", o.Violations)
	}
	for _, x := range o.Excused {
		if x.Rule == "api-contract" && (x.Token != 101 || x.Excuses[0].Fault.Kind != string(faults.Overwrite)) {
			t.Errorf("excused %v; want n1's by the overwrite", x)
		}
	}
}

// TestWatermarkBelowALaterLowerToken: someone else overwrites the lock
// object with a record at the top of the token space; n1 takes it over
// with the largest token, and n2 takes over n1's record with token 101,
// below it. n1's entry is below n2's watermark only because n2's token is
// lower though it came later (one hand-over lineage, but tokens that went
// down): excused with the overwrite, as n2's token is.
func TestWatermarkBelowALaterLowerToken(t *testing.T) {
	h := &sim.History{Nodes: 4, End: time.Minute}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var wh linearizability.WatermarkHistory
	putAnswered(h, 0, "", `"a"`, secs(0.9), secs(1), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 0, Incarnation: 1, Token: 100, Start: secs(1), End: secs(9)})
	foreignPut(h, faults.Overwrite, `"f"`, secs(10))
	getAnswered(h, 1, `"f"`, secs(10.2), secs(10.3))
	putAnswered(h, 1, `"f"`, `"b"`, secs(10.4), secs(10.5), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 1, Incarnation: 1, Token: math.MaxUint64, Start: secs(10.5), End: secs(12)})
	wh.Writes = append(wh.Writes, linearizability.StampedWrite{Node: 1, Token: math.MaxUint64, Stamp: base.Add(secs(11)), At: secs(11)})
	wh.Publications = append(wh.Publications, linearizability.Publication{Token: math.MaxUint64, Watermark: base.Add(secs(12)), Known: secs(10.5), ETag: `"b"`})
	getAnswered(h, 2, `"b"`, secs(12.5), secs(12.6))
	putAnswered(h, 2, `"b"`, `"c"`, secs(12.9), secs(13), 200)
	h.Terms = append(h.Terms, sim.Term{Node: 2, Incarnation: 1, Token: 101, Start: secs(13), End: secs(20)})
	wh.Publications = append(wh.Publications, linearizability.Publication{Token: 101, Watermark: base.Add(secs(30)), Known: secs(13), ETag: `"c"`})
	o := judgeWatermarks(h, wh, nil)
	if o.Verdict != Pass {
		t.Fatalf("verdict %v %v; want pass", o.Verdict, o.Violations)
	}
	for _, x := range o.Excused {
		if x.Checker == linearizability.WatermarkChecker {
			if x.Excuses[0].Fault.Kind != string(faults.Overwrite) {
				t.Errorf("%v: want it excused by the overwrite", x)
			}
			return
		}
	}
	t.Errorf("excused %v; want n1's entry below n2's watermark", o.Excused)
}
