package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Helpers of the failure-mode tests 10 to 17 (helper B): running a range of
// seeds, and reading S3 requests, terms and fenced writes out of a trace.

// bRunSeeds runs seeds 1..n of sc with the trace kept; a run that cannot be
// set up or that crashed fails the test.
func bRunSeeds(t *testing.T, sc Scenario, n uint64) []*Outcome {
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

// bReplay is the command that shows a run's trace.
func bReplay(o *Outcome) string {
	return fmt.Sprintf("go run ./cmd/simrun replay -scenario %s -seed %d", o.Scenario, o.Seed)
}

// bCheckSurvives fails the test unless the run stayed inside the elector's
// assumptions and passed: no violation, no overlap, a leader after healing.
func bCheckSurvives(t *testing.T, o *Outcome) {
	t.Helper()
	if len(o.Outside) > 0 {
		t.Errorf("seed %d: plan leaves the assumptions: %v", o.Seed, o.Outside)
	}
	if o.Verdict != Pass || len(o.Overlaps) > 0 {
		t.Errorf("seed %d: verdict %v, violations %v, overlaps %v (%s)", o.Seed, o.Verdict, o.Violations, o.Overlaps, bReplay(o))
	}
}

// bCheckFencedPass fails the test unless the run left the assumptions and
// still passed: no stale write accepted, a leader after healing.
func bCheckFencedPass(t *testing.T, o *Outcome) {
	t.Helper()
	if len(o.Outside) == 0 {
		t.Errorf("seed %d: the plan stays inside the assumptions; want outside", o.Seed)
	}
	if o.Verdict != Pass {
		t.Errorf("seed %d: verdict %v, violations %v (%s)", o.Seed, o.Verdict, o.Violations, bReplay(o))
	}
}

// bHasOverlap reports whether two leaders overlapped in the run, as
// measured or as an expected violation.
func bHasOverlap(o *Outcome) bool {
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

// bRefused returns the fenced writes the resource refused.
func bRefused(h *sim.History) []sim.FencedWrite {
	var r []sim.FencedWrite
	for _, w := range h.Writes {
		if !w.Accepted {
			r = append(r, w)
		}
	}
	return r
}

// bS3Call is one S3 request of a run, gathered from its trace events.
type bS3Call struct {
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
func (c *bS3Call) applied200() bool { return c.Apply != nil && c.Apply.Status == 200 }

// answered reports the status the node got, or 0 if it got none.
func (c *bS3Call) answered() int {
	if c.Return == nil {
		return 0
	}
	return c.Return.Status
}

// end is when the node stopped waiting for the request: its answer or its
// abandonment; -1 if neither happened.
func (c *bS3Call) end() time.Duration {
	switch {
	case c.Return != nil:
		return c.Return.At
	case c.Abandon != nil:
		return c.Abandon.At
	}
	return -1
}

// bS3Calls gathers the S3 requests of a trace, in the order they were sent.
// (Fenced writes have their own call numbers and are left out.)
func bS3Calls(tr *sim.Trace) []*bS3Call {
	byID := map[uint64]*bS3Call{}
	var calls []*bS3Call
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Kind {
		case sim.EvS3Send:
			c := &bS3Call{ID: e.Call, Node: e.Node, Op: e.Op, Cond: e.Cond, Send: *e}
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

// bPuts returns the PutObject requests of node (any node if node < 0).
func bPuts(calls []*bS3Call, node int) []*bS3Call {
	var r []*bS3Call
	for _, c := range calls {
		if c.Op == "PutObject" && (node < 0 || c.Node == node) {
			r = append(r, c)
		}
	}
	return r
}

// bTermAt returns node's term that was running at instant at.
func bTermAt(h *sim.History, node int, at time.Duration) (sim.Term, bool) {
	for _, t := range h.Terms {
		if t.Node == node && t.Start <= at && (t.Open || at < t.End) {
			return t, true
		}
	}
	return sim.Term{}, false
}

// bEvents returns the events of kind on node (any node if node < -1), in
// order.
func bEvents(tr *sim.Trace, kind sim.EventKind, node int) []sim.Event {
	var r []sim.Event
	for _, e := range tr.Events {
		if e.Kind == kind && (node < -1 || e.Node == node) {
			r = append(r, e)
		}
	}
	return r
}

// bNotes returns the fault notes whose text contains text.
func bNotes(tr *sim.Trace, text string) []sim.Event {
	var r []sim.Event
	for _, e := range tr.Events {
		if e.Kind == sim.EvFault && strings.Contains(e.Detail, text) {
			r = append(r, e)
		}
	}
	return r
}

// bLastGrantSend is the send instant of the last PutObject of node answered
// 200 at or before at: the write a term's deadline is measured from. The
// second result is false if there is none.
func bLastGrantSend(calls []*bS3Call, node int, at time.Duration) (time.Duration, bool) {
	var sent time.Duration
	found := false
	for _, c := range bPuts(calls, node) {
		if c.Return != nil && c.Return.Status == 200 && c.Return.At <= at {
			sent, found = c.Send.At, true
		}
	}
	return sent, found
}

// bTokenRestart looks for the token sequence restarting after a foreign
// write at instant at: a monotonic-tokens violation reported as expected,
// and a term begun after at with a token lower than an earlier term's. It
// fails the test unless that term's holder started after at (it never saw
// the old tokens) and the fence refused every write it made under that
// token. It reports whether the sequence restarted.
func bTokenRestart(t *testing.T, o *Outcome, at time.Duration) bool {
	t.Helper()
	restarted := false
	for _, v := range o.Expected {
		restarted = restarted || v.Checker == "monotonic-tokens"
	}
	if !restarted {
		return false
	}
	h, tr := o.Result.History, o.Result.Trace
	var low *sim.Term
	var top uint64
	for i, term := range h.Terms {
		if term.Start > at && term.Token < top && low == nil {
			low = &h.Terms[i]
		}
		top = max(top, term.Token)
	}
	if low == nil {
		t.Errorf("seed %d: monotonic-tokens reported but no term after %v has a lower token than an earlier one", o.Seed, at)
		return true
	}
	for _, st := range bEvents(tr, sim.EvStart, low.Node) {
		if st.Detail == low.Identity && st.At < at {
			t.Errorf("seed %d: n%d (%s) took token %d but started before %v", o.Seed, low.Node, low.Identity, low.Token, at)
		}
	}
	writes := 0
	for _, w := range h.Writes {
		if w.Node == low.Node && w.Token == low.Token && w.Sent >= low.Start {
			writes++
			if w.Accepted {
				t.Errorf("seed %d: the fence accepted n%d's write under the restarted token %d at %v", o.Seed, w.Node, w.Token, w.Applied)
			}
		}
	}
	if writes == 0 {
		t.Errorf("seed %d: n%d wrote nothing under the restarted token %d", o.Seed, low.Node, low.Token)
	}
	t.Logf("seed %d: after the foreign write at %v, n%d (%s) led with token %d, below %d; the fence refused all %d of its writes",
		o.Seed, at, low.Node, low.Identity, low.Token, top, writes)
	return true
}
