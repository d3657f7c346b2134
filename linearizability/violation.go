package linearizability

import (
	"cmp"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Violation is one broken safety property, with the evidence.
type Violation struct {
	Checker string // "unique-holder", "monotonic-tokens", "fencing", "overlap", "liveness", "request-rate", ...
	// Rule names which part of a checker's property broke, where a checker
	// has several: the fencing checker's RuleStaleAccepted,
	// RuleCurrentRefused and RuleSharedEpoch.
	Rule    string        `json:",omitempty"`
	At      time.Duration // true time at which the violation is witnessed
	Nodes   []int         // nodes involved, ascending
	Token   uint64
	Message string // one readable sentence: who, which tokens, when
}

// String renders the violation as "checker at time: message".
func (v Violation) String() string {
	return v.Checker + " at " + v.At.String() + ": " + v.Message
}

// compareViolations orders violations by At, then by checker name. Used with
// a stable sort, violations a checker reported at the same instant keep the
// checker's own order.
func compareViolations(a, b Violation) int {
	return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Checker, b.Checker))
}

// nodesOf returns the distinct nodes among a and b, ascending.
func nodesOf(a, b int) []int {
	switch {
	case a == b:
		return []int{a}
	case a < b:
		return []int{a, b}
	default:
		return []int{b, a}
	}
}

// holderName names the incarnation that held a term, for messages.
func holderName(t *sim.Term) string {
	if t.Identity != "" {
		return fmt.Sprintf("node %d (identity %q, incarnation %d)", t.Node, t.Identity, t.Incarnation)
	}
	return fmt.Sprintf("node %d (incarnation %d)", t.Node, t.Incarnation)
}

// The rules of the fencing checker.
const (
	// RuleStaleAccepted: the resource accepted a write with a token lower
	// than one it had accepted before. Fencing exists to prevent exactly
	// this; it is a violation under any assumptions.
	RuleStaleAccepted = "stale-accepted"
	// RuleCurrentRefused: the resource refused a write whose token was not
	// lower than any it had accepted: the fence itself is broken.
	RuleCurrentRefused = "current-refused"
	// RuleSharedEpoch: the resource accepted writes from two nodes under one
	// token. Tokens cannot tell the two apart; it follows from a token
	// handed out twice.
	RuleSharedEpoch = "shared-epoch"
	// RuleSuperseded: the resource accepted a write that its sender sent
	// under a token whose term had been superseded: a term with a higher
	// token had already begun. The fence's own rule cannot see this when
	// the new leader has not written yet; it is the election, not the
	// fence, that failed.
	RuleSuperseded = "superseded"
)
