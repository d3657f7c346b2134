package linearizability

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Builders for hand-written histories. Times are in milliseconds.

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// term is a closed term of node's incarnation inc, from start to end.
func term(node, inc int, token uint64, start, end int) sim.Term {
	return sim.Term{Node: node, Incarnation: inc, Token: token, Start: ms(start), End: ms(end)}
}

// openTerm is a term still running when the run stopped at end.
func openTerm(node, inc int, token uint64, start, end int) sim.Term {
	t := term(node, inc, token, start, end)
	t.Open = true
	return t
}

// write is a write by node applied at applied, sent 1ms earlier.
func write(node int, token uint64, applied int, accepted bool) sim.FencedWrite {
	return sim.FencedWrite{Node: node, Token: token, Sent: ms(max(applied-1, 0)), Applied: ms(applied), Accepted: accepted}
}

func terms(ts ...sim.Term) *sim.History {
	return &sim.History{Nodes: 4, End: ms(10_000), Terms: ts}
}

func writes(ws ...sim.FencedWrite) *sim.History {
	return &sim.History{Nodes: 4, End: ms(10_000), Writes: ws}
}

func cloneHistory(h *sim.History) *sim.History {
	c := *h
	c.Terms = slices.Clone(h.Terms)
	c.Writes = slices.Clone(h.Writes)
	return &c
}

func sameHistory(a, b *sim.History) bool {
	return a.Nodes == b.Nodes && a.End == b.End && slices.Equal(a.Terms, b.Terms) && slices.Equal(a.Writes, b.Writes)
}

// want is the evidence a table test expects of one violation.
type want struct {
	At    time.Duration
	Nodes []int
	Token uint64
	// Says, if set, must appear in the message.
	Says string
}

// checkTable runs check on a copy of h and compares the violations with
// ws, in order; it also checks what every violation must satisfy.
func checkTable(t *testing.T, checker string, check func(*sim.History) []Violation, h *sim.History, ws []want) {
	t.Helper()
	var before *sim.History
	if h != nil {
		before = cloneHistory(h)
	}
	got := check(h)
	if h != nil && !sameHistory(h, before) {
		t.Errorf("checker modified the history")
	}
	validViolations(t, checker, got)
	if len(got) != len(ws) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(ws), violationList(got))
	}
	for i, w := range ws {
		g := got[i]
		if g.At != w.At || !slices.Equal(g.Nodes, w.Nodes) || g.Token != w.Token {
			t.Errorf("violation %d: got At=%v Nodes=%v Token=%d, want At=%v Nodes=%v Token=%d\n  %s",
				i, g.At, g.Nodes, g.Token, w.At, w.Nodes, w.Token, g)
		}
		if w.Says != "" && !strings.Contains(g.Message, w.Says) {
			t.Errorf("violation %d: message %q does not say %q", i, g.Message, w.Says)
		}
	}
}

// validViolations checks what every violation of the named checker must
// satisfy, whatever the history.
func validViolations(t testingT, checker string, vs []Violation) {
	t.Helper()
	for i, v := range vs {
		if v.Checker != checker {
			t.Errorf("violation %d: Checker = %q, want %q", i, v.Checker, checker)
		}
		if len(v.Nodes) == 0 || !slices.IsSorted(v.Nodes) || len(slices.Compact(slices.Clone(v.Nodes))) != len(v.Nodes) {
			t.Errorf("violation %d: Nodes %v not distinct and ascending", i, v.Nodes)
		}
		if v.Message == "" || strings.Contains(v.Message, "%!") || !strings.Contains(v.Message, "node") {
			t.Errorf("violation %d: bad message %q", i, v.Message)
		}
		if i > 0 && vs[i-1].At > v.At {
			t.Errorf("violations not ordered by At: %v before %v", vs[i-1].At, v.At)
		}
	}
}

// testingT is what validViolations needs of *testing.T and *rapid.T.
type testingT interface {
	Helper()
	Errorf(format string, args ...any)
}

func violationList(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  ")
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	return b.String()
}
