package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
)

// ErrNothingToShrink is wrapped by Shrink's errors for a reproducer whose
// run does not fail, or fails otherwise than it expects.
var ErrNothingToShrink = errors.New("nothing to shrink")

// shrinkStep is the granularity of the run lengths Shrink tries.
const shrinkStep = 100 * time.Millisecond

// withinStream is the sub-stream that keeps or leaves out each part of the
// plan shrunk (faults.Within).
const withinStream = "within"

// Shrink minimises a failing reproducer of scenario sc, while the run
// still fails the same way: the same verdict and some of the same
// checkers, none new. It returns the smallest reproducer found and the
// number of runs it took.
//
// It shrinks the stream of choices the run is drawn from (faults.Shrink):
// the seed's own stream if sc draws the reproducer's plan from it
// (Scenario.Draw), and beside it a sub-stream that keeps or leaves out
// each part of the plan drawn (faults.Within), so that one event can go
// without its family; for a plan no stream drew (written by hand, by a
// guided campaign, by an earlier shrink) that sub-stream alone. It knows
// nothing of fault kinds. What the stream cannot express, where the run
// ends (known only once it has run), is kept apart: between rounds Shrink
// cuts the run (faults.Plan.Cut), an unsafe or crashed run or a retry
// storm to as soon after its first violation as it still fails alike,
// healing just before, a liveness failure by bringing the heal forward,
// then ending the run soon after the heal plus the liveness bound.
//
// It runs r once to learn the signature to keep (a run that passes, or
// shows another signature than r.Expect, is an error wrapping
// ErrNothingToShrink), then shrinks until a round makes no progress or
// budget runs are spent. The seed never changes. The result is a plan
// reproducer, which replays as it is: the plan written out, nodes and
// duration where they differ from the scenario's, the signature as its
// expectation.
func Shrink(sc Scenario, r *Reproducer, budget int) (*Reproducer, int, error) {
	return shrink(sc, r, nil, budget)
}

// shrink is Shrink of r, which sc draws from choices c (nil: the seed's
// own stream).
func shrink(sc Scenario, r *Reproducer, c *faults.Choices, budget int) (*Reproducer, int, error) {
	if budget < 1 {
		return nil, 0, fmt.Errorf("shrink: budget %d; it must be at least 1", budget)
	}
	s0, err := r.Setup(sc)
	if err != nil {
		return nil, 0, err
	}
	o, err := r.Run(sc, false)
	if err != nil {
		return nil, 1, err
	}
	sig := SignatureOf(o)
	switch {
	case o.Verdict == Pass:
		return nil, 1, fmt.Errorf("%w: the run passes", ErrNothingToShrink)
	case r.Expect != nil && !r.Expect.Equal(sig):
		return nil, 1, fmt.Errorf("%w: the run shows %s, but the reproducer expects %s", ErrNothingToShrink, sig, r.Expect)
	}
	if s0.Plan == nil {
		s0.Plan = &faults.Plan{}
	}
	sh := &shrinker{sc: sc, target: sig, last: o, budget: budget, runs: 1, bound: s0.Protocol.LivenessBound,
		heal: s0.Plan.HealAt.D(), end: s0.Config.Duration, failed: map[string]bool{}}
	sh.start(r, s0, c)
	for sh.left() {
		var shrunk bool
		sh.choices, shrunk = faults.Shrink(sh.choices, sh.try, func() bool { return !sh.left() })
		if !sh.shorter() && !shrunk {
			break
		}
	}
	out, base := *sh.cur, sc.Build(r.Seed).Config
	out.Expect = &Signature{Verdict: sh.target.Verdict, Checkers: slices.Clone(sh.target.Checkers)}
	if out.Nodes == base.Nodes {
		out.Nodes = 0
	}
	if out.Duration.D() == base.Duration && out.Plan.HealAt < out.Duration {
		out.Duration = 0
	}
	out.normalize()
	return &out, sh.runs, nil
}

// shrinker is the state of one Shrink.
type shrinker struct {
	sc               Scenario
	target           Signature
	budget, runs     int
	bound, heal, end time.Duration // the liveness bound; the cut of every run tried
	draw             func(*faults.Source) *Reproducer
	choices          *faults.Choices
	cur              *Reproducer     // the current run, drawn from choices
	curKey           string          // its JSON
	last             *Outcome        // its outcome
	failed           map[string]bool // the JSON of the runs that did not fail alike
}

func (sh *shrinker) left() bool { return sh.runs < sh.budget }

// start sets how runs are drawn, and the current choices and run to s0's,
// every part kept (faults.WithLargest): drawn by sc from c (or the seed's
// own stream) if that gives s0, else s0 as it is.
func (sh *shrinker) start(r *Reproducer, s0 Setup, c *faults.Choices) {
	seed, sc := r.Seed, sh.sc
	origin := func() *faults.Source {
		if c != nil {
			return faults.Replay(c, nil)
		}
		return faults.NewSource(seed)
	}
	base := func(src *faults.Source) Setup { return sc.Draw(seed, src) }
	if sc.Draw == nil || !sameRun(base(origin()), s0) {
		base = func(*faults.Source) Setup { return s0 }
	}
	sh.draw = func(src *faults.Source) *Reproducer {
		s := base(src)
		run := faults.Within(src.Sub(withinStream), s.Plan, s.Config.Nodes)
		return &Reproducer{Version: ReproVersion, Scenario: r.Scenario, Seed: seed, Nodes: run.Nodes, Duration: faults.Duration(s.Config.Duration), Plan: run.Plan,
			FailOutside: r.FailOutside}
	}
	src := faults.WithLargest(origin(), withinStream)
	sh.cur = sh.draw(src)
	sh.choices = src.Choices()
	key, _ := json.Marshal(sh.cur)
	sh.curKey = string(key)
}

