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
// outcomes against the scenario's expectation, and reading S3 requests,
// terms, fenced writes and fault notes out of a run.

// The sweep's flags: every failure-mode test that runs a range of seeds
// (runSeeds) runs sweepSeeds seeds from sweepFirst instead of its own 1..n,
// so that a nightly sweep (.ci/sweep) can hold every check on seeds
// 1..10,000, a window at a time.
var (
	sweepFirst = flag.Uint64("scenarios.first", 1, "the first seed of every failure-mode test's range")
	sweepSeeds = flag.Uint64("scenarios.seeds", 0, "the number of seeds of every failure-mode test's range (0: each test's own)")
)

// runSeeds runs seeds 1..n of sc (or the sweep's window) with the trace
// kept; a run that cannot be set up or that crashed fails the test.
func runSeeds(t *testing.T, sc harness.Scenario, n uint64) []*harness.Outcome {
	t.Helper()
	first := *sweepFirst
	if *sweepSeeds > 0 {
		n = *sweepSeeds
	}
	outs := make([]*harness.Outcome, 0, n)
	for seed := first; seed < first+n; seed++ {
		o, err := harness.RunSeed(sc, seed, true)
		if err != nil {
			t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
		}
		if o.Verdict == harness.Crashed {
			t.Fatalf("%s seed %d crashed: %v", sc.Name, seed, o.Result.Failure)
		}
		outs = append(outs, o)
	}
	return outs
}

