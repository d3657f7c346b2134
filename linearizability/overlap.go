package linearizability

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Overlap is an interval of true time during which two nodes both believed
// they led.
type Overlap struct {
	Nodes  [2]int
	Tokens [2]uint64
	From   time.Duration
	To     time.Duration
}

// String describes the overlap in one sentence.
func (o Overlap) String() string {
	return fmt.Sprintf("n%d (token %d) and n%d (token %d) both led from %v to %v (%v)",
		o.Nodes[0], o.Tokens[0], o.Nodes[1], o.Tokens[1], o.From, o.To, o.To-o.From)
}

// Overlaps returns every pair of terms of different nodes that overlap in
// true time. Terms are taken as half-open intervals [Start, End): a term
// that ends at the instant another begins does not overlap it.
func Overlaps(h *sim.History) []Overlap {
	var out []Overlap
	terms := h.Terms
	for i := range terms {
		a := &terms[i]
		for j := i + 1; j < len(terms); j++ {
			b := &terms[j]
			if a.Node == b.Node {
				continue
			}
			from, to := max(a.Start, b.Start), min(a.End, b.End)
			if from < to {
				out = append(out, Overlap{Nodes: [2]int{a.Node, b.Node}, Tokens: [2]uint64{a.Token, b.Token}, From: from, To: to})
			}
		}
	}
	return out
}

// OverlapViolations turns overlaps into violations of the "overlap"
// property: two leaders at the same true instant, which a protocol must rule
// out while the run stays inside its assumptions.
func OverlapViolations(os []Overlap) []Violation {
	out := make([]Violation, 0, len(os))
	for _, o := range os {
		out = append(out, Violation{Checker: "overlap", At: o.From, Nodes: nodesOf(o.Nodes[0], o.Nodes[1]),
			Token: max(o.Tokens[0], o.Tokens[1]), Message: o.String()})
	}
	return out
}

// CheckLiveness checks that, once faults healed at healAt, a leader emerged
// within bound and kept leading: some term began no later than healAt+bound
// and was still open when the run ended. A run too short to tell (it ended
// before healAt+bound) is not judged.
func CheckLiveness(h *sim.History, healAt, bound time.Duration) []Violation {
	by := healAt + bound
	if h.End <= by {
		return nil
	}
	for _, t := range h.Terms {
		if t.Open && t.Start <= by {
			return nil
		}
	}
	msg := fmt.Sprintf("no node led continuously from %v (faults healed at %v, bound %v) to the end at %v", by, healAt, bound, h.End)
	if n := len(h.Terms); n > 0 {
		t := h.Terms[n-1]
		end := "still open"
		if !t.Open {
			end = "ended at " + t.End.String()
		}
		msg += fmt.Sprintf("; the last term was n%d's (token %d) from %v, %s", t.Node, t.Token, t.Start, end)
	} else {
		msg += "; no node ever led"
	}
	return []Violation{{Checker: "liveness", At: by, Message: msg}}
}
