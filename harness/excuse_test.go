package harness

import (
	"slices"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// The excuse rules, one test each, on hand-made histories: a violation on
// a node without faults, during a fault on another node, is counted; one on
// the faulty node inside the interval its fault can affect is excused and
// listed with the fault.

var testProtocol = Protocol{Name: "t", Assumptions: protocol.Assumptions{Lease: 6 * time.Second, Term: 4 * time.Second, MaxDriftPPM: 1000, MaxPause: 2 * time.Second}}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// judged classifies the overlaps of two-term pairs and the violations vs
// for a run with faults fs and plan p, and returns the counted and the
// excused violations.
func judged(p *faults.Plan, fs []sim.FaultSpan, overlaps []linearizability.Overlap, vs []linearizability.Violation) (counted []linearizability.Violation, excused []Excused) {
	h := &sim.History{Nodes: 4, End: 60 * time.Second, Faults: fs}
	xs, l := excuses(testProtocol, p, h)
	classify := func(v linearizability.Violation, ov *linearizability.Overlap) {
		if es := excusesFor(v, ov, v.Checker == "monotonic-tokens" && v.Token == 2, xs, l, h); len(es) > 0 {
			excused = append(excused, Excused{Violation: v, Excuses: es})
		} else {
			counted = append(counted, v)
		}
	}
	for _, v := range vs {
		classify(v, nil)
	}
	for i, v := range linearizability.OverlapViolations(overlaps) {
		classify(v, &overlaps[i])
	}
	return counted, excused
}

func overlap(a, b int, from, to float64) linearizability.Overlap {
	return linearizability.Overlap{Nodes: [2]int{a, b}, Tokens: [2]uint64{1, 2}, From: secs(from), To: secs(to)}
}

func plan() *faults.Plan { return &faults.Plan{HealAt: faults.Duration(45 * time.Second)} }

// TestExcusePauseCoversOnlyItsNode: a pause beyond the bound on n2 excuses
// an overlap of n2 with another node inside the pause and a term after it,
// not an overlap between two other nodes at the same time, nor one of n2
// that lasts past the window.
func TestExcusePauseCoversOnlyItsNode(t *testing.T) {
	fs := []sim.FaultSpan{{Kind: "pause", Node: 2, From: secs(10), To: secs(13)}}
	counted, excused := judged(plan(), fs, []linearizability.Overlap{
		overlap(0, 1, 11, 12), // other nodes: counted
		overlap(2, 0, 11, 16), // n2, inside [10, 13+4]: excused
		overlap(2, 3, 12, 40), // n2, past the window: counted
	}, nil)
	if len(counted) != 2 || counted[0].Nodes[0] != 0 || counted[0].Nodes[1] != 1 || counted[1].Nodes[1] != 3 {
		t.Fatalf("counted %v; want the overlap of n0 and n1 and the long one of n2 and n3", counted)
	}
	if len(excused) != 1 || excused[0].Excuses[0].Node != 2 || excused[0].Excuses[0].Fault.Kind != "paused" {
		t.Fatalf("excused %v; want the overlap of n2 and n0, by n2's pause", excused)
	}
}

// TestExcusePausesMerge: two pauses of one node that overlap or touch count
// as one against the bound; two short apart ones do not.
func TestExcusePausesMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		fs   []sim.FaultSpan
		want bool
	}{
		{"one short pause", []sim.FaultSpan{{Kind: "pause", Node: 1, From: secs(10), To: secs(11.5)}}, false},
		{"back to back", []sim.FaultSpan{{Kind: "pause", Node: 1, From: secs(10), To: secs(11.5)}, {Kind: "answer-pause", Node: 1, From: secs(11.5), To: secs(13)}}, true},
		{"overlapping", []sim.FaultSpan{{Kind: "pause-before-write", Node: 1, From: secs(10), To: secs(11.5)}, {Kind: "pause", Node: 1, From: secs(11), To: secs(12.5)}}, true},
		{"apart", []sim.FaultSpan{{Kind: "pause", Node: 1, From: secs(10), To: secs(11.5)}, {Kind: "pause", Node: 1, From: secs(12), To: secs(13.5)}}, false},
		{"other nodes", []sim.FaultSpan{{Kind: "pause", Node: 1, From: secs(10), To: secs(11.5)}, {Kind: "pause", Node: 2, From: secs(11), To: secs(12.5)}}, false},
	} {
		xs, _ := excuses(testProtocol, plan(), &sim.History{End: time.Minute, Faults: c.fs})
		if got := len(xs) > 0; got != c.want {
			t.Errorf("%s: excused %v, want %v (%v)", c.name, got, c.want, xs)
		}
	}
}

