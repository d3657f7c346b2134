package linearizability

import (
	"fmt"
	"slices"

	"github.com/s3lease/s3lease/sim"
)

// checkMonotonicTokens walks the terms in order of Start (ties by Node) and
// reports the first term whose token is not strictly above every token
// handed out before it. A term of the incarnation that holds the highest
// token so far, carrying that same token, is a re-announced term, not a new
// acquisition, and is allowed.
//
// Only the first offending term is reported: once the sequence is broken
// (say, the tokens restarted from zero), every later term would be judged
// against the broken prefix and the report would be mostly echoes.
//
// Within a valid prefix all terms since the first one carrying the highest
// token carry that token and belong to its incarnation, so "same incarnation
// as the highest token's first term" is exactly "same token as this
// incarnation's previous term".
func checkMonotonicTokens(h *sim.History) []Violation {
	if h == nil || len(h.Terms) < 2 {
		return nil
	}
	terms := h.Terms
	var idx []int // nil: terms are already in start order
	for i := 1; i < len(terms); i++ {
		if startsBefore(&terms[i], &terms[i-1]) {
			idx = identity(len(terms))
			slices.SortStableFunc(idx, func(a, b int) int {
				switch {
				case startsBefore(&terms[a], &terms[b]):
					return -1
				case startsBefore(&terms[b], &terms[a]):
					return 1
				}
				return 0
			})
			break
		}
	}
	at := func(k int) *sim.Term {
		if idx == nil {
			return &terms[k]
		}
		return &terms[idx[k]]
	}
	top := at(0) // first term carrying the highest token so far
	for k := 1; k < len(terms); k++ {
		t := at(k)
		switch {
		case t.Token > top.Token:
			top = t
		case t.Token == top.Token && sameIncarnation(t, top):
			// re-announced term
		default:
			return []Violation{monotonicViolation(top, t)}
		}
	}
	return nil
}

// startsBefore is the order of terms for this checker: by Start, then Node.
func startsBefore(a, b *sim.Term) bool {
	return a.Start < b.Start || a.Start == b.Start && a.Node < b.Node
}

func monotonicViolation(top, t *sim.Term) Violation {
	var msg string
	if t.Token < top.Token {
		msg = fmt.Sprintf("%s was handed token %d at %v, below token %d handed to %s at %v: tokens of successive acquisitions must strictly increase",
			holderName(t), t.Token, t.Start, top.Token, holderName(top), top.Start)
	} else {
		msg = fmt.Sprintf("%s was handed token %d at %v, the same token %s was handed at %v: a new acquisition must get a higher token",
			holderName(t), t.Token, t.Start, holderName(top), top.Start)
	}
	return Violation{
		Checker: monotonicTokensName,
		At:      t.Start,
		Nodes:   nodesOf(top.Node, t.Node),
		Token:   t.Token,
		Message: msg,
	}
}