// replay is the command that shows a run's trace.
func replay(o *harness.Outcome) string {
	return fmt.Sprintf("go run ./cmd/simrun replay -scenario %s -seed %d", o.Scenario, o.Seed)
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

// checkFenced asserts the Fenced expectation over a range of seeds: every
// run is outside the assumptions and passes (checkOutsideButPass), and
// across the runs two leaders overlapped and the fence refused at least
// one write.
func checkFenced(t *testing.T, outs []*harness.Outcome) {
	t.Helper()
	checkOutsideButPass(t, outs...)
	overlaps, refused := 0, 0
	for _, o := range outs {
		if hasOverlap(o) {
			overlaps++
		}
		refused += len(refusedWrites(o))
	}
	if overlaps == 0 {
		t.Errorf("no seed of %d shows two leaders overlapping: the fault had no effect", len(outs))
	}
	if refused == 0 {
		t.Errorf("no seed of %d has a fenced write refused: fencing did no work", len(outs))
	}
	t.Logf("%d of %d seeds overlap; %d stale writes refused", overlaps, len(outs), refused)
}

// hasOverlap reports whether two leaders overlapped in the run, as
// measured or as an expected violation.
func hasOverlap(o *harness.Outcome) bool {
	if len(o.Overlaps) > 0 {
		return true
	}
	for _, v := range o.Excused {
		if v.Checker == "overlap" {
			return true
		}
	}
	return false
}

// refusedWrites returns the fenced writes of the run that the resource
// refused.
func refusedWrites(o *harness.Outcome) []sim.FencedWrite {
	var out []sim.FencedWrite
	for _, w := range o.Result.History.Writes {
		if !w.Accepted {
			out = append(out, w)
		}
	}
	return out
}

// termAt returns node's term that was running at true time at (Start <=
// at < End, or open), and whether there is one.
func termAt(o *harness.Outcome, node int, at time.Duration) (sim.Term, bool) {
	for _, term := range o.Result.History.Terms {
		if term.Node == node && term.Start <= at && (term.Open || at < term.End) {
			return term, true
		}
	}
	return sim.Term{}, false
}

// anyNode, as the node argument of events, selects the events of every
// node, S3 and the fenced resource included.
const anyNode = -2

// events returns the trace events of kind k on node, in order: node is a
// node's number, -1 for S3 and the fenced resource, or anyNode.
func events(o *harness.Outcome, k sim.EventKind, node int) []sim.Event {
	var out []sim.Event
	for _, e := range o.Result.Trace.Events {
		if e.Kind == k && (node == anyNode || e.Node == node) {
			out = append(out, e)
		}
	}
	return out
}

// faultEvents returns the run's trace events of fault kind, on any node:
// the fault notes and pauses the fault layer and the simulator record.
func faultEvents(o *harness.Outcome, kind sim.FaultKind) []sim.Event {
	var out []sim.Event
	for _, e := range o.Result.Trace.Events {
		if e.Fault == kind {
			out = append(out, e)
		}
	}
	return out
}

// byCall returns the first event of kind k for S3 or fence call id, and
// whether there is one.
func byCall(o *harness.Outcome, k sim.EventKind, id uint64) (sim.Event, bool) {
	for _, e := range o.Result.Trace.Events {
		if e.Kind == k && e.Call == id {
			return e, true
		}
	}
	return sim.Event{}, false
}

// pauseEndOf returns when the pause that EvPause event e began ends.
func pauseEndOf(t *testing.T, e sim.Event) time.Duration {
	t.Helper()
	if e.Kind != sim.EvPause || e.For <= 0 {
		t.Fatalf("event %v is no pause", e)
	}
	return e.At + e.For
}

// checkPausesHealed asserts that every pause of the run ended before its
// plan's HealAt: the liveness phase is fault-free.
func checkPausesHealed(t *testing.T, o *harness.Outcome) {
	t.Helper()
	heal := o.Plan.HealAt.D()
	for _, e := range events(o, sim.EvPause, anyNode) {
		if end := pauseEndOf(t, e); end > heal {
			t.Errorf("%s seed %d: n%d paused until %v, after healAt %v", o.Scenario, o.Seed, e.Node, end, heal)
		}
	}
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

// s3Calls gathers the S3 requests of the run, in the order they were sent.
// (Fenced writes have their own call numbers and are left out.)
func s3Calls(o *harness.Outcome) []*s3Call {
	tr := o.Result.Trace
	byID := map[uint64]*s3Call{}
	var calls []*s3Call
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Kind {
		case sim.EvS3Send:
			c := &s3Call{ID: e.Call, Node: e.Node, Op: e.Op, Cond: e.Cond, Send: *e}
			byID[e.Call] = c
			calls = append(calls, c)
		case sim.EvS3Apply:
			if c := byID[e.Call]; c != nil {
				c.Apply = e
			}
		case sim.EvS3Return:
			if c := byID[e.Call]; c != nil {
				c.Return = e
			}
		case sim.EvS3Abandon:
			if c := byID[e.Call]; c != nil {
				c.Abandon = e
			}
		}
	}
	return calls
}

// puts returns the PutObject requests of node, or of every node if node is
// anyNode.
func puts(calls []*s3Call, node int) []*s3Call {
	var r []*s3Call
	for _, c := range calls {
		if c.Op == "PutObject" && (node == anyNode || c.Node == node) {
			r = append(r, c)
		}
	}
	return r
}

// lastGrantSend is the send instant of the last PutObject of node answered
// 200 at or before at: the write a term's deadline is measured from. The
// second result is false if there is none.
func lastGrantSend(calls []*s3Call, node int, at time.Duration) (time.Duration, bool) {
	var sent time.Duration
	found := false
	for _, c := range puts(calls, node) {
		if c.Return != nil && c.Return.Status == 200 && c.Return.At <= at {
			sent, found = c.Send.At, true
		}
	}
	return sent, found
}

// tokensRise checks that the token sequence survives a foreign write of the
// lock object at instant at: no token violation at all (none reported, none
// excused); every term begun after at has a token above every token handed
// out before at; and the fence accepted every write a term begun after at
// sent before a term with a higher token began. It reports whether a node
// that restarted after at, and so never saw the old tokens, led after at:
// the case in which tokens used to start again from 1.
func tokensRise(t *testing.T, o *harness.Outcome, at time.Duration) (newcomerLed bool) {
	t.Helper()
	for _, v := range o.Violations {
		if v.Checker == "monotonic-tokens" || v.Checker == "unique-holder" {
			t.Errorf("seed %d: %v", o.Seed, v)
		}
	}
	for _, v := range o.Excused {
		if v.Checker == "monotonic-tokens" || v.Checker == "unique-holder" {
			t.Errorf("seed %d: %v (excused, but tokens must rise across the foreign write)", o.Seed, v.Violation)
		}
	}
	h := o.Result.History
	var before uint64
	for _, term := range h.Terms {
		if term.Start < at {
			before = max(before, term.Token)
		}
	}
	restarted := map[string]bool{}
	for _, st := range events(o, sim.EvStart, anyNode) {
		if st.At > at {
			restarted[st.Detail] = true
		}
	}
	for i, term := range h.Terms {
		if term.Start <= at {
			continue
		}
		if term.Token <= before {
			t.Errorf("seed %d: n%d (%s) took token %d at %v, not above the %d handed out before the foreign write at %v",
				o.Seed, term.Node, term.Identity, term.Token, term.Start, before, at)
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
				t.Errorf("seed %d: the fence refused n%d's write under token %d sent at %v, before any higher token was handed out",
					o.Seed, w.Node, w.Token, w.Sent)
			}
		}
	}
	return newcomerLed
}