// TestExcuseDriftStallLinger: a clock drifting beyond its bound until the
// heal, a stalled clock and a lingering application each excuse overlaps
// of their node only, for as long as they can affect it.
func TestExcuseDriftStallLinger(t *testing.T) {
	p := plan()
	p.Clocks = []faults.ClockSetting{{Node: 3, DriftPPM: 30_000, DriftUntil: p.HealAt}}
	fs := []sim.FaultSpan{
		{Kind: "clock-stall", Node: 1, From: secs(5), To: secs(6)},
		{Kind: "linger", Node: 2, From: secs(20), To: secs(22)},
	}
	counted, excused := judged(p, fs, []linearizability.Overlap{
		overlap(3, 0, 30, 31), // drifting n3, before the heal: excused
		overlap(3, 0, 52, 53), // after the heal, a term and a pause: counted
		overlap(1, 0, 5.5, 7), // stalled n1: excused
		overlap(2, 0, 21, 23), // lingering n2: excused
		overlap(0, 1, 30, 31), // n1 long after its stall: counted
	}, nil)
	if len(excused) != 3 || len(counted) != 2 {
		t.Fatalf("excused %v\ncounted %v\nwant 3 excused and 2 counted", excused, counted)
	}
}

// TestExcuseReachesTheTermAndThePause: a node whose VM was suspended
// resumes with its monotonic clock where it stopped, so its term may run a
// whole term (on a clock running slow by the drift bound) after the resume,
// and its application act up to the pause bound after that: 4 s * 1e6 /
// 999000 + 2 s = 6.004004005 s. An overlap within that is excused, one past
// it counted.
func TestExcuseReachesTheTermAndThePause(t *testing.T) {
	if got, want := testProtocol.reach(), 6*time.Second+4_004_005; got != want {
		t.Fatalf("reach %v, want %v", got, want)
	}
	fs := []sim.FaultSpan{{Kind: "clock-stall", Node: 1, From: secs(5), To: secs(20)}}
	counted, excused := judged(plan(), fs, []linearizability.Overlap{
		overlap(1, 0, 12, 26.004), // the resumed term, and its application's last write
		overlap(1, 2, 25, 26.1),   // past the term and the pause
	}, nil)
	if len(excused) != 1 || len(counted) != 1 || counted[0].Nodes[1] != 2 {
		t.Fatalf("excused %v\ncounted %v\nwant the overlap within 6.004 s of the resume excused, the one past it counted", excused, counted)
	}
}

// TestExcuseWindowsJoin: an overlap that a foreign write begins and a pause
// of one of its nodes prolongs is excused by the two together; with a gap
// between their windows it is counted.
func TestExcuseWindowsJoin(t *testing.T) {
	fs := []sim.FaultSpan{{Kind: "overwrite", Node: -1, From: secs(10), To: secs(10)}, {Kind: "pause", Node: 1, From: secs(18), To: secs(22)}}
	_, excused := judged(plan(), fs, []linearizability.Overlap{overlap(1, 0, 11, 25)}, nil)
	if len(excused) != 1 || len(excused[0].Excuses) != 2 {
		t.Fatalf("excused %v; want one overlap with two excuses", excused)
	}
	fs[1].From, fs[1].To = secs(25), secs(29) // the foreign write's window ends at 20
	counted, _ := judged(plan(), fs, []linearizability.Overlap{overlap(1, 0, 11, 27)}, nil)
	if len(counted) != 1 {
		t.Fatalf("an overlap with a gap between its excuses was not counted")
	}
}

// TestHealedAtIsTheLastFaultsEnd: liveness is judged from the end of the
// last fault, which may outlast the plan's heal.
func TestHealedAtIsTheLastFaultsEnd(t *testing.T) {
	h := &sim.History{Faults: []sim.FaultSpan{{Kind: "pause", Node: 0, From: secs(40), To: secs(47)}}}
	if got := healedAt(plan(), h); got != secs(47) {
		t.Fatalf("healedAt = %v, want 47s", got)
	}
}

// TestExcuseStaleGrantByStalledClock: a stalled monotonic clock lets a node
// act on a grant that sat in a buffer, so a term it begins late with a
// lower token than one already begun is excused; two holders of one token
// are not, since the lock object's conditional writes rule them out.
func TestExcuseStaleGrantByStalledClock(t *testing.T) {
	fs := []sim.FaultSpan{{Kind: "clock-stall", Node: 3, From: secs(13), To: secs(29)}}
	late := linearizability.Violation{Checker: "monotonic-tokens", At: secs(29.7), Nodes: []int{2, 3}, Token: 2} // below an earlier 3
	twice := linearizability.Violation{Checker: "unique-holder", At: secs(29.7), Nodes: []int{2, 3}}
	counted, excused := judged(plan(), fs, nil, []linearizability.Violation{late, twice})
	if len(excused) != 1 || excused[0].Checker != "monotonic-tokens" || len(counted) != 1 || counted[0].Checker != "unique-holder" {
		t.Fatalf("excused %v, counted %v; want the late term excused and the shared token counted", excused, counted)
	}
}

