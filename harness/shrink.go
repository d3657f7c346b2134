package harness

import (
	"bytes"
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

// Shrink minimises a failing reproducer of scenario sc, while the run
// still fails the same way: with the same verdict and some of the same
// checkers, none new (a smaller run may drop a symptom that came with the
// failure, such as a superseded write beside an overlap, but never show
// another). It returns the smallest reproducer found and the number of
// runs it took.
//
// It shrinks the run's stream of choices, as rapid and Hypothesis do
// (faults.Shrink: families left out, elements deleted, choices lowered),
// re-running each smaller stream: the stream sc draws the reproducer's
// run from (Scenario.Draw, when the reproducer's plan is the one the
// seed's own stream draws), or else, for a plan no stream drew (written
// by hand, by a guided campaign, by an earlier shrink), the choices that
// keep or leave out each part of it (faults.Within). Shrinking knows
// nothing of fault kinds: it shrinks whatever the generator draws.
//
// One thing the stream cannot express is kept apart: where the run ends.
// The instant a failure shows is known only once the run has run, so
// between rounds Shrink cuts the run (faults.Plan.Cut): an unsafe or
// crashed run, or a retry storm, to as soon after its first violation as
// it still fails alike, healing just before; a liveness failure by bringing the heal forward, then
// ending the run soon after the heal plus the protocol's liveness bound,
// so that liveness is still judged. Every run it tries from then on is
// cut alike.
//
// It runs r once to learn the signature to keep (a run that passes, or
// shows another signature than r.Expect, is an error wrapping
// ErrNothingToShrink), then shrinks until a round makes no progress or
// budget runs are spent. The seed never changes. The result has the whole
// plan written out, nodes and duration only where they differ from the
// scenario's, and the signature as its expectation: a plan reproducer,
// which replays as it is.
func Shrink(sc Scenario, r *Reproducer, budget int) (*Reproducer, int, error) {
	return shrink(sc, r, nil, budget)
}

// shrink is Shrink of r, drawn by sc from choices c (nil: the seed's own
// stream, if r's plan is its draw).
func shrink(sc Scenario, r *Reproducer, c *faults.Choices, budget int) (*Reproducer, int, error) {
	if budget < 1 {
		return nil, 0, fmt.Errorf("shrink: budget %d; it must be at least 1", budget)
	}
	s0, err := r.Setup(sc)
	if err != nil {
		return nil, 0, err
	}
	base := sc.Build(r.Seed).Config
	sh := &shrinker{sc: sc, budget: budget, bound: s0.Protocol.LivenessBound, failed: map[string]bool{}}
	o, err := r.Run(sc, false)
	sh.runs++
	if err != nil {
		return nil, sh.runs, err
	}
	sh.target, sh.last = SignatureOf(o), o
	switch {
	case o.Verdict == Pass:
		return nil, sh.runs, fmt.Errorf("%w: the run passes", ErrNothingToShrink)
	case r.Expect != nil && !r.Expect.Equal(sh.target):
		return nil, sh.runs, fmt.Errorf("%w: the run shows %s, but the reproducer expects %s", ErrNothingToShrink, sh.target, r.Expect)
	}
	if s0.Plan == nil {
		s0.Plan = &faults.Plan{}
	}
	sh.cur = &Reproducer{Version: ReproVersion, Scenario: r.Scenario, Seed: r.Seed, Nodes: s0.Config.Nodes,
		Duration: faults.Duration(s0.Config.Duration), Plan: s0.Plan}
	sh.heal, sh.end = s0.Plan.HealAt.D(), s0.Config.Duration
	sh.choices = sh.stream(s0, c)
	if key, err := json.Marshal(sh.cur); err == nil {
		sh.curKey = string(key)
	}
	if sh.choices == nil {
		sh.within()
	}
	for sh.left() {
		var shrunk bool
		sh.choices, shrunk = faults.Shrink(sh.choices, sh.try, func() bool { return !sh.left() })
		if progress := sh.shorter(); !progress && !shrunk {
			break
		}
	}
	out := sh.cur.clone()
	out.Expect = &Signature{Verdict: sh.target.Verdict, Checkers: slices.Clone(sh.target.Checkers)}
	if out.Nodes == base.Nodes {
		out.Nodes = 0
	}
	if out.Duration.D() == base.Duration && out.Plan.HealAt < out.Duration {
		out.Duration = 0
	}
	out.normalize()
	return out, sh.runs, nil
}

// shrinker is the state of one Shrink.
type shrinker struct {
	sc           Scenario
	target       Signature
	budget, runs int
	bound        time.Duration // the protocol's liveness bound
	// draw draws a run from a stream of choices; choices are the current
	// run's; fallback answers the choices past their end (nil: 0).
	draw     func(*faults.Source) *Reproducer
	choices  *faults.Choices
	fallback *faults.Source
	// heal and end cut every run tried: it heals by heal and ends by end.
	heal, end time.Duration
	// cur is the smallest failing reproducer so far, with an explicit
	// plan, nodes and duration, curKey its JSON; last is its outcome.
	// failed holds the JSON of the runs tried that did not fail alike.
	cur    *Reproducer
	curKey string
	last   *Outcome
	failed map[string]bool
}

func (sh *shrinker) left() bool { return sh.runs < sh.budget }

// stream sets how runs are drawn from choices if sc draws s0 from c (nil:
// the seed's own stream), and returns those choices; else nil. Beside
// the seed's stream is a sub-stream that keeps or leaves out each part of
// the plan drawn (faults.Within, every part kept where it has no choice),
// so that shrinking can leave out one event of a family without drawing
// the family anew.
func (sh *shrinker) stream(s0 Setup, c *faults.Choices) *faults.Choices {
	seed, sc := sh.cur.Seed, sh.sc
	if sc.Draw == nil {
		return nil
	}
	src := faults.NewSource(seed)
	if c != nil {
		src = faults.Replay(c, nil)
	}
	if d := sc.Draw(seed, src); d.Config.Nodes != s0.Config.Nodes || d.Config.Duration != s0.Config.Duration || !samePlan(d.Plan, s0.Plan) {
		return nil
	}
	sh.draw = func(src *faults.Source) *Reproducer {
		d := sc.Draw(seed, src)
		run := faults.Within(src.Sub(withinStream), d.Plan, d.Config.Nodes)
		return sh.rep(run.Nodes, d.Config.Duration, run.Plan)
	}
	sh.fallback = faults.WithLargest(faults.Replay(&faults.Choices{}, nil), withinStream)
	src = faults.WithLargest(faults.NewSource(seed), withinStream)
	if c != nil {
		src = faults.WithLargest(faults.Replay(c, nil), withinStream)
	}
	sh.draw(src)
	return src.Choices()
}

// withinStream is the sub-stream of a seed's stream that keeps or leaves
// out each part of the plan drawn, when it is shrunk.
const withinStream = "within"

// within sets runs to be drawn as parts of the current run's plan
// (faults.Within), and the choices to those that keep every part.
func (sh *shrinker) within() {
	plan, nodes, d := sh.cur.Plan, sh.cur.Nodes, sh.cur.Duration.D()
	sh.draw = func(src *faults.Source) *Reproducer {
		run := faults.Within(src, plan, nodes)
		return sh.rep(run.Nodes, d, run.Plan)
	}
	src := faults.Largest()
	sh.draw(src)
	sh.choices = src.Choices()
}

// rep is a run of the reproducer's scenario and seed.
func (sh *shrinker) rep(nodes int, d time.Duration, p *faults.Plan) *Reproducer {
	return &Reproducer{Version: ReproVersion, Scenario: sh.cur.Scenario, Seed: sh.cur.Seed, Nodes: nodes, Duration: faults.Duration(d), Plan: p}
}

// samePlan reports whether two plans are the same.
func samePlan(a, b *faults.Plan) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// drawn is the run choices c draw, cut as every run tried is, and the
// choices it read.
func (sh *shrinker) drawn(c *faults.Choices, heal, end time.Duration) (*Reproducer, *faults.Choices) {
	src := faults.Replay(c, sh.fallback)
	r := sh.draw(src)
	r.Plan = r.Plan.Cut(heal)
	r.Duration = min(r.Duration, faults.Duration(end))
	return r, src.Choices()
}

// try runs the choices c, if what they draw is smaller than the current
// choices, and makes them current if the run fails alike.
func (sh *shrinker) try(c *faults.Choices) (*faults.Choices, bool) {
	r, got := sh.drawn(c, sh.heal, sh.end)
	if !got.Smaller(sh.choices) || !sh.run(r) {
		return got, false
	}
	sh.choices = got
	return got, true
}

// run runs c and, if it still fails with the signature, makes it current.
// A run the same as the current one is not run again (other choices often
// draw the same run, their families cut or left out), nor one that
// already did not fail alike.
func (sh *shrinker) run(c *Reproducer) bool {
	key, err := json.Marshal(c)
	switch {
	case err != nil || sh.failed[string(key)] || !sh.left():
		return false
	case string(key) == sh.curKey:
		sh.cur = c
		return true
	}
	s, err := c.Setup(sh.sc)
	if err != nil {
		sh.failed[string(key)] = true
		return false // not a valid run: costs nothing
	}
	sh.runs++
	o, err := RunSetup(s, false)
	if err != nil {
		sh.failed[string(key)] = true
		return false
	}
	sig := SignatureOf(o)
	if !sameFailure(sig, sh.target) {
		sh.failed[string(key)] = true
		return false
	}
	o.Scenario, o.Seed = c.Scenario, c.Seed
	sh.cur, sh.curKey, sh.last, sh.target = c, string(key), o, sig
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

func (r *Reproducer) clone() *Reproducer {
	c := *r
	c.Plan = clonePlan(r.Plan)
	if r.Expect != nil {
		e := *r.Expect
		e.Checkers = slices.Clone(r.Expect.Checkers)
		c.Expect = &e
	}
	return &c
}

// isRateViolation reports whether v is a retry storm's (request-rate), which
// is judged Liveness but happens at an instant, as a safety violation does.
func isRateViolation(v linearizability.Violation) bool {
	return v.Checker == linearizability.RateCheckName
}

// shorter cuts the run: an unsafe or crashed run, or a retry storm, to
// just after what decided it; a liveness failure by bringing the heal
// forward and ending soon after the heal plus the liveness bound.
func (sh *shrinker) shorter() bool {
	if sh.target.Verdict == Liveness.String() && !slices.ContainsFunc(sh.last.Violations, isRateViolation) {
		phase := sh.end - sh.heal
		progress := sh.bisect(shrinkStep, sh.heal, func(h time.Duration) (time.Duration, time.Duration) { return h, h + phase })
		return sh.bisect(roundUp(sh.heal+sh.bound)+shrinkStep, sh.end, func(e time.Duration) (time.Duration, time.Duration) { return sh.heal, e }) || progress
	}
	// The instant by which the failure first shows: its first violation,
	// or the failure itself. A run cut shortly after may show fewer of the
	// checkers than the whole run, which is still the same failure.
	by := sh.end
	if f := sh.last.Result.Failure; f != nil {
		by = f.At
	}
	for _, v := range sh.last.Violations {
		by = min(by, v.At)
	}
	return sh.bisect(roundUp(by)+shrinkStep, sh.end, func(e time.Duration) (time.Duration, time.Duration) {
		return min(sh.heal, e-shrinkStep), e
	})
}

// bisect looks for the smallest value in [lo, hi), in steps of
// shrinkStep, whose cut (the heal and the end it gives) still fails
// alike, assuming hi does: it tries lo first, then halves the interval.
// It reports whether it found one, which is then the current cut.
func (sh *shrinker) bisect(lo, hi time.Duration, cut func(time.Duration) (heal, end time.Duration)) bool {
	try := func(v time.Duration) bool {
		heal, end := cut(v)
		if heal <= 0 || end <= heal {
			return false
		}
		r, _ := sh.drawn(sh.choices, heal, end)
		if !sh.run(r) {
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
