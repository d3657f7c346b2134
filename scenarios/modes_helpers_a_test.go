package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// modeARun runs seeds 1..n of sc with the trace kept and fails the test on
// an error or a crashed run.
func modeARun(t *testing.T, sc Scenario, n uint64) []*Outcome {
	t.Helper()
	outs := make([]*Outcome, 0, n)
	for seed := uint64(1); seed <= n; seed++ {
		o, err := RunSeed(sc, seed, true)
		if err != nil {
			t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
		}
		if o.Verdict == Crashed {
			t.Fatalf("%s seed %d crashed: %v", sc.Name, seed, o.Result.Failure)
		}
		outs = append(outs, o)
	}
	return outs
}

// modeASurvives asserts the Survives expectation: every seed passes, inside
// the protocol's assumptions.
func modeASurvives(t *testing.T, outs []*Outcome) {
	t.Helper()
	for _, o := range outs {
		if len(o.Outside) > 0 {
			t.Errorf("%s seed %d: plan leaves the assumptions: %v", o.Scenario, o.Seed, o.Outside)
		}
		if o.Verdict != Pass {
			t.Errorf("%s seed %d: verdict %v: %v (replay: go run ./cmd/simrun replay -scenario %s -seed %d)",
				o.Scenario, o.Seed, o.Verdict, o.Violations, o.Scenario, o.Seed)
		}
	}
}

// modeAOutsideButPass asserts that every seed leaves the assumptions and
// still passes: no stale write accepted, a leader once faults healed.
func modeAOutsideButPass(t *testing.T, outs []*Outcome) {
	t.Helper()
	for _, o := range outs {
		if len(o.Outside) == 0 {
			t.Errorf("%s seed %d: plan stays inside the assumptions", o.Scenario, o.Seed)
		}
		if o.Verdict != Pass {
			t.Errorf("%s seed %d: verdict %v: %v (replay: go run ./cmd/simrun replay -scenario %s -seed %d)",
				o.Scenario, o.Seed, o.Verdict, o.Violations, o.Scenario, o.Seed)
		}
	}
}

// modeAFenced asserts the Fenced expectation: every seed is outside the
// assumptions and passes, and across the seeds two leaders overlapped and
// the fence refused at least one write.
func modeAFenced(t *testing.T, outs []*Outcome) {
	t.Helper()
	modeAOutsideButPass(t, outs)
	overlaps, refused := 0, 0
	for _, o := range outs {
		if modeAOverlapped(o) {
			overlaps++
		}
		refused += len(modeARefused(o))
	}
	if overlaps == 0 {
		t.Errorf("no seed of %d shows two leaders overlapping: the fault had no effect", len(outs))
	}
	if refused == 0 {
		t.Errorf("no seed of %d has a fenced write refused: fencing did no work", len(outs))
	}
	t.Logf("%d of %d seeds overlap; %d stale writes refused", overlaps, len(outs), refused)
}

// modeAOverlapped reports whether two leaders overlapped in o.
func modeAOverlapped(o *Outcome) bool {
	if len(o.Overlaps) > 0 {
		return true
	}
	for _, v := range o.Expected {
		if v.Checker == "overlap" {
			return true
		}
	}
	return false
}

// modeARefused returns the fenced writes of o that the resource refused.
func modeARefused(o *Outcome) []sim.FencedWrite {
	var out []sim.FencedWrite
	for _, w := range o.Result.History.Writes {
		if !w.Accepted {
			out = append(out, w)
		}
	}
	return out
}

// modeAEvents returns the trace events of o of kind k on node (-1: any
// node, including S3).
func modeAEvents(o *Outcome, k sim.EventKind, node int) []sim.Event {
	var out []sim.Event
	for _, e := range o.Result.Trace.Events {
		if e.Kind == k && (node < 0 || e.Node == node) {
			out = append(out, e)
		}
	}
	return out
}

// modeAFaults returns the fault notes of o whose detail contains text.
func modeAFaults(o *Outcome, text string) []sim.Event {
	var out []sim.Event
	for _, e := range modeAEvents(o, sim.EvFault, -1) {
		if strings.Contains(e.Detail, text) {
			out = append(out, e)
		}
	}
	return out
}

// modeAByCall returns the first event of kind k for S3 or fence call id,
// and whether there is one.
func modeAByCall(o *Outcome, k sim.EventKind, id uint64) (sim.Event, bool) {
	for _, e := range o.Result.Trace.Events {
		if e.Kind == k && e.Call == id {
			return e, true
		}
	}
	return sim.Event{}, false
}

// modeATermAt returns the term of node that is running at true time at
// (Start <= at < End, or open), and whether there is one.
func modeATermAt(o *Outcome, node int, at time.Duration) (sim.Term, bool) {
	for _, term := range o.Result.History.Terms {
		if term.Node == node && term.Start <= at && (term.Open || at < term.End) {
			return term, true
		}
	}
	return sim.Term{}, false
}

// modeAPauseEnd returns when the pause that EvPause event e began ends.
func modeAPauseEnd(t *testing.T, e sim.Event) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(strings.TrimPrefix(e.Detail, "for "))
	if err != nil {
		t.Fatalf("pause event %v: %v", e, err)
	}
	return e.At + d
}

// modeAPausesHealed asserts that every pause of o ended before its plan's
// HealAt: the liveness phase is fault-free.
func modeAPausesHealed(t *testing.T, o *Outcome) {
	t.Helper()
	heal := o.Plan.HealAt.D()
	for _, e := range modeAEvents(o, sim.EvPause, -1) {
		if end := modeAPauseEnd(t, e); end > heal {
			t.Errorf("%s seed %d: n%d paused until %v, after healAt %v", o.Scenario, o.Seed, e.Node, end, heal)
		}
	}
}
