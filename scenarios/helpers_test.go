package scenarios

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// Helpers of the failure-mode tests: running a range of seeds, judging the
// outcomes against the scenario's expectation, and reading a run's terms,
// fenced writes, S3 requests and faults (by their kinds, sim.FaultKind)
// out of its history and trace.

// The sweep's flags: every failure-mode test that runs a range of seeds
// (runSeeds) runs sweepSeeds seeds from sweepFirst instead of its own 1..n,
// so that a nightly sweep (.ci/sweep) can hold every check on seeds
// 1..10,000, a window at a time.
var (
	sweepFirst = flag.Uint64("scenarios.first", 1, "the first seed of every failure-mode test's range")
	sweepSeeds = flag.Uint64("scenarios.seeds", 0, "the number of seeds of every failure-mode test's range (0: each test's own)")
)

// run is one judged seed of a story, as its test reads it; its failures
// are reported with the seed and the command that replays it.
type run struct {
	*harness.Outcome
	t     *testing.T
	calls []*s3Call // its S3 requests, gathered on first use
}

// seedRange is the range of seeds a story's test runs: 1..n, or the
// sweep's window.
func seedRange(n uint64) (first, last uint64) {
	if *sweepSeeds > 0 {
		n = *sweepSeeds
	}
	return *sweepFirst, *sweepFirst + n - 1
}

// runSeeds runs seeds 1..n of sc (or the sweep's window) with the trace
// kept; a run that cannot be set up or that crashed fails the test.
func runSeeds(t *testing.T, sc harness.Scenario, n uint64) []*run {
	t.Helper()
	first, last := seedRange(n)
	rs := make([]*run, 0, last-first+1)
	for seed := first; seed <= last; seed++ {
		o, err := harness.RunSeed(sc, seed, true)
		if err != nil {
			t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
		}
		if o.Verdict == harness.Crashed {
			t.Fatalf("%s seed %d crashed: %v", sc.Name, seed, o.Result.Failure)
		}
		rs = append(rs, &run{Outcome: o, t: t})
	}
	return rs
}

// replay is the command that shows a run's trace.
func replay(o *harness.Outcome) string {
	return harness.Repro{Scenario: o.Scenario, Seed: o.Seed}.Command()
}

// errorf reports that the run does not tell its story.
func (r *run) errorf(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("seed %d: %s (%s)", r.Seed, fmt.Sprintf(format, args...), replay(r.Outcome))
}

// checkSurvives asserts the Survives expectation of every run: it stayed
// inside the elector's assumptions and passed, with no violation, no
// overlap and a leader after healing.
func checkSurvives(t *testing.T, outs ...*harness.Outcome) {
	t.Helper()
	for _, o := range outs {
		if len(o.Outside) > 0 {
			t.Errorf("%s seed %d: plan leaves the assumptions: %v", o.Scenario, o.Seed, o.Outside)
		}
		if o.Verdict != harness.Pass || len(o.Overlaps) > 0 {
			t.Errorf("%s seed %d: verdict %v, violations %v, overlaps %v (replay: %s)",
				o.Scenario, o.Seed, o.Verdict, o.Violations, o.Overlaps, replay(o))
		}
	}
}

// checkOutsideButPass asserts that every run left the assumptions and
// still passed: no stale write accepted, a leader after healing.
func checkOutsideButPass(t *testing.T, outs ...*harness.Outcome) {
	t.Helper()
	for _, o := range outs {
		if len(o.Outside) == 0 {
			t.Errorf("%s seed %d: the plan stays inside the assumptions; want outside", o.Scenario, o.Seed)
		}
		if o.Verdict != harness.Pass {
			t.Errorf("%s seed %d: verdict %v, violations %v (replay: %s)",
				o.Scenario, o.Seed, o.Verdict, o.Violations, replay(o))
		}
	}
}

// survives and outsideButPasses are checkSurvives and checkOutsideButPass
// of one run.
func (r *run) survives()         { r.t.Helper(); checkSurvives(r.t, r.Outcome) }
func (r *run) outsideButPasses() { r.t.Helper(); checkOutsideButPass(r.t, r.Outcome) }

// checkFenced asserts the Fenced expectation over a range of seeds: every
// run is outside the assumptions and passes, and across the runs two
// leaders overlapped and the fence refused at least one write.
func checkFenced(t *testing.T, rs []*run) {
	t.Helper()
	overlaps, refused := 0, 0
	for _, r := range rs {
		r.outsideButPasses()
		if r.overlapped() {
			overlaps++
		}
		refused += len(r.refused())
	}
	if overlaps == 0 {
		t.Errorf("no seed of %d shows two leaders overlapping: the fault had no effect", len(rs))
	}
	if refused == 0 {
		t.Errorf("no seed of %d has a fenced write refused: fencing did no work", len(rs))
	}
	t.Logf("%d of %d seeds overlap; %d stale writes refused", overlaps, len(rs), refused)
}

