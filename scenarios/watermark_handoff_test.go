package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// runWatermark runs seeds of the watermark story (the sweep's window if
// one is set), returning each run with the run's entries and records.
func runWatermark(t *testing.T, ignore bool, n uint64) ([]*run, []*watermarkRun) {
	t.Helper()
	name := WatermarkHandoff.Name
	if ignore {
		name = WatermarkIgnored.Name
	}
	var rs []*run
	var wrs []*watermarkRun
	first, last := seedRange(n)
	for seed := first; seed <= last; seed++ {
		setup, wr := watermarkSetupRun(seed, ignore)
		o, err := harness.RunSetup(setup, true)
		if err != nil {
			t.Fatalf("%s seed %d: %v", name, seed, err)
		}
		o.Scenario, o.Seed = name, seed
		rs, wrs = append(rs, &run{Outcome: o, t: t}), append(wrs, wr)
	}
	return rs, wrs
}

// handOvers finds the story's two hand-overs in a run: the term that began
// just after the stop at 8 s (the leader released), and the first that
// began after the crash at 18 s (a lease after the restart). It checks the
// faults are in the trace as planned: three stops, three crashes (a
// restart also ends a stopped process: those of the crash at 18 s count)
// and three wall-clock steps.
func (r *run) handOvers() (afterRelease, afterCrash sim.Term, ok bool) {
	r.t.Helper()
	stops, steps := r.events(sim.EvStop, anyNode), r.faults(sim.FaultClockJump)
	crashes := filter(r.events(sim.EvCrash, anyNode), func(c sim.Event) bool { return c.At >= 18*time.Second })
	if len(stops) != 3 || len(crashes) != 3 || len(steps) != 3 {
		r.errorf("%d stops, %d crashes, %d wall-clock steps in the trace; want 3 of each", len(stops), len(crashes), len(steps))
		return
	}
	terms := r.Result.History.Terms
	afterRelease, releaseFound := first(terms, func(t sim.Term) bool { return t.Start > stops[0].At })
	afterCrash, crashFound := first(terms, func(t sim.Term) bool { return t.Start > crashes[0].At })
	if !releaseFound || !crashFound {
		r.errorf("the two hand-overs did not both happen: %+v", terms)
	}
	return afterRelease, afterCrash, releaseFound && crashFound
}

// TestWatermarkHandoff: on every seed both hand-overs happen (the release
// is taken at once, the crashed holder's record after a lease), every term
// writes entries, and the watermark checker finds nothing: each new
// holder's entries are above what its predecessors published. After the
// crash, the new holder's wall clock (stepped back 10 s) reads below the
// watermark it was handed, and its entries are stamped above the
// watermark all the same.
func TestWatermarkHandoff(t *testing.T) {
	s := elector.DefaultSettings
	rs, wrs := runWatermark(t, false, 30)
	for i, r := range rs {
		r.survives()
		rel, crash, ok := r.handOvers()
		if !ok {
			continue
		}
		if rel.Start > 8500*time.Millisecond+2*s.RetryPeriod {
			r.errorf("the released lease was taken at %v, not at once after the restart at 8.5s", rel.Start)
		}
		if crash.Start < 18500*time.Millisecond+s.LeaseDuration*999/1000 {
			r.errorf("the crashed holder's lease was taken at %v, before a lease after the restart", crash.Start)
		}
		wh := wrs[i].history(r.Result.History)
		for _, term := range []sim.Term{rel, crash} {
			handed := time.Time{}
			for _, p := range wh.Publications {
				if p.Token < term.Token && p.Watermark.After(handed) {
					handed = p.Watermark
				}
			}
			es := filter(wrs[i].entries, func(e watermarkEntry) bool { return e.Token == term.Token })
			switch {
			case handed.IsZero() || len(es) == 0:
				r.errorf("n%d (token %d) was handed %v and wrote %d entries", term.Node, term.Token, handed, len(es))
			case !es[0].Stamp.After(handed):
				r.errorf("n%d's first entry %v is not above the watermark %v", term.Node, es[0].Stamp, handed)
			case term == crash && !es[0].Wall.Before(handed):
				r.errorf("after the step, n%d's clock read %v, not below the watermark %v it was handed", term.Node, es[0].Wall, handed)
			}
		}
	}
}

// TestWatermarkIgnored: the broken application, which ignores the
// watermark it is handed, is caught on every seed, at both hand-overs: at
// the release (its clock is behind the watermark published ahead) and
// after the crash (its clock stepped back).
func TestWatermarkIgnored(t *testing.T) {
	rs, _ := runWatermark(t, true, 30)
	for _, r := range rs {
		rel, crash, ok := r.handOvers()
		if !ok {
			continue
		}
		caught := map[uint64]bool{}
		for _, v := range r.Violations {
			if v.Checker == linearizability.WatermarkChecker && v.Rule == linearizability.RuleBelowPredecessor {
				caught[v.Token] = true
			}
		}
		if r.Verdict != harness.Unsafe || !caught[rel.Token] || !caught[crash.Token] {
			r.errorf("verdict %v, violations %v; want the entries of tokens %d and %d caught below their predecessors' watermark",
				r.Verdict, r.Violations, rel.Token, crash.Token)
		}
	}
}
