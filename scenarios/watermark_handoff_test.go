package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// runWatermark runs seeds of the watermark story (the sweep's window if
// one is set), returning each outcome with the run's entries and records.
func runWatermark(t *testing.T, ignore bool, n uint64) ([]*harness.Outcome, []*watermarkRun) {
	t.Helper()
	first := *sweepFirst
	if *sweepSeeds > 0 {
		n = *sweepSeeds
	}
	name := WatermarkHandoff.Name
	if ignore {
		name = WatermarkIgnored.Name
	}
	var outs []*harness.Outcome
	var runs []*watermarkRun
	for seed := first; seed < first+n; seed++ {
		setup, run := watermarkSetupRun(seed, ignore)
		o, err := harness.RunSetup(setup, true)
		if err != nil {
			t.Fatalf("%s seed %d: %v", name, seed, err)
		}
		o.Scenario, o.Seed = name, seed
		outs, runs = append(outs, o), append(runs, run)
	}
	return outs, runs
}

// handOvers finds the story's two hand-overs in a run: the term that began
// just after the stop at 8 s (the leader released), and the first that
// began after the crash at 18 s (a lease after the restart). It checks the
// faults are in the trace as planned.
func handOvers(t *testing.T, o *harness.Outcome) (afterRelease, afterCrash sim.Term, ok bool) {
	t.Helper()
	stops, steps := events(o, sim.EvStop, anyNode), faultEvents(o, sim.FaultClockJump)
	var crashes []sim.Event // a restart also ends a stopped process: count those of the crash at 18 s
	for _, c := range events(o, sim.EvCrash, anyNode) {
		if c.At >= 18*time.Second {
			crashes = append(crashes, c)
		}
	}
	if len(stops) != 3 || len(crashes) != 3 || len(steps) != 3 {
		t.Errorf("seed %d: %d stops, %d crashes, %d wall-clock steps in the trace; want 3 of each", o.Seed, len(stops), len(crashes), len(steps))
		return
	}
	var releaseFound, crashFound bool
	for _, term := range o.Result.History.Terms {
		switch {
		case !releaseFound && term.Start > stops[0].At:
			afterRelease, releaseFound = term, true
		case !crashFound && term.Start > crashes[0].At:
			afterCrash, crashFound = term, true
		}
	}
	return afterRelease, afterCrash, releaseFound && crashFound
}

// entriesOf returns the entries written under token.
func entriesOf(run *watermarkRun, token uint64) []watermarkEntry {
	var out []watermarkEntry
	for _, e := range run.entries {
		if e.Token == token {
			out = append(out, e)
		}
	}
	return out
}

// TestWatermarkHandoff: on every seed both hand-overs happen (the release
// is taken at once, the crashed holder's record after a lease), every term
// writes entries, and the watermark checker finds nothing: each new
// holder's entries are above what its predecessors published. After the
// crash, the new holder's wall clock (stepped back 10 s) reads below the
// watermark it was handed, and its entries are stamped above the
// watermark all the same.
func TestWatermarkHandoff(t *testing.T) {
	s := harness.DefaultElectorSettings
	outs, runs := runWatermark(t, false, 30)
	for i, o := range outs {
		run := runs[i]
		checkSurvives(t, o)
		for _, v := range o.Violations {
			t.Errorf("seed %d: %v", o.Seed, v)
		}
		rel, crash, ok := handOvers(t, o)
		if !ok {
			t.Errorf("seed %d: the two hand-overs did not both happen: %+v", o.Seed, o.Result.History.Terms)
			continue
		}
		if rel.Start > 8500*time.Millisecond+2*s.RetryPeriod {
			t.Errorf("seed %d: the released lease was taken at %v, not at once after the restart at 8.5s", o.Seed, rel.Start)
		}
		if crash.Start < 18500*time.Millisecond+s.LeaseDuration*999/1000 {
			t.Errorf("seed %d: the crashed holder's lease was taken at %v, before a lease after the restart", o.Seed, crash.Start)
		}
		wh := run.history(o.Result.History)
		for _, term := range []sim.Term{rel, crash} {
			handed := time.Time{}
			for _, p := range wh.Publications {
				if p.Token < term.Token && p.Watermark.After(handed) {
					handed = p.Watermark
				}
			}
			es := entriesOf(run, term.Token)
			if handed.IsZero() || len(es) == 0 {
				t.Errorf("seed %d: n%d (token %d) was handed %v and wrote %d entries", o.Seed, term.Node, term.Token, handed, len(es))
				continue
			}
			if !es[0].Stamp.After(handed) {
				t.Errorf("seed %d: n%d's first entry %v is not above the watermark %v", o.Seed, term.Node, es[0].Stamp, handed)
			}
			if term == crash && !es[0].Wall.Before(handed) {
				t.Errorf("seed %d: after the step, n%d's clock read %v, not below the watermark %v it was handed", o.Seed, term.Node, es[0].Wall, handed)
			}
		}
	}
}

// TestWatermarkIgnored: the broken application, which ignores the
// watermark it is handed, is caught on every seed, at both hand-overs: at
// the release (its clock is behind the watermark published ahead) and
// after the crash (its clock stepped back).
func TestWatermarkIgnored(t *testing.T) {
	outs, _ := runWatermark(t, true, 30)
	for _, o := range outs {
		rel, crash, ok := handOvers(t, o)
		if !ok {
			t.Errorf("seed %d: the two hand-overs did not both happen", o.Seed)
			continue
		}
		caught := map[uint64]bool{}
		for _, v := range o.Violations {
			if v.Checker == linearizability.WatermarkChecker && v.Rule == linearizability.RuleBelowPredecessor {
				caught[v.Token] = true
			}
		}
		if o.Verdict != harness.Unsafe || !caught[rel.Token] || !caught[crash.Token] {
			t.Errorf("seed %d: verdict %v, violations %v; want the entries of tokens %d and %d caught below their predecessors' watermark",
				o.Seed, o.Verdict, o.Violations, rel.Token, crash.Token)
		}
	}
}
