package harness

import (
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

// shrinkStep is the granularity of the durations Shrink tries.
const shrinkStep = 100 * time.Millisecond

// Shrink minimises a failing reproducer of scenario sc: fewer plan events, fewer nodes, a
// shorter run, fewer knobs, while the run still fails the same way: with
// the same verdict and some of the same checkers, none new (a smaller run
// may drop a symptom that came with the failure, such as a superseded write
// beside an overlap, but never show another). It returns the smallest
// reproducer found and the number of runs it took.
//
// It runs r once to learn the signature to keep (a run that passes, or
// shows another signature than r.Expect, is an error wrapping
// ErrNothingToShrink), then repeats greedy passes until none makes progress
// or budget runs are spent: plan events removed by delta debugging (halves,
// then smaller chunks, down to single events); the nodes cut to the fewest
// that still fail, then single nodes removed (the later ones renumbered),
// the clocks and events of removed nodes dropped; clock settings removed,
// or their offset or drift zeroed; the lock object's content before the
// run, each node's settings and each application removed (or its slow
// work); each S3 knob and the SDK's attempts zeroed; and the run shortened: for an unsafe or crashed run to just after
// its violations (or failure), with healAt and the events that no longer
// fit cut with it; for a liveness failure, healAt brought forward and the
// run ended soon after healAt plus the protocol's liveness bound, so that
// liveness is still judged. The seed never changes. The result has the
// whole plan written out, nodes and duration only where they differ from
// the scenario's, and the signature as its expectation.
func Shrink(sc Scenario, r *Reproducer, budget int) (*Reproducer, int, error) {
	if budget < 1 {
		return nil, 0, fmt.Errorf("shrink: budget %d; it must be at least 1", budget)
	}
	s0, err := r.Setup(sc)
	if err != nil {
		return nil, 0, err
	}
	base := sc.Build(r.Seed).Config
	sh := &shrinker{sc: sc, budget: budget, bound: s0.Protocol.LivenessBound, nodes: base.Nodes, duration: base.Duration}
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
	plan := s0.Plan
	if plan == nil {
		plan = &faults.Plan{}
	}
	sh.cur = &Reproducer{Version: ReproVersion, Scenario: r.Scenario, Seed: r.Seed, Nodes: r.Nodes, Duration: r.Duration, Plan: plan, FailOutside: r.FailOutside}
	for sh.left() {
		progress := sh.events()
		progress = sh.fewerNodes() || progress
		progress = sh.clocks() || progress
		progress = sh.setup() || progress
		progress = sh.knobs() || progress
		progress = sh.shorter() || progress
		if !progress {
			break
		}
	}
	out := sh.cur.clone()
	out.Expect = &Signature{Verdict: sh.target.Verdict, Checkers: slices.Clone(sh.target.Checkers)}
	if out.Nodes == sh.nodes {
		out.Nodes = 0
	}
	if out.Duration.D() == sh.duration && out.Plan.HealAt < out.Duration {
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
	// nodes and duration are the scenario's own.
	nodes    int
	duration time.Duration
	// cur is the smallest failing reproducer so far, with an explicit plan;
	// last is its outcome.
	cur  *Reproducer
	last *Outcome
}

func (sh *shrinker) left() bool { return sh.runs < sh.budget }

// try runs c and, if it still fails with the signature, makes it current.
func (sh *shrinker) try(c *Reproducer) bool {
	if !sh.left() {
		return false
	}
	s, err := c.Setup(sh.sc)
	if err != nil {
		return false // not a valid run: costs nothing
	}
	sh.runs++
	o, err := RunSetup(s, false)
	if err != nil {
		return false
	}
	sig := SignatureOf(o)
	if !sameFailure(sig, sh.target) {
		return false
	}
	o.Scenario, o.Seed = c.Scenario, c.Seed
	sh.cur, sh.last, sh.target = c, o, sig
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

// withEvents is cur with the plan's events replaced.
func (sh *shrinker) withEvents(evs []faults.Event) *Reproducer {
	c := sh.cur.clone()
	c.Plan.Events = evs
	return c
}

func (sh *shrinker) effNodes() int {
	if sh.cur.Nodes > 0 {
		return sh.cur.Nodes
	}
	return sh.nodes
}

func (sh *shrinker) effDuration() time.Duration {
	if sh.cur.Duration > 0 {
		return sh.cur.Duration.D()
	}
	return sh.duration
}

// events removes plan events by delta debugging: it tries removing each of
// n chunks, starting with halves; on success it goes on with the rest and
// one chunk fewer, otherwise with chunks half as large, down to single
// events.
func (sh *shrinker) events() bool {
	progress := false
	n := 2
	for sh.left() {
		evs := sh.cur.Plan.Events
		if len(evs) == 0 {
			break
		}
		n = min(n, len(evs))
		size := (len(evs) + n - 1) / n
		removed := false
		for start := 0; start < len(evs) && sh.left(); start += size {
			rest := slices.Concat(evs[:start], evs[min(start+size, len(evs)):])
			if sh.try(sh.withEvents(rest)) {
				removed, progress = true, true
				n = max(n-1, 2)
				break
			}
		}
		if !removed {
			if n >= len(evs) {
				break
			}
			n = min(2*n, len(evs))
		}
	}
	return progress
}

// fewerNodes cuts the nodes to the fewest that still fail, dropping the
// clocks and events of the nodes removed; then it tries removing each
// remaining node, the nodes after it taking its place.
func (sh *shrinker) fewerNodes() bool {
	for k := 1; k < sh.effNodes() && sh.left(); k++ {
		c := sh.cur.clone()
		c.Nodes = k
		c.Plan = truncateNodes(c.Plan, k)
		if sh.try(c) {
			return true
		}
	}
	progress := false
	for i := 0; i < sh.effNodes() && sh.effNodes() > 1 && sh.left(); {
		c := sh.cur.clone()
		c.Nodes = sh.effNodes() - 1
		c.Plan = withoutNode(c.Plan, i)
		if sh.try(c) {
			progress = true
			continue // the next node is now i
		}
		i++
	}
	return progress
}

// withoutNode returns p without the clocks and events of node i, the nodes
// after i renumbered to take its place; events that act on no node are
// kept.
func withoutNode(p *faults.Plan, i int) *faults.Plan {
	c := *p
	c.Clocks, c.Events, c.Settings, c.Apps = nil, nil, nil, nil
	if i < len(p.Names) {
		c.Names = slices.Delete(slices.Clone(p.Names), i, i+1)
	}
	for _, cs := range p.Clocks {
		switch {
		case cs.Node == i:
			continue
		case cs.Node > i:
			cs.Node--
		}
		c.Clocks = append(c.Clocks, cs)
	}
	for _, s := range p.Settings {
		switch {
		case s.Node == i:
			continue
		case s.Node > i:
			s.Node--
		}
		c.Settings = append(c.Settings, s)
	}
	for _, a := range p.Apps {
		switch {
		case a.Node == i:
			continue
		case a.Node > i:
			a.Node--
		}
		c.Apps = append(c.Apps, a)
	}
	for _, e := range p.Events {
		switch {
		case nodeless(e):
			e.Node = 0
		case e.Node == i:
			continue
		case e.Node > i:
			e.Node--
		}
		c.Events = append(c.Events, e)
	}
	return &c
}

// clocks removes each clock setting, or failing that zeroes its offset or
// its drift.
func (sh *shrinker) clocks() bool {
	progress := false
	for i := 0; i < len(sh.cur.Plan.Clocks) && sh.left(); {
		c := sh.cur.clone()
		c.Plan.Clocks = slices.Delete(c.Plan.Clocks, i, i+1)
		if sh.try(c) {
			progress = true
			continue // the next setting is now at i
		}
		cs := sh.cur.Plan.Clocks[i]
		if cs.Offset != 0 && cs.DriftPPM != 0 {
			for _, zero := range []func(*faults.ClockSetting){
				func(s *faults.ClockSetting) { s.Offset = 0 },
				func(s *faults.ClockSetting) { s.DriftPPM = 0 },
			} {
				c := sh.cur.clone()
				zero(&c.Plan.Clocks[i])
				progress = sh.try(c) || progress
			}
		}
		i++
	}
	return progress
}

// setup removes what the plan says of the world besides its faults: the
// lock object's content before the run (or its edit, its spelling, its
// padding, its record's link, or what its record publishes),
// the nodes' names (n0, n1, ...
// then), each node's settings (the node then runs the protocol as given),
// each node's application (the default then), or failing that the
// application's slow work.
func (sh *shrinker) setup() bool {
	progress := false
	if sh.cur.Plan.Initial != nil && sh.left() {
		c := sh.cur.clone()
		c.Plan.Initial = nil
		progress = sh.try(c) || progress
	}
	// Then the record as the protocol writes it: without its edit, then
	// in its own spelling.
	for _, field := range []func(*faults.Object) *uint64{
		func(o *faults.Object) *uint64 { return &o.Edit },
		func(o *faults.Object) *uint64 { return &o.Spelling },
	} {
		if in := sh.cur.Plan.Initial; in != nil && *field(in) != 0 && sh.left() {
			c := sh.cur.clone()
			plain := *in
			*field(&plain) = 0
			c.Plan.Initial = &plain
			progress = sh.try(c) || progress
		}
	}
	// Then the record without its padding, its link, and what it
	// publishes beyond the watermark it was handed.
	for _, simpler := range []func(*faults.Object) bool{
		func(o *faults.Object) bool { was := o.Size; o.Size = 0; return was != 0 },
		func(o *faults.Object) bool { was := o.Record.Previous; o.Record.Previous = nil; return was != nil },
		func(o *faults.Object) bool {
			r := o.Record
			var handed time.Time // the watermark a term starts from
			if r.Previous != nil {
				handed = r.Previous.Watermark
			}
			was := !r.Watermark.Equal(handed) || r.Updates != ""
			r.Watermark, r.Updates = handed, ""
			return was
		},
	} {
		in := sh.cur.Plan.Initial
		if in == nil || in.Record == nil || !sh.left() {
			break
		}
		plain, rec := *in, *in.Record
		plain.Record = &rec
		if simpler(&plain) {
			c := sh.cur.clone()
			c.Plan.Initial = &plain
			progress = sh.try(c) || progress
		}
	}
	if sh.cur.Plan.Names != nil && sh.left() {
		c := sh.cur.clone()
		c.Plan.Names = nil
		progress = sh.try(c) || progress
	}
	for i := 0; i < len(sh.cur.Plan.Settings) && sh.left(); {
		c := sh.cur.clone()
		c.Plan.Settings = slices.Delete(c.Plan.Settings, i, i+1)
		if sh.try(c) {
			progress = true
			continue
		}
		i++
	}
	for i := 0; i < len(sh.cur.Plan.Apps) && sh.left(); {
		c := sh.cur.clone()
		c.Plan.Apps = slices.Delete(c.Plan.Apps, i, i+1)
		if sh.try(c) {
			progress = true
			continue
		}
		if sh.cur.Plan.Apps[i].Work != 0 {
			c := sh.cur.clone()
			c.Plan.Apps[i].Work = 0
			progress = sh.try(c) || progress
		}
		i++
	}
	return progress
}

// knobs zeroes each S3 knob and the SDK's attempts.
func (sh *shrinker) knobs() bool {
	progress := false
	for _, knob := range []struct {
		set  func(*faults.Plan) bool
		zero func(*faults.Plan)
	}{
		{func(p *faults.Plan) bool { return p.S3.ConflictOnOverlapPPM != 0 }, func(p *faults.Plan) { p.S3.ConflictOnOverlapPPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.ConflictPPM != 0 }, func(p *faults.Plan) { p.S3.ConflictPPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.InternalBeforePPM != 0 }, func(p *faults.Plan) { p.S3.InternalBeforePPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.SlowDownPPM != 0 }, func(p *faults.Plan) { p.S3.SlowDownPPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.InternalAfterPPM != 0 }, func(p *faults.Plan) { p.S3.InternalAfterPPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.LostPPM != 0 }, func(p *faults.Plan) { p.S3.LostPPM = 0 }},
		{func(p *faults.Plan) bool { return p.S3.SlowPPM != 0 || p.S3.SlowMax != 0 }, func(p *faults.Plan) { p.S3.SlowPPM, p.S3.SlowMax = 0, 0 }},
		{func(p *faults.Plan) bool { return p.SDKAttempts != 0 }, func(p *faults.Plan) { p.SDKAttempts = 0 }},
		{func(p *faults.Plan) bool { return p.ErrorPages != "" }, func(p *faults.Plan) { p.ErrorPages = "" }},
	} {
		if !sh.left() {
			break
		}
		if knob.set(sh.cur.Plan) {
			c := sh.cur.clone()
			knob.zero(c.Plan)
			progress = sh.try(c) || progress
		}
	}
	return progress
}

// isRateViolation reports whether v is a retry storm's (request-rate), which
// is judged Liveness but happens at an instant, as a safety violation does.
func isRateViolation(v linearizability.Violation) bool {
	return v.Checker == linearizability.RateCheckName
}

// shorter shortens the run: an unsafe or crashed run, or a retry storm, to
// just after what decided it, a liveness failure by bringing healAt forward and ending soon
// after healAt plus the liveness bound.
func (sh *shrinker) shorter() bool {
	if sh.target.Verdict == Liveness.String() && !slices.ContainsFunc(sh.last.Violations, isRateViolation) {
		return sh.shorterLiveness()
	}
	// The instant by which every checker of the signature has spoken: the
	// latest of each checker's first violation, or the failure.
	var by time.Duration
	if f := sh.last.Result.Failure; f != nil {
		by = f.At
	}
	first := map[string]time.Duration{}
	for _, v := range sh.last.Violations {
		k := v.Checker + "/" + v.Rule
		if at, ok := first[k]; !ok || v.At < at {
			first[k] = v.At
		}
	}
	for _, at := range first {
		by = max(by, at)
	}
	lo := roundUp(by) + shrinkStep
	return sh.bisect(lo, sh.effDuration(), sh.cutTo)
}

// cutTo is cur run for d, healAt at most d less a step, and the events
// that would then last past healAt, or happen after the end, dropped.
func (sh *shrinker) cutTo(d time.Duration) *Reproducer {
	c := sh.cur.clone()
	c.Duration = faults.Duration(d)
	if c.Plan.HealAt.D() > d-shrinkStep {
		c.Plan.HealAt = faults.Duration(d - shrinkStep)
	}
	c.Plan.Events = fitting(c.Plan.Events, c.Plan.HealAt.D(), d)
	return c
}

// shorterLiveness brings healAt forward as far as the timed faults allow,
// keeping the liveness phase's length, then shortens the liveness phase to
// just past the liveness bound.
func (sh *shrinker) shorterLiveness() bool {
	heal := sh.cur.Plan.HealAt.D()
	phase := sh.effDuration() - heal
	var lo time.Duration
	for _, e := range sh.cur.Plan.Events {
		lo = max(lo, eventEnd(e))
	}
	progress := sh.bisect(roundUp(lo), heal, func(h time.Duration) *Reproducer {
		c := sh.cur.clone()
		c.Plan.HealAt = faults.Duration(h)
		c.Duration = faults.Duration(h + phase)
		return c
	})
	heal = sh.cur.Plan.HealAt.D()
	return sh.bisect(roundUp(heal+sh.bound)+shrinkStep, sh.effDuration(), func(d time.Duration) *Reproducer {
		c := sh.cur.clone()
		c.Duration = faults.Duration(d)
		return c
	}) || progress
}

// bisect looks for the smallest value in [lo, hi), in steps of shrinkStep,
// whose candidate still fails alike, assuming hi does: it tries lo first,
// then halves the interval. It reports whether it found one.
func (sh *shrinker) bisect(lo, hi time.Duration, cand func(time.Duration) *Reproducer) bool {
	if lo >= hi {
		return false
	}
	if sh.try(cand(lo)) {
		return true
	}
	found := false
	for hi-lo > shrinkStep && sh.left() {
		mid := roundUp(lo + (hi-lo)/2)
		if mid >= hi {
			break
		}
		if sh.try(cand(mid)) {
			hi, found = mid, true
		} else {
			lo = mid
		}
	}
	return found
}

// eventEnd is the instant by which a timed event is over (by Validate's
// rule, healAt may not come before it); aimed events have none.
func eventEnd(e faults.Event) time.Duration {
	switch {
	case e.Kind.Aimed():
		return 0
	case e.Kind == faults.Restart || e.Kind == faults.Linger:
		return e.At.D()
	}
	return e.At.D() + e.For.D()
}

// fitting returns the events that fit a run ending at end and healing at
// heal: timed faults over by heal, restarts and lingers before end.
func fitting(evs []faults.Event, heal, end time.Duration) []faults.Event {
	var out []faults.Event
	for _, e := range evs {
		switch {
		case e.Kind.Aimed():
		case e.Kind == faults.Restart || e.Kind == faults.Linger:
			if e.At.D() >= end {
				continue
			}
		case eventEnd(e) > heal:
			continue
		}
		out = append(out, e)
	}
	return out
}

// roundUp rounds d up to a whole shrinkStep.
func roundUp(d time.Duration) time.Duration {
	if r := d % shrinkStep; r != 0 {
		d += shrinkStep - r
	}
	return d
}
