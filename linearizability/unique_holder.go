package linearizability

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/s3lease/s3lease/sim"
)

// checkUniqueHolder reports every node incarnation that was handed a token
// another incarnation had been handed first, at the start of its first term
// with that token. Terms of one incarnation that carry the same token (a
// re-announced term) are fine.
func checkUniqueHolder(h *sim.History) []Violation {
	if h == nil || len(h.Terms) < 2 || uniqueHolderFast(h.Terms) {
		return nil
	}
	return uniqueHolderSlow(h.Terms)
}

// uniqueHolderFast reports, without allocating, that terms has the shape of
// every correct history: in slice order, tokens come in runs of one token,
// each run above the one before and held by one incarnation throughout.
// Then no token has two holders. A false answer proves nothing; the slow path
// decides.
func uniqueHolderFast(terms []sim.Term) bool {
	for i := 1; i < len(terms); i++ {
		p, t := &terms[i-1], &terms[i]
		if t.Token > p.Token || t.Token == p.Token && sameIncarnation(p, t) {
			continue
		}
		return false
	}
	return true
}

// uniqueHolderSlow groups terms by token and, within a token, by holding
// incarnation. The incarnation whose first term with the token started
// earliest is the rightful holder; every other one is a violation.
func uniqueHolderSlow(terms []sim.Term) []Violation {
	idx := identity(len(terms))
	slices.SortFunc(idx, func(a, b int) int {
		x, y := &terms[a], &terms[b]
		return cmp.Or(
			cmp.Compare(x.Token, y.Token),
			cmp.Compare(x.Node, y.Node),
			cmp.Compare(x.Incarnation, y.Incarnation),
			cmp.Compare(x.Start, y.Start),
			cmp.Compare(a, b),
		)
	})
	earlier := func(a, b int) int { // first term of a holder, by start
		x, y := &terms[a], &terms[b]
		return cmp.Or(
			cmp.Compare(x.Start, y.Start),
			cmp.Compare(x.Node, y.Node),
			cmp.Compare(x.Incarnation, y.Incarnation),
		)
	}
	var out []Violation
	var firsts []int // first term of each incarnation holding the current token
	for lo := 0; lo < len(idx); {
		token := terms[idx[lo]].Token
		firsts = firsts[:0]
		hi := lo
		for ; hi < len(idx) && terms[idx[hi]].Token == token; hi++ {
			if hi == lo || !sameIncarnation(&terms[idx[hi-1]], &terms[idx[hi]]) {
				firsts = append(firsts, idx[hi])
			}
		}
		lo = hi
		if len(firsts) < 2 {
			continue
		}
		first := &terms[slices.MinFunc(firsts, earlier)]
		for _, j := range firsts {
			if t := &terms[j]; t != first {
				out = append(out, uniqueHolderViolation(first, t))
			}
		}
	}
	slices.SortStableFunc(out, compareViolations)
	return out
}

func uniqueHolderViolation(first, second *sim.Term) Violation {
	return Violation{
		Checker: uniqueHolderName,
		At:      second.Start,
		Nodes:   nodesOf(first.Node, second.Node),
		Token:   second.Token,
		Message: fmt.Sprintf("%s was handed token %d at %v, but %s had already been handed it at %v: two holders of one fencing token",
			holderName(second), second.Token, second.Start, holderName(first), first.Start),
	}
}
