package linearizability

import (
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// LeaseCheckName is the checker of what applications were told when they
// asked the protocol whether they lead (sim.AppChecks, sim.AppPolls).
const LeaseCheckName = "lease-check"

// CheckLeaseChecks judges what applications saw when they asked: every
// fenced write whose sender asked the protocol's lease check first
// (FencedWrite.Checked) and was told it leads under the write's token must
// have been sent before any term with a higher token began. A write sent
// after such a term began means the protocol said "you lead" under a term
// that had in fact ended, or the application acted on the answer too late,
// whether or not the fence refused the write. It reports each sender's
// token once, at its first such write. It does not allocate for a history
// without such writes.
func CheckLeaseChecks(h *sim.History) []Violation {
	if h == nil || len(h.Terms) < 2 {
		return nil
	}
	var out []Violation
	type key struct {
		node  int
		token uint64
	}
	var seen map[key]bool
	for i := range h.Writes {
		w := &h.Writes[i]
		if !w.Checked {
			continue
		}
		var later *sim.Term
		for j := range h.Terms {
			t := &h.Terms[j]
			if t.Start > w.Sent {
				break // terms are recorded in the order they began
			}
			if t.Token > w.Token && (later == nil || t.Start < later.Start) {
				later = t
			}
		}
		if later == nil {
			continue
		}
		k := key{w.Node, w.Token}
		if seen[k] {
			continue
		}
		if seen == nil {
			seen = map[key]bool{}
		}
		seen[k] = true
		out = append(out, Violation{
			Checker: LeaseCheckName,
			At:      w.Sent,
			Nodes:   nodesOf(w.Node, later.Node),
			Token:   w.Token,
			Message: fmt.Sprintf("node %d asked at %v whether it leads and was told yes, under token %d; it sent its write at %v, after %s's term with token %d began at %v",
				w.Node, w.CheckedAt, w.Token, w.Sent, holderName(later), later.Token, later.Start),
		})
	}
	return out
}