// TestExcusePreemptedTerm: n1's clock drifts beyond the bound and n1 takes
// the lock while n0's term still runs; n1 hands it on (a release) and n3
// takes it at once. The overlap of n0 with n3 inside n0's term is excused
// by n1's clock; one of n0 with n3 after n0's term, one of n2 with n3, and
// one past the time n0's term could have lasted (a term and a pause after
// n1's began: an application that goes on after it) are counted; and
// without n1's early term nothing of n0's is excused.
func TestExcusePreemptedTerm(t *testing.T) {
	p := plan()
	p.Clocks = []faults.ClockSetting{{Node: 1, DriftPPM: 500_000, DriftUntil: faults.Duration(45 * time.Second)}}
	h := &sim.History{Nodes: 4, End: 60 * time.Second, Terms: []sim.Term{
		{Node: 0, Token: 1, Start: secs(5), End: secs(12)},
		{Node: 1, Token: 2, Start: secs(10), End: secs(10.5)},
		{Node: 3, Token: 3, Start: secs(11), End: secs(20)},
	}}
	xs, _ := excuses(testProtocol, p, h)
	judge := func(ov linearizability.Overlap) bool {
		v := linearizability.OverlapViolations([]linearizability.Overlap{ov})[0]
		return len(excusesFor(v, &ov, false, xs, nil, h)) > 0
	}
	if !judge(overlap(0, 3, 11, 12)) {
		t.Errorf("n0 and n3 inside n0's cut term: counted, want excused")
	}
	if judge(overlap(0, 3, 11, 13)) || judge(overlap(2, 3, 11, 12)) {
		t.Errorf("an overlap past n0's term, or of two other nodes, excused")
	}
	h.Terms[0].End = secs(30) // n0's application goes on
	xs, _ = excuses(testProtocol, p, h)
	if !judge(overlap(0, 3, 11, 16)) || judge(overlap(0, 3, 11, 17)) {
		t.Errorf("n0's term past what it could last (a term and a pause, about 6s, after 10s): excused, or not excused within it")
	}
	h.Terms[0].End = secs(12)
	h.Terms[1].Start, h.Terms[1].End = secs(13), secs(14) // n1 takes it after n0's term
	xs, _ = excuses(testProtocol, p, h)
	if judge(overlap(0, 3, 11, 12)) {
		t.Errorf("n0's term not cut by n1: its overlap with n3 excused")
	}
}

// TestTornWithForeign: the torn reads that carry a foreign write's version,
// its ETag or its body, from the write on, are the ones whose node the
// write's excuse reaches; a tear of the nodes' own versions, or one before
// the write, is not.
func TestTornWithForeign(t *testing.T) {
	ms := time.Millisecond
	h := &sim.History{S3: []sim.S3Op{
		{Node: 1, Op: "GetObject", Call: 5 * ms, Return: 8 * ms, ETag: `"f"`, TornBodyETag: `"a"`}, // before the write
		{Node: -1, Op: "PutObject", Call: 10 * ms, Return: 10 * ms, BodyETag: `"f"`},
		{Node: 2, Op: "GetObject", Call: 11 * ms, Return: 14 * ms, ETag: `"f"`, TornBodyETag: `"b"`}, // its ETag
		{Node: 3, Op: "GetObject", Call: 12 * ms, Return: 15 * ms, ETag: `"c"`, TornBodyETag: `"f"`}, // its body
		{Node: 4, Op: "GetObject", Call: 12 * ms, Return: 15 * ms, ETag: `"c"`, TornBodyETag: `"d"`}, // others'
		{Node: 0, Op: "GetObject", Call: 13 * ms, Return: 16 * ms, ETag: `"f"`},                      // whole
	}}
	var nodes []int
	for _, op := range tornWithForeign(h, sim.FaultSpan{Kind: "overwrite", Node: -1, From: 10 * ms, To: 10 * ms}) {
		nodes = append(nodes, op.Node)
	}
	if !slices.Equal(nodes, []int{2, 3}) {
		t.Errorf("torn reads with the foreign version: nodes %v, want [2 3]", nodes)
	}
}
