package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// term is a closed term of node from a to b seconds with token.
func term(node int, token uint64, a, b float64) sim.Term {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	return sim.Term{Node: node, Identity: "n", Token: token, Start: s(a), End: s(b)}
}

func TestElectionModel(t *testing.T) {
	open := term(1, 3, 20, 30)
	open.Open = true
	for _, c := range []struct {
		name          string
		terms         []sim.Term
		strict, loose porcupine.CheckResult // inside the assumptions, outside them
	}{
		{"hand-overs", []sim.Term{term(0, 1, 0, 5), term(1, 2, 6, 9), term(0, 3, 9.5, 12)}, porcupine.Ok, porcupine.Ok},
		{"a hand-over at one instant", []sim.Term{term(0, 1, 0, 5), term(1, 2, 5, 9)}, porcupine.Ok, porcupine.Ok},
		{"an open term at the end", []sim.Term{term(0, 1, 0, 5), term(0, 2, 6, 19), open}, porcupine.Ok, porcupine.Ok},
		{"an overlap", []sim.Term{term(0, 1, 0, 5), term(1, 2, 4, 9)}, porcupine.Illegal, porcupine.Ok},
		{"an overlap with one token", []sim.Term{term(0, 1, 0, 5), term(1, 1, 4, 9)}, porcupine.Illegal, porcupine.Illegal},
		{"a token used twice", []sim.Term{term(0, 1, 0, 5), term(1, 1, 6, 9)}, porcupine.Illegal, porcupine.Illegal},
		{"a lower token", []sim.Term{term(0, 2, 0, 5), term(1, 1, 6, 9)}, porcupine.Illegal, porcupine.Illegal},
		{"an overlap, lower token second", []sim.Term{term(0, 2, 0, 5), term(1, 1, 4, 9)}, porcupine.Illegal, porcupine.Illegal},
		{"no tokens, hand-overs", []sim.Term{term(0, 0, 0, 5), term(1, 0, 6, 9)}, porcupine.Ok, porcupine.Ok},
		{"no tokens, an overlap", []sim.Term{term(0, 0, 0, 5), term(1, 0, 4, 9)}, porcupine.Illegal, porcupine.Ok},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &sim.History{Nodes: 2, End: 30 * time.Second, Terms: c.terms}
			for _, outside := range []bool{false, true} {
				want := c.strict
				if outside {
					want = c.loose
				}
				r := checkElection(h, outside, time.Minute)
				if r.Result != want {
					t.Errorf("outside the assumptions %v: %s, want %s", outside, r.Result, want)
				}
				var buf bytes.Buffer
				if err := r.visualize(&buf); err != nil || !strings.Contains(buf.String(), "render(data)") {
					t.Errorf("no visualisation: %v", err)
				}
			}
		})
	}
}

// The page draws the election history of every run with terms: illegal
// for the naive lock's overlaps, legal for the reference run.
func TestElectionView(t *testing.T) {
	unsafe, _ := failingPage(t)
	reference := findRun(t, "reference", 1, 20, true, func(o *harness.Outcome) bool { return o.Verdict == harness.Pass })
	for _, c := range []struct {
		o    *harness.Outcome
		want porcupine.CheckResult
	}{{unsafe, porcupine.Illegal}, {reference, porcupine.Ok}} {
		if r := checkElection(c.o.Result.History, len(c.o.Outside) > 0, time.Minute); r.Result != c.want || r.Terms != len(c.o.Result.History.Terms) {
			t.Errorf("%s seed %d: the election history is %s (%d terms), want %s", c.o.Scenario, c.o.Seed, r.Result, r.Terms, c.want)
		}
		v := electionView(c.o)
		if v.Error != "" || !strings.Contains(v.Doc, "render(data)") {
			t.Errorf("%s seed %d: no view of the election history: %s", c.o.Scenario, c.o.Seed, v.Error)
		}
	}
	// A run in which no one led has none.
	none := *reference
	res := *reference.Result
	res.History = &sim.History{Nodes: 3, End: time.Minute}
	none.Result = &res
	if v := electionView(&none); v.Doc != "" || v.Error == "" {
		t.Errorf("a run without terms has an election history")
	}
}

// The view's caption counts the terms in words that fit one, two and many.
func TestElectionViewCounts(t *testing.T) {
	reference := findRun(t, "reference", 1, 20, true, func(o *harness.Outcome) bool { return o.Verdict == harness.Pass })
	for _, c := range []struct {
		terms []sim.Term
		want  string
	}{
		{[]sim.Term{term(0, 1, 0, 5)}, "checked the one leadership term against a register of the leader, which demands at most one leader at a time, and each new leader's token higher than every token before it, and found it Ok"},
		{[]sim.Term{term(0, 1, 0, 5), term(1, 2, 6, 9)}, "checked the 2 leadership terms against a register of the leader, which demands at most one leader at a time, and each new leader's token higher than every token before it, and found them Ok"},
		{[]sim.Term{term(0, 1, 0, 5), term(1, 2, 4, 9), term(2, 3, 10, 12)}, "checked the 3 leadership terms against a register of the leader, which demands at most one leader at a time, and each new leader's token higher than every token before it, and found them Illegal"},
	} {
		o := *reference
		res := *reference.Result
		res.History = &sim.History{Nodes: 3, End: time.Minute, Terms: c.terms}
		o.Result = &res
		if v := electionView(&o); !strings.Contains(v.Caption, c.want) || v.Doc == "" {
			t.Errorf("%d terms: the caption reads %q, want it to say %q", len(c.terms), v.Caption, c.want)
		}
	}
}