// overlapped reports whether two leaders overlapped in the run, as
// measured or as an expected violation.
func (r *run) overlapped() bool {
	_, excused := first(r.Excused, func(v harness.Excused) bool { return v.Checker == "overlap" })
	return len(r.Overlaps) > 0 || excused
}

// refused returns the fenced writes of the run that the resource refused.
func (r *run) refused() []sim.FencedWrite {
	return filter(r.Result.History.Writes, func(w sim.FencedWrite) bool { return !w.Accepted })
}

// first returns the first element of xs that ok accepts, and whether
// there is one.
func first[T any](xs []T, ok func(T) bool) (T, bool) {
	for _, x := range xs {
		if ok(x) {
			return x, true
		}
	}
	var zero T
	return zero, false
}

// filter returns the elements of xs that ok accepts, in order.
func filter[T any](xs []T, ok func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// termAt returns node's term that was running at true time at (Start <=
// at < End, or open), and whether there is one.
func (r *run) termAt(node int, at time.Duration) (sim.Term, bool) {
	return first(r.Result.History.Terms, func(t sim.Term) bool {
		return t.Node == node && t.Start <= at && (t.Open || at < t.End)
	})
}

// anyNode, as the node argument of events, selects the events of every
// node, S3 and the fenced resource included.
const anyNode = -2

// events returns the trace events of kind k on node, in order: node is a
// node's number, -1 for S3 and the fenced resource, or anyNode.
func (r *run) events(k sim.EventKind, node int) []sim.Event {
	return filter(r.Result.Trace.Events, func(e sim.Event) bool { return e.Kind == k && (node == anyNode || e.Node == node) })
}

// faults returns the run's fault events (sim.EvFault) of kind k, in
// order: the faults as the fault layer and the simulator recorded them.
func (r *run) faults(k sim.FaultKind) []sim.Event {
	return filter(r.Result.Trace.Events, func(e sim.Event) bool { return e.Kind == sim.EvFault && e.Fault == k })
}

// onlyFault returns the run's one fault event of kind k; a run with none
// or several fails, and the second result is false.
func (r *run) onlyFault(k sim.FaultKind) (sim.Event, bool) {
	r.t.Helper()
	fs := r.faults(k)
	if len(fs) != 1 {
		r.errorf("%d faults %s in the trace; want 1", len(fs), k)
		return sim.Event{}, false
	}
	return fs[0], true
}

// leadAfter returns the first term that began after at (its EvLead) on a
// node other than except (-1: on any node), and whether there is one.
func (r *run) leadAfter(at time.Duration, except int) (sim.Event, bool) {
	return first(r.events(sim.EvLead, anyNode), func(l sim.Event) bool { return l.At > at && l.Node != except })
}

// takeover returns the first term another node began, with a token above
// token, between from and to (exclusive), while node believed it led with
// token; the second result is false if nobody took over then.
func (r *run) takeover(node int, token uint64, from, to time.Duration) (sim.Event, bool) {
	l, ok := r.leadAfter(from, node)
	return l, ok && l.At < to && l.Token > token
}

// byCall returns the first event of kind k for S3 or fence call id, and
// whether there is one.
func (r *run) byCall(k sim.EventKind, id uint64) (sim.Event, bool) {
	return first(r.Result.Trace.Events, func(e sim.Event) bool { return e.Kind == k && e.Call == id })
}

// pausesHealed asserts that every pause of the run ended before its
// plan's HealAt: the liveness phase is fault-free.
func (r *run) pausesHealed() {
	r.t.Helper()
	heal := r.Plan.HealAt.D()
	for _, e := range r.events(sim.EvPause, anyNode) {
		if !e.Fault.Pause() || e.At+e.For > heal {
			r.errorf("n%d paused (%s) until %v, after healAt %v", e.Node, e.Fault, e.At+e.For, heal)
		}
	}
}

// paused reports whether node's process stopped at at for d, for a fault
// of kind k (an EvPause of the trace).
func (r *run) paused(node int, at time.Duration, k sim.FaultKind, d time.Duration) bool {
	_, ok := first(r.events(sim.EvPause, node), func(p sim.Event) bool { return p.At == at && p.Fault == k && p.For == d })
	return ok
}

// floorAt is the token floor of an acquisition its node sent at event e:
// the node's wall clock then, in Unix milliseconds. The first acquisitions
// of a run know no higher token, so this is their token.
func floorAt(e sim.Event) uint64 {
	return uint64(sim.Epoch.Add(e.Local).UnixMilli())
}

// s3Call is one S3 request of a run, gathered from its trace events.
type s3Call struct {
	ID   uint64
	Node int
	Op   string
	Cond string
	Send sim.Event
	// Apply, Return and Abandon are nil if the trace has no such event.
	Apply, Return, Abandon *sim.Event
}

// applied200 reports that S3 applied the request successfully, whatever
// answer the node got.
func (c *s3Call) applied200() bool { return c.Apply != nil && c.Apply.Status == 200 }

// answered reports the status the node got, or 0 if it got none.
func (c *s3Call) answered() int {
	if c.Return == nil {
		return 0
	}
	return c.Return.Status
}

// end is when the node stopped waiting for the request: its answer or its
// abandonment; -1 if neither happened.
func (c *s3Call) end() time.Duration {
	switch {
	case c.Return != nil:
		return c.Return.At
	case c.Abandon != nil:
		return c.Abandon.At
	}
	return -1
}

// s3 returns the S3 requests of the run, in the order they were sent.
// (Fenced writes have their own call numbers and are left out.)
func (r *run) s3() []*s3Call {
	if r.calls != nil {
		return r.calls
	}
	tr := r.Result.Trace
	byID := map[uint64]*s3Call{}
	r.calls = []*s3Call{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind == sim.EvS3Send {
			c := &s3Call{ID: e.Call, Node: e.Node, Op: e.Op, Cond: e.Cond, Send: *e}
			byID[e.Call] = c
			r.calls = append(r.calls, c)
			continue
		}
		c := byID[e.Call]
		switch {
		case c == nil:
		case e.Kind == sim.EvS3Apply:
			c.Apply = e
		case e.Kind == sim.EvS3Return:
			c.Return = e
		case e.Kind == sim.EvS3Abandon:
			c.Abandon = e
		}
	}
	return r.calls
}

// puts returns the PutObject requests of node, or of every node if node is
// anyNode.
func (r *run) puts(node int) []*s3Call {
	return filter(r.s3(), func(c *s3Call) bool { return c.Op == "PutObject" && (node == anyNode || c.Node == node) })
}

// lastGrantSend is the send instant of the last PutObject of node answered
// 200 at or before at: the write a term's deadline is measured from. The
// second result is false if there is none.
func (r *run) lastGrantSend(node int, at time.Duration) (time.Duration, bool) {
	var sent time.Duration
	found := false
	for _, c := range r.puts(node) {
		if c.answered() == 200 && c.Return.At <= at {
			sent, found = c.Send.At, true
		}
	}
	return sent, found
}

// lastApplied is when S3 applied the last PutObject of node that it
// applied successfully before at (0 if none): the record a crashed leader
// leaves is timed from there.
func (r *run) lastApplied(node int, before time.Duration) time.Duration {
	var at time.Duration
	for _, c := range r.puts(node) {
		if c.applied200() && c.Apply.At < before {
			at = c.Apply.At
		}
	}
	return at
}

// tokensRise checks that the token sequence survives a foreign write of the
// lock object at instant at: no token violation at all (none reported, none
// excused); every term begun after at has a token above every token handed
// out before at; and the fence accepted every write a term begun after at
// sent before a term with a higher token began. It reports whether a node
// that restarted after at, and so never saw the old tokens, led after at:
// the case in which tokens used to start again from 1.
func (r *run) tokensRise(at time.Duration) (newcomerLed bool) {
	r.t.Helper()
	tokenRule := func(c string) bool { return c == "monotonic-tokens" || c == "unique-holder" }
	for _, v := range r.Violations {
		if tokenRule(v.Checker) {
			r.errorf("%v", v)
		}
	}
	for _, v := range r.Excused {
		if tokenRule(v.Checker) {
			r.errorf("%v (excused, but tokens must rise across the foreign write)", v.Violation)
		}
	}
	h := r.Result.History
	var before uint64
	for _, term := range h.Terms {
		if term.Start < at {
			before = max(before, term.Token)
		}
	}
	restarted := r.restartedAfter(at)
	for i, term := range h.Terms {
		if term.Start <= at {
			continue
		}
		if term.Token <= before {
			r.errorf("n%d (%s) took token %d at %v, not above the %d handed out before the foreign write at %v",
				term.Node, term.Identity, term.Token, term.Start, before, at)
		}
		newcomerLed = newcomerLed || restarted[term.Identity]
		until := h.End
		for _, later := range h.Terms[i+1:] {
			if later.Token > term.Token {
				until = min(until, later.Start)
			}
		}
		for _, w := range h.Writes {
			if w.Node == term.Node && w.Token == term.Token && w.Sent >= term.Start && w.Sent < until && !w.Accepted {
				r.errorf("the fence refused n%d's write under token %d sent at %v, before any higher token was handed out", w.Node, w.Token, w.Sent)
			}
		}
	}
	return newcomerLed
}

// restartedAfter returns the identities of the incarnations that started
// after at.
func (r *run) restartedAfter(at time.Duration) map[string]bool {
	restarted := map[string]bool{}
	for _, st := range r.events(sim.EvStart, anyNode) {
		if st.At > at {
			restarted[st.Detail] = true
		}
	}
	return restarted
}
