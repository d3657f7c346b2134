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
