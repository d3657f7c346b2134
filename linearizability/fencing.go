package linearizability

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// checkFencing replays the writes in Applied order (stably, so writes
// applied at the same instant keep their recorded order) against the rule of
// a fenced resource: accept a token if and only if it is at least the
// highest token accepted so far. It reports
//
//   - (a) every accepted write whose token is below one accepted before it:
//     a stale write got through;
//   - (b) every rejected write whose token was at least the highest accepted
//     so far: the resource refused a current leader;
//   - (c) for every token, every node other than the first whose writes
//     under that token were accepted: two nodes wrote under one epoch.
func checkFencing(h *sim.History) []Violation {
	if h == nil || len(h.Writes) == 0 {
		return nil
	}
	writes := h.Writes
	var idx []int // nil: writes are already in applied order
	for i := 1; i < len(writes); i++ {
		if writes[i].Applied < writes[i-1].Applied {
			idx = identity(len(writes))
			slices.SortStableFunc(idx, func(a, b int) int {
				return cmp.Compare(writes[a].Applied, writes[b].Applied)
			})
			break
		}
	}
	at := func(k int) *sim.FencedWrite {
		if idx == nil {
			return &writes[k]
		}
		return &writes[idx[k]]
	}

	var out []Violation
	var top *sim.FencedWrite // first accepted write carrying the highest accepted token
	// sharedToken: some accepted write may share its token with another
	// node's accepted write. While accepted tokens never go down, equal
	// tokens are adjacent and comparing with top decides; after a stale
	// accept they need not be, and the grouping pass below decides.
	sharedToken := false
	for k := range len(writes) {
		w := at(k)
		switch {
		case w.Accepted && top != nil && w.Token < top.Token:
			out = append(out, staleAcceptViolation(top, w))
			sharedToken = true
		case w.Accepted:
			if top == nil || w.Token > top.Token {
				top = w
			} else if w.Node != top.Node {
				sharedToken = true
			}
		case top == nil || w.Token >= top.Token:
			out = append(out, currentRejectViolation(top, w))
		}
	}
	if sharedToken {
		out = append(out, sharedTokenViolations(writes, idx)...)
	}
	if sup := supersededViolations(h); len(sup) > 0 {
		out = append(out, sup...)
	}
	if len(out) > 1 {
		slices.SortStableFunc(out, compareViolations)
	}
	return out
}

// supersededViolations reports every accepted write sent under a token
// after a term with a higher token had begun: the sender acted on a lease
// the election had already handed on, whatever the fence made of it. It
// reports each sender's token once, at its first such write.
func supersededViolations(h *sim.History) []Violation {
	if len(h.Terms) < 2 {
		return nil
	}
	// Terms are recorded in the order they began; top[i] is the term with
	// the highest token among the first i+1.
	var buf [64]int // no allocation for the usual number of terms
	top := buf[:0]
	if len(h.Terms) > len(buf) {
		top = make([]int, 0, len(h.Terms))
	}
	for i := range h.Terms {
		top = append(top, i)
		if i > 0 && h.Terms[top[i-1]].Token >= h.Terms[i].Token {
			top[i] = top[i-1]
		}
	}
	var out []Violation
	type key struct {
		node  int
		token uint64
	}
	var seen map[key]bool
	for i := range h.Writes {
		w := &h.Writes[i]
		if !w.Accepted {
			continue
		}
		// The last term that began strictly before the write was sent.
		n, _ := slices.BinarySearchFunc(h.Terms, w.Sent, func(t sim.Term, at time.Duration) int { return cmp.Compare(t.Start, at) })
		if n == 0 {
			continue
		}
		t := &h.Terms[top[n-1]]
		if t.Token <= w.Token {
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
			Checker: fencingName,
			Rule:    RuleSuperseded,
			At:      w.Sent,
			Nodes:   nodesOf(w.Node, t.Node),
			Token:   w.Token,
			Message: fmt.Sprintf("node %d sent a write under token %d at %v, after node %d's term with token %d began at %v, and the resource accepted it at %v: the election had handed the lease on",
				w.Node, w.Token, w.Sent, t.Node, t.Token, t.Start, w.Applied),
		})
	}
	return out
}

// sharedTokenViolations implements (c): it groups the accepted writes by
// token and node and reports, for each token, every node but the one that
// wrote under it first, at that node's first accepted write under it.
func sharedTokenViolations(writes []sim.FencedWrite, order []int) []Violation {
	if order == nil {
		order = identity(len(writes))
	}
	rank := make([]int, len(writes)) // position of each write in applied order
	var acc []int
	for k, i := range order {
		rank[i] = k
		if writes[i].Accepted {
			acc = append(acc, i)
		}
	}
	slices.SortFunc(acc, func(a, b int) int {
		return cmp.Or(
			cmp.Compare(writes[a].Token, writes[b].Token),
			cmp.Compare(writes[a].Node, writes[b].Node),
			cmp.Compare(rank[a], rank[b]),
		)
	})
	var out []Violation
	var firsts []int // first accepted write of each node under the current token
	for lo := 0; lo < len(acc); {
		token := writes[acc[lo]].Token
		firsts = firsts[:0]
		hi := lo
		for ; hi < len(acc) && writes[acc[hi]].Token == token; hi++ {
			if hi == lo || writes[acc[hi]].Node != writes[acc[hi-1]].Node {
				firsts = append(firsts, acc[hi])
			}
		}
		lo = hi
		if len(firsts) < 2 {
			continue
		}
		first := slices.MinFunc(firsts, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) })
		for _, j := range firsts {
			if j != first {
				out = append(out, sharedTokenViolation(&writes[first], &writes[j]))
			}
		}
	}
	return out
}

func staleAcceptViolation(top, w *sim.FencedWrite) Violation {
	return Violation{
		Checker: fencingName,
		Rule:    RuleStaleAccepted,
		At:      w.Applied,
		Nodes:   nodesOf(top.Node, w.Node),
		Token:   w.Token,
		Message: fmt.Sprintf("the resource accepted node %d's write with stale token %d at %v (sent at %v) after accepting token %d from node %d at %v",
			w.Node, w.Token, w.Applied, w.Sent, top.Token, top.Node, top.Applied),
	}
}

func currentRejectViolation(top, w *sim.FencedWrite) Violation {
	v := Violation{
		Checker: fencingName,
		Rule:    RuleCurrentRefused,
		At:      w.Applied,
		Nodes:   []int{w.Node},
		Token:   w.Token,
	}
	if top == nil {
		v.Message = fmt.Sprintf("the resource rejected node %d's write with token %d at %v although it had accepted no write yet: the fence wrongly refused a current leader",
			w.Node, w.Token, w.Applied)
		return v
	}
	v.Nodes = nodesOf(top.Node, w.Node)
	v.Message = fmt.Sprintf("the resource rejected node %d's write with token %d at %v although the highest token it had accepted was %d (from node %d at %v): the fence wrongly refused a current leader",
		w.Node, w.Token, w.Applied, top.Token, top.Node, top.Applied)
	return v
}

func sharedTokenViolation(first, w *sim.FencedWrite) Violation {
	return Violation{
		Checker: fencingName,
		Rule:    RuleSharedEpoch,
		At:      w.Applied,
		Nodes:   nodesOf(first.Node, w.Node),
		Token:   w.Token,
		Message: fmt.Sprintf("the resource accepted writes under token %d from node %d (first at %v) and from node %d (first at %v): two nodes wrote under one epoch",
			w.Token, first.Node, first.Applied, w.Node, w.Applied),
	}
}
