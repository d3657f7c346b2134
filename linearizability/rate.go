package linearizability

import (
	"fmt"
	"slices"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// RateCheckName is the name of the request-rate checker.
const RateCheckName = "request-rate"

// RequestRate is a bound on how fast one node sends S3 requests: at most
// Max requests sent within any Window of true time. A protocol that waits
// between its attempts (a retry period, a back-off) has such a bound by
// design; a loop that forgets to wait (a retry storm, which S3 throttles
// with 503 SlowDown and bills request by request) breaks it whatever the
// answers were.
type RequestRate struct {
	Window time.Duration
	Max    int
}

// Zero reports whether r bounds nothing.
func (r RequestRate) Zero() bool { return r.Window <= 0 || r.Max <= 0 }

// CheckRequestRate checks every node's S3 requests in h against its bound,
// rate(node) (a zero RequestRate: that node is not judged), and returns at
// most one violation per node: the first window that holds more than Max
// of the node's requests, witnessed when the request one over the bound
// was sent. Requests from outside the nodes (node -1) are not judged.
func CheckRequestRate(h *sim.History, rate func(node int) RequestRate) []Violation {
	var calls [][]time.Duration
	for i := range h.S3 {
		n := h.S3[i].Node
		if n < 0 {
			continue
		}
		for n >= len(calls) {
			calls = append(calls, nil)
		}
		calls[n] = append(calls[n], h.S3[i].Call)
	}
	var out []Violation
	for n, c := range calls {
		if v, ok := nodeRate(n, c, rate(n)); ok {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, compareViolations)
	return out
}

// nodeRate slides the window over node n's requests, sent at calls (in
// the order sent).
func nodeRate(n int, calls []time.Duration, r RequestRate) (Violation, bool) {
	if r.Zero() {
		return Violation{}, false
	}
	for first, last := 0, 0; last < len(calls); last++ {
		for calls[last]-calls[first] >= r.Window {
			first++
		}
		if last-first+1 > r.Max {
			return Violation{Checker: RateCheckName, At: calls[last], Nodes: []int{n},
				Message: fmt.Sprintf("n%d sent %d S3 requests from %v to %v, more than the %d in any %v the protocol allows itself",
					n, last-first+1, calls[first], calls[last], r.Max, r.Window)}, true
		}
	}
	return Violation{}, false
}
