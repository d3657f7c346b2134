package comparison

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// Tolerance is how far apart the two sides' mean work per seed may be,
// relative to the simulator's: 5%. See SameWork and the package
// documentation for why.
const Tolerance = 0.05

// Work is what one run did, the figures that must agree between the two
// sides for their times to be comparable.
type Work struct {
	// S3Calls counts the S3 requests the electors sent, FencedWrites the
	// writes the fence judged and Terms the leadership terms begun, all
	// within the run's duration.
	S3Calls, FencedWrites, Terms int
}

// WorkOf counts the work recorded in h.
func WorkOf(h *sim.History) Work {
	return Work{S3Calls: len(h.S3), FencedWrites: len(h.Writes), Terms: len(h.Terms)}
}

// Side is one side's tally over the seeds it ran.
type Side struct {
	// Name is "sim" or "synctest".
	Name string
	// Seeds is how many runs were made, Elapsed the real time they took in
	// all: running, recording and judging each run.
	Seeds   int
	Elapsed time.Duration
	// Total sums the work of the runs.
	Total Work
}

// PerSeed is the mean real time of one run.
func (s Side) PerSeed() time.Duration {
	if s.Seeds == 0 {
		return 0
	}
	return s.Elapsed / time.Duration(s.Seeds)
}

// Mean returns the mean S3 calls, fenced writes and terms per run.
func (s Side) Mean() (s3Calls, fencedWrites, terms float64) {
	n := float64(max(s.Seeds, 1))
	return float64(s.Total.S3Calls) / n, float64(s.Total.FencedWrites) / n, float64(s.Total.Terms) / n
}

func (s *Side) add(w Work, d time.Duration) {
	s.Seeds++
	s.Elapsed += d
	s.Total.S3Calls += w.S3Calls
	s.Total.FencedWrites += w.FencedWrites
	s.Total.Terms += w.Terms
}

// Result is what Compare measured.
type Result struct {
	Sim, Synctest Side
}

// Ratio is the synctest side's time per seed over the simulator's: how
// many times faster the simulator ran the same work.
func (r Result) Ratio() float64 {
	return float64(r.Synctest.PerSeed()) / float64(r.Sim.PerSeed())
}

// String is the result in a few lines: time per seed and work per seed
// of each side, and the ratio.
func (r Result) String() string {
	var b strings.Builder
	for _, s := range []Side{r.Sim, r.Synctest} {
		c, w, t := s.Mean()
		fmt.Fprintf(&b, "%-8s %5d seeds  %9v per seed  %7.1f S3 calls  %6.1f fenced writes  %4.2f terms per seed\n",
			s.Name, s.Seeds, s.PerSeed().Round(time.Microsecond), c, w, t)
	}
	fmt.Fprintf(&b, "ratio (synctest / sim): %.2f", r.Ratio())
	return b.String()
}

// SameWork reports whether the two sides did the same work per seed: the
// mean S3 calls, fenced writes and terms of the synctest side each within
// tol (relative) of the simulator's. It returns an error naming every
// figure that is not.
func SameWork(r Result, tol float64) error {
	if r.Sim.Seeds == 0 || r.Synctest.Seeds == 0 {
		return errors.New("comparison: a side ran no seeds")
	}
	sc, sw, st := r.Sim.Mean()
	yc, yw, yt := r.Synctest.Mean()
	var errs []error
	for _, f := range []struct {
		name     string
		sim, syn float64
	}{{"S3 calls", sc, yc}, {"fenced writes", sw, yw}, {"terms", st, yt}} {
		if d := math.Abs(f.syn-f.sim) / math.Max(f.sim, 1); d > tol {
			errs = append(errs, fmt.Errorf("%s per seed: sim %.2f, synctest %.2f: %.1f%% apart, more than %.0f%%",
				f.name, f.sim, f.syn, 100*d, 100*tol))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("comparison: the two sides did different work: %w", errors.Join(errs...))
	}
	return nil
}

// RunSim runs the simulator's side for seed: w.SimSetup(seed) through
// harness.RunSetup, which runs it and judges it with every checker.
func RunSim(w Workload, seed uint64) (*harness.Outcome, error) {
	s, err := w.SimSetup(seed)
	if err != nil {
		return nil, err
	}
	return harness.RunSetup(s, false)
}

// Compare runs seeds 1 to seeds on each side, the simulator running
// simWL and the synctest bubble running syncWL, taking turns in batches of
// batch seeds (the simulator's batch first in even rounds, synctest's in
// odd ones) so that the machine's noise falls on both. Each run is judged
// with every checker (harness.RunSetup on one side, Judge on the other)
// and the time counted is that of running and judging. Before it starts
// timing, Compare runs seed 0 once on each side, uncounted, as a warm-up.
// It fails at the first run that is not judged Pass. t is the test whose
// synctest bubbles the synctest side runs in; Compare must not be called
// from a bubble.
func Compare(t *testing.T, simWL, syncWL Workload, seeds, batch int) (Result, error) {
	r := Result{Sim: Side{Name: "sim"}, Synctest: Side{Name: "synctest"}}
	if seeds < 1 || batch < 1 {
		return r, fmt.Errorf("comparison: seeds (%d) and batch (%d) must be at least 1", seeds, batch)
	}
	if _, err := simWL.SimSetup(1); err != nil {
		return r, err
	}
	p := syncWL.electorProtocol()
	simBatch := func(from, to uint64) error {
		for seed := from; seed < to; seed++ {
			start := time.Now()
			o, err := RunSim(simWL, seed)
			d := time.Since(start)
			if err != nil {
				return fmt.Errorf("sim, seed %d: %w", seed, err)
			}
			if o.Verdict != harness.Pass {
				return fmt.Errorf("sim, seed %d: verdict %v: %v %s", seed, o.Verdict, o.Violations, failureOf(o.Result))
			}
			r.Sim.add(WorkOf(o.Result.History), d)
		}
		return nil
	}
	syncBatch := func(from, to uint64) error {
		for seed := from; seed < to; seed++ {
			start := time.Now()
			h, err := RunSynctest(t, syncWL, seed)
			var j Judgement
			if err == nil {
				j = Judge(h, p)
			}
			d := time.Since(start)
			if err != nil {
				return fmt.Errorf("synctest, seed %d: %w", seed, err)
			}
			if j.Verdict != harness.Pass {
				return fmt.Errorf("synctest, seed %d: verdict %v: %v", seed, j.Verdict, j.Violations)
			}
			r.Synctest.add(WorkOf(h), d)
		}
		return nil
	}
	// One uncounted run of each side first, so that neither pays alone for
	// the process's warm-up (heap growth, first page faults).
	if _, err := RunSim(simWL, 0); err != nil {
		return r, err
	}
	if _, err := RunSynctest(t, syncWL, 0); err != nil {
		return r, err
	}
	for round, from := 0, 1; from <= seeds; round, from = round+1, from+batch {
		to := uint64(min(from+batch, seeds+1))
		first, second := simBatch, syncBatch
		if round%2 == 1 {
			first, second = second, first
		}
		if err := first(uint64(from), to); err != nil {
			return r, err
		}
		if err := second(uint64(from), to); err != nil {
			return r, err
		}
	}
	return r, nil
}

// failureOf describes a simulated run that stopped abnormally.
func failureOf(r *sim.Result) string {
	if r == nil || r.Failure == nil {
		return ""
	}
	return fmt.Sprintf("(%v)", r.Failure)
}
