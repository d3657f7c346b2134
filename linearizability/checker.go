package linearizability

import (
	"slices"

	"github.com/s3lease/s3lease/sim"
)

// Checker is one named safety property over a run's history.
type Checker struct {
	Name  string
	Doc   string                           // one sentence, for `simrun list`-style output
	Check func(h *sim.History) []Violation // nil or empty when the property holds
	_     struct{}
}

// Checker names, as they appear in Violation.Checker.
const (
	uniqueHolderName    = "unique-holder"
	monotonicTokensName = "monotonic-tokens"
	fencingName         = "fencing"
)

// electionCheckers is the fixed list behind ElectionCheckers and
// CheckElection; it is never handed out, so callers cannot change it.
var electionCheckers = [...]Checker{
	{
		Name:  uniqueHolderName,
		Doc:   "At most one node incarnation is ever handed a given fencing token.",
		Check: checkUniqueHolder,
	},
	{
		Name:  monotonicTokensName,
		Doc:   "Fencing tokens of successive acquisitions strictly increase, across releases, crashes and restarts.",
		Check: checkMonotonicTokens,
	},
	{
		Name:  fencingName,
		Doc:   "The fenced resource accepts no stale write, refuses no current one, and takes each token's writes from one node only.",
		Check: checkFencing,
	},
}

// ElectionCheckers returns the election safety checkers in a fixed order:
// unique-holder, monotonic-tokens, fencing. The slice is a fresh copy on each
// call.
func ElectionCheckers() []Checker {
	return slices.Clone(electionCheckers[:])
}

// CheckElection runs every election checker on h and returns all violations,
// sorted by At and then by Checker name (stably, so one checker's violations
// at the same instant keep its order). It returns nil for a safe history and
// does not allocate when h is safe and its terms and writes are recorded in
// order. h is not modified.
func CheckElection(h *sim.History) []Violation {
	var out []Violation
	for i := range electionCheckers {
		out = append(out, electionCheckers[i].Check(h)...)
	}
	if len(out) > 1 {
		slices.SortStableFunc(out, compareViolations)
	}
	return out
}

// sameIncarnation reports whether two terms were held by the same node
// incarnation.
func sameIncarnation(a, b *sim.Term) bool {
	return a.Node == b.Node && a.Incarnation == b.Incarnation
}

// identity returns 0, 1, ..., n-1: the starting point of an index sort that
// leaves the history itself untouched.
func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
