package harness

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// TestExcuseKinds: the excuses name the kind of fault summaries count
// them by: a suspended VM, a pause beyond the bound (whatever paused the
// node), a clock drifting beyond its bound, a foreign write by its plan
// kind; a term another node's early start cut into, the kind of that
// node's fault.
func TestExcuseKinds(t *testing.T) {
	p := plan()
	p.Clocks = []faults.ClockSetting{{Node: 3, DriftPPM: 30_000, DriftUntil: p.HealAt}}
	h := &sim.History{Nodes: 4, End: time.Minute, Faults: []sim.FaultSpan{
		{Kind: "clock-stall", Node: 1, From: secs(5), To: secs(6)},
		{Kind: "pause", Node: 2, From: secs(10), To: secs(11.5)}, {Kind: "answer-pause", Node: 2, From: secs(11.5), To: secs(13)},
		{Kind: "delete-lock", Node: -1, From: secs(20), To: secs(20)},
	}, Terms: []sim.Term{
		{Node: 0, Token: 1, Start: secs(1), End: secs(8)},
		{Node: 1, Token: 2, Start: secs(7), End: secs(9)}, // n1 after its stall, while n0 leads
	}}
	xs, _ := excuses(testProtocol, p, h)
	kinds := map[string]bool{}
	cut := false
	for _, e := range xs {
		kinds[e.Kind] = true
		if e.Node == 0 {
			cut = true
			if e.Kind != "vm-suspend" {
				t.Errorf("the excuse of n0's term, cut into by suspended n1, is of kind %q, want vm-suspend: %v", e.Kind, e)
			}
		}
	}
	if !cut {
		t.Errorf("no excuse of n0's term, which suspended n1 cut into: %v", xs)
	}
	for _, want := range []string{"vm-suspend", "pause", "clock-drift", "delete-lock"} {
		if !kinds[want] {
			t.Errorf("no excuse of kind %s among %v", want, xs)
		}
	}
	x := Excused{Excuses: []Excuse{{Kind: "pause"}, {Kind: "delete-lock"}, {Kind: "pause"}, {Fault: sim.FaultSpan{Kind: "restore"}}}}
	if got := x.FaultKinds(); got != "delete-lock+pause+restore" {
		t.Errorf("FaultKinds %q, want delete-lock+pause+restore (an excuse without a kind counted by its fault's)", got)
	}
}

// outcome is a judged run for the tallies: its departures from the
// assumptions, its counted violations and its excused ones, each excused
// by the fault kinds given.
func outcome(v Verdict, outside bool, counted []string, excused map[string][]string) *Outcome {
	o := &Outcome{Verdict: v}
	if outside {
		o.Outside = []string{"a fault"}
	}
	for _, c := range counted {
		o.Violations = append(o.Violations, linearizability.Violation{Checker: c})
	}
	for c, kinds := range excused {
		x := Excused{Violation: linearizability.Violation{Checker: c}}
		for _, k := range kinds {
			x.Excuses = append(x.Excuses, Excuse{Kind: k})
		}
		o.Excused = append(o.Excused, x)
	}
	return o
}

// TestJudgedTallies: a run set's tally counts the runs judged wholly
// inside the assumptions (not a crashed one), and per checker the
// violations judged, excused by kind of fault and counted; merged, two
// tallies add up; it reads back from JSON as it was.
func TestJudgedTallies(t *testing.T) {
	var j Judged
	for _, o := range []*Outcome{
		outcome(Pass, false, nil, nil),
		outcome(Crashed, false, nil, nil),
		outcome(Pass, true, nil, map[string][]string{"overlap": {"vm-suspend"}, "fencing": {"delete-lock"}}),
		outcome(Pass, true, nil, map[string][]string{"overlap": {"vm-suspend", "delete-lock"}}),
		outcome(Unsafe, true, []string{"overlap"}, map[string][]string{"overlap": {"vm-suspend"}}),
	} {
		j.Add(o)
	}
	want := Judged{Inside: 1, Checkers: []CheckerJudged{
		{Checker: "fencing", Judged: 1, Excused: 1, ByFault: []FaultCount{{"delete-lock", 1}}},
		{Checker: "overlap", Judged: 4, Excused: 3, ByFault: []FaultCount{{"delete-lock+vm-suspend", 1}, {"vm-suspend", 2}}},
	}}
	if !reflect.DeepEqual(j, want) {
		t.Fatalf("tally %+v\nwant %+v", j, want)
	}
	j.Merge(&want)
	if j.Inside != 2 || j.Checkers[1].Judged != 8 || j.Checkers[1].Excused != 6 || j.Checkers[1].ByFault[1].Count != 4 || j.Excused() != 8 {
		t.Errorf("merged with itself: %+v", j)
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var back Judged
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, j) {
		t.Errorf("JSON %s reads back as %+v (%v)", b, back, err)
	}
}

// TestJudgedLines: the summary says how many runs were inside, one line
// per checker that judged a violation (or that none did), the kinds of
// fault that excused them (the four most, then the rest summed up), and
// the plain line only when more than half of the runs left the
// assumptions.
func TestJudgedLines(t *testing.T) {
	j := Judged{Inside: 5, Checkers: []CheckerJudged{
		{Checker: "overlap", Judged: 21, Excused: 20, ByFault: []FaultCount{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}, {"f", 5}}},
	}}
	lines := j.Lines(10, 5, "seeds")
	want := []string{
		"5 seeds (50.0%) judged wholly inside the protocol's assumptions, 5 outside them",
		"overlap: 21 judged, 20 excused (e 5, f 5, d 4, c 3, 2 other kinds 3), 1 counted",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("half outside:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	j.Inside = 4
	lines = j.Lines(10, 6, "seeds")
	if len(lines) != 3 || lines[1] != "most seeds (60.0%) ran outside the protocol's assumptions: a pass there means the fence held, not that leaders never overlapped" {
		t.Errorf("6 of 10 outside: no plain line saying so:\n%s", strings.Join(lines, "\n"))
	}
	if got := (&Judged{Inside: 1}).Lines(1, 0, "runs"); !reflect.DeepEqual(got, []string{"1 run (100.0%) judged wholly inside the protocol's assumptions, 0 outside them", "no violation judged, none excused"}) {
		t.Errorf("one run, no violation: %q", got)
	}
	unfenced := Judged{Unfenced: 3, Checkers: []CheckerJudged{{Checker: "overlap", Judged: 2, Excused: 2, ByFault: []FaultCount{{"pause", 2}}}}}
	lines = unfenced.Lines(3, 3, "seeds")
	if last := lines[len(lines)-1]; last != "2 overlaps of leaders outside the assumptions, excused; with no fencing token, each is two leaders acting at once" ||
		!strings.Contains(lines[1], "not that leaders never acted at once") {
		t.Errorf("no fencing tokens:\n%s", strings.Join(lines, "\n"))
	}
}
