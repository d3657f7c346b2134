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
	nodes := 0
	for i := range h.S3 {
		nodes = max(nodes, h.S3[i].Node+1)
	}
	var out []Violation
	for n := range nodes {
		if v, ok := nodeRate(h.S3, n, rate(n)); ok {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, compareViolations)
	return out
}

// nodeRate slides the window over node n's requests among ops (in the
// order sent), without copying them: first and last walk ops, each
// stopping only at n's.
func nodeRate(ops []sim.S3Op, n int, r RequestRate) (Violation, bool) {
	if r.Zero() {
		return Violation{}, false
	}
	first, inWindow := 0, 0
	for last := range ops {
		if ops[last].Node != n {
			continue
		}
		inWindow++
		for ; ops[first].Node != n || ops[last].Call-ops[first].Call >= r.Window; first++ {
			if ops[first].Node == n {
				inWindow--
			}
		}
		if inWindow > r.Max {
			return Violation{Checker: RateCheckName, At: ops[last].Call, Nodes: []int{n},
				Message: fmt.Sprintf("n%d sent %d S3 requests from %v to %v, more than the %d in any %v the protocol allows itself",
					n, inWindow, ops[first].Call, ops[last].Call, r.Max, r.Window)}, true
		}
	}
	return Violation{}, false
}