// sameRun reports whether two setups have the same nodes, duration and
// plan.
func sameRun(a, b Setup) bool {
	x, errA := json.Marshal(a.Plan)
	y, errB := json.Marshal(b.Plan)
	return errA == nil && errB == nil && string(x) == string(y) && a.Config.Nodes == b.Config.Nodes && a.Config.Duration == b.Config.Duration
}

// drawn is the run choices c draw (every part kept past their end), cut
// to heal by heal and end by end, and the choices it read.
func (sh *shrinker) drawn(c *faults.Choices, heal, end time.Duration) (*Reproducer, *faults.Choices) {
	src := faults.Replay(c, faults.WithLargest(faults.Replay(&faults.Choices{}, nil), withinStream))
	r := sh.draw(src)
	r.Plan, r.Duration = r.Plan.Cut(heal), min(r.Duration, faults.Duration(end))
	return r, src.Choices()
}

// try runs the choices c if what they draw is smaller, and makes them
// current if the run fails alike.
func (sh *shrinker) try(c *faults.Choices) (*faults.Choices, bool) {
	r, got := sh.drawn(c, sh.heal, sh.end)
	if !got.Smaller(sh.choices) || !sh.run(r) {
		return got, false
	}
	sh.choices = got
	return got, true
}

// run runs c and, if it still fails with the signature, makes it current.
// A run the same as the current one (other choices often draw it, their
// families cut or left out) or one that did not fail alike is not run.
func (sh *shrinker) run(c *Reproducer) bool {
	b, err := json.Marshal(c)
	key := string(b)
	switch {
	case err != nil || sh.failed[key] || !sh.left():
		return false
	case key == sh.curKey:
		sh.cur = c
		return true
	}
	sh.failed[key] = true
	s, err := c.Setup(sh.sc)
	if err != nil {
		return false // not a valid run: costs nothing
	}
	sh.runs++
	o, err := RunSetup(s, false)
	if err != nil || !sameFailure(SignatureOf(o), sh.target) {
		return false
	}
	delete(sh.failed, key)
	o.Scenario, o.Seed = c.Scenario, c.Seed
	sh.cur, sh.curKey, sh.last, sh.target = c, key, o, SignatureOf(o)
	return true
}

// sameFailure reports whether a run with signature sig fails as one with
// target does: the same verdict, and checkers that are some of target's
// and none other (all of them when target names none).
func sameFailure(sig, target Signature) bool {
	if sig.Verdict != target.Verdict || len(sig.Checkers) == 0 && len(target.Checkers) > 0 {
		return false
	}
	for _, c := range sig.Checkers {
		if !slices.Contains(target.Checkers, c) {
			return false
		}
	}
	return true
}

// shorter cuts the run: an unsafe or crashed run, or a retry storm (a
// Liveness verdict that happens at an instant), to just after its first
// violation; a liveness failure by bringing the heal forward and ending
// soon after the heal plus the liveness bound.
func (sh *shrinker) shorter() bool {
	storm := func(v linearizability.Violation) bool { return v.Checker == linearizability.RateCheckName }
	if sh.target.Verdict == Liveness.String() && !slices.ContainsFunc(sh.last.Violations, storm) {
		phase := sh.end - sh.heal
		progress := sh.bisect(shrinkStep, sh.heal, func(h time.Duration) (time.Duration, time.Duration) { return h, h + phase })
		return sh.bisect(roundUp(sh.heal+sh.bound)+shrinkStep, sh.end, func(e time.Duration) (time.Duration, time.Duration) { return sh.heal, e }) || progress
	}
	by := sh.end
	if f := sh.last.Result.Failure; f != nil {
		by = f.At
	}
	for _, v := range sh.last.Violations {
		by = min(by, v.At)
	}
	return sh.bisect(roundUp(by)+shrinkStep, sh.end, func(e time.Duration) (time.Duration, time.Duration) { return min(sh.heal, e-shrinkStep), e })
}

// bisect looks for the smallest value in [lo, hi), in steps of
// shrinkStep, whose cut (heal and end) still fails alike, assuming hi
// does: lo first, then halving. It reports whether it found one, which is
// then the current cut.
func (sh *shrinker) bisect(lo, hi time.Duration, cut func(time.Duration) (heal, end time.Duration)) bool {
	try := func(v time.Duration) bool {
		heal, end := cut(v)
		if heal <= 0 || end <= heal {
			return false
		}
		if r, _ := sh.drawn(sh.choices, heal, end); !sh.run(r) {
			return false
		}
		sh.heal, sh.end = heal, end
		return true
	}
	if lo >= hi {
		return false
	}
	if try(lo) {
		return true
	}
	found := false
	for hi-lo > shrinkStep && sh.left() {
		mid := roundUp(lo + (hi-lo)/2)
		if mid >= hi {
			break
		}
		if try(mid) {
			hi, found = mid, true
		} else {
			lo = mid
		}
	}
	return found
}

// roundUp rounds d up to a whole shrinkStep.
func roundUp(d time.Duration) time.Duration {
	if r := d % shrinkStep; r != 0 {
		d += shrinkStep - r
	}
	return d
}
