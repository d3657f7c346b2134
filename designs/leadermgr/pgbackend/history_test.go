package pgbackend

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// recorder builds a run's sim.History in real time, as package live does:
// times are time since the run's start on the process's monotonic clock.
// The fenced resource is in the process: a protocol.Fence that judges each
// write and records it in one critical section, so writes are listed in
// the order the fence judged them. Once stopped it records nothing more:
// open terms stay open.
type recorder struct {
	start time.Time

	mu      sync.Mutex
	stopped bool
	h       sim.History
	fence   protocol.Fence
}

func newRecorder(nodes int) *recorder {
	return &recorder{start: time.Now(), h: sim.History{Nodes: nodes}}
}

func (r *recorder) now() time.Duration { return time.Since(r.start) }

// termStart records that node's application was told it leads with token,
// and returns the term's index (-1 once stopped).
func (r *recorder) termStart(node, incarnation int, identity string, token uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return -1
	}
	r.h.Terms = append(r.h.Terms, sim.Term{Node: node, Identity: identity, Incarnation: incarnation, Token: token, Start: r.now(), Open: true})
	return len(r.h.Terms) - 1
}

// termEnd records that the application of term i saw its term end.
func (r *recorder) termEnd(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < 0 || r.stopped {
		return
	}
	r.h.Terms[i].End, r.h.Terms[i].Open = r.now(), false
}

// write sends one write under token to the fenced resource, judged at once.
func (r *recorder) write(node int, token uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := r.fence.Admit(token) == nil
	if !r.stopped {
		now := r.now()
		r.h.Writes = append(r.h.Writes, sim.FencedWrite{Node: node, Token: token, Sent: now, Applied: now, Accepted: ok})
	}
	return ok
}

// fault records an instantaneous fault on node.
func (r *recorder) fault(kind string, node int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		now := r.now()
		r.h.Faults = append(r.h.Faults, sim.FaultSpan{Kind: kind, Node: node, From: now, To: now})
	}
}

// leader returns the node of the latest term still open, or -1.
func (r *recorder) leader() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.h.Terms) - 1; i >= 0; i-- {
		if r.h.Terms[i].Open {
			return r.h.Terms[i].Node
		}
	}
	return -1
}

// stop closes the history now and returns it.
func (r *recorder) stop() *sim.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		r.stopped = true
		r.h.End = r.now()
		for i := range r.h.Terms {
			if r.h.Terms[i].Open {
				r.h.Terms[i].End = r.h.End
			}
		}
	}
	return &r.h
}

// verdict is one checker's judgement of a history.
type verdict struct {
	name       string
	violations []linearizability.Violation
}

func (v verdict) String() string {
	if len(v.violations) == 0 {
		return v.name + ": pass"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: FAIL", v.name)
	for _, x := range v.violations {
		fmt.Fprintf(&b, "\n    %s", x)
	}
	return b.String()
}

// judge runs the checkers that apply to a history without S3 requests:
// the election checkers (unique-holder, monotonic-tokens, fencing) if the
// protocol hands out tokens, and overlap.
func judge(h *sim.History, tokens bool) []verdict {
	var out []verdict
	if tokens {
		for _, c := range linearizability.ElectionCheckers() {
			out = append(out, verdict{c.Name, c.Check(h)})
		}
	}
	out = append(out, verdict{"overlap", linearizability.OverlapViolations(linearizability.Overlaps(h))})
	return out
}

// summary counts a history.
func summary(h *sim.History) string {
	var tokens []uint64
	for _, t := range h.Terms {
		if !slices.Contains(tokens, t.Token) {
			tokens = append(tokens, t.Token)
		}
	}
	accepted := 0
	for _, w := range h.Writes {
		if w.Accepted {
			accepted++
		}
	}
	return fmt.Sprintf("%v, %d terms (tokens %v), %d fenced writes (%d accepted, %d refused), %d faults recorded",
		h.End.Round(time.Millisecond), len(h.Terms), tokens, len(h.Writes), accepted, len(h.Writes)-accepted, len(h.Faults))
}
