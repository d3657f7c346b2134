package linearizability

import (
	"slices"
	"time"

	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// shape is the least a generated history must contain for a mutation to
// apply to it.
type shape struct {
	minNodes, minTerms, minWrites int
}

// validHistory generates a history that breaks no election property: terms
// with strictly increasing start times whose tokens strictly increase (with
// gaps, as failed acquisitions consume tokens) handed to random nodes, some
// of which restart; now and then the previous term is re-announced with the
// same token; and writes, each sent by the leader of the moment under its
// token, judged in applied order by a correct fence. From the second term on, tokens differ from the first
// term's, so a history of two or more terms has two distinct tokens.
func validHistory(s shape) *rapid.Generator[*sim.History] {
	return rapid.Custom(func(t *rapid.T) *sim.History {
		h := &sim.History{Nodes: rapid.IntRange(max(s.minNodes, 1), 5).Draw(t, "nodes")}
		incarnation := make([]int, h.Nodes)
		n := rapid.IntRange(s.minTerms, 12).Draw(t, "terms")
		token := rapid.Uint64Range(0, 3).Draw(t, "firstToken")
		var now time.Duration
		for i := range n {
			now += ms(rapid.IntRange(1, 2000).Draw(t, "startGap"))
			var tr sim.Term
			if i >= 2 && rapid.IntRange(0, 4).Draw(t, "reannounce") == 0 {
				tr = h.Terms[i-1]
			} else {
				if i > 0 {
					token += rapid.Uint64Range(1, 3).Draw(t, "tokenStep")
				}
				node := rapid.IntRange(0, h.Nodes-1).Draw(t, "node")
				if rapid.IntRange(0, 5).Draw(t, "restart") == 0 {
					incarnation[node]++
				}
				tr = sim.Term{Node: node, Incarnation: incarnation[node], Token: token}
			}
			tr.Start = now
			tr.End = now + ms(rapid.IntRange(1, 3000).Draw(t, "termLength"))
			tr.Open = false
			h.Terms = append(h.Terms, tr)
		}
		h.End = now + ms(rapid.IntRange(0, 2000).Draw(t, "tail"))
		for i := range h.Terms {
			if tr := &h.Terms[i]; tr.End >= h.End {
				tr.End, tr.Open = h.End, true
			}
		}
		if n == 0 {
			return h
		}

		var applied time.Duration
		var hi uint64
		accepted := false
		for range rapid.IntRange(s.minWrites, 30).Draw(t, "writes") {
			applied += ms(rapid.IntRange(0, 500).Draw(t, "appliedGap"))
			sent := max(applied-ms(rapid.IntRange(0, 300).Draw(t, "latency")), 0)
			// The writer leads when it sends: the last term begun before
			// the send (a term no higher token has superseded), or, before
			// any, the first.
			k := 0
			for k+1 < n && h.Terms[k+1].Start < sent {
				k++
			}
			tr := h.Terms[k]
			w := sim.FencedWrite{
				Node:    tr.Node,
				Token:   tr.Token,
				Sent:    sent,
				Applied: applied,
			}
			if !accepted || w.Token >= hi {
				w.Accepted, accepted, hi = true, true, w.Token
			}
			h.Writes = append(h.Writes, w)
		}
		return h
	})
}

// mutation breaks a valid history in one named way that the named checker
// must report.
type mutation struct {
	name    string
	checker string
	needs   shape
	apply   func(t *rapid.T, h *sim.History)
}

var mutations = []mutation{
	{
		name:    "duplicate-token-on-other-node",
		checker: uniqueHolderName,
		needs:   shape{minNodes: 2, minTerms: 1},
		apply: func(t *rapid.T, h *sim.History) {
			orig := h.Terms[rapid.IntRange(0, len(h.Terms)-1).Draw(t, "victim")]
			dup := orig
			dup.Node = (orig.Node + rapid.IntRange(1, h.Nodes-1).Draw(t, "otherNode")) % h.Nodes
			dup.Incarnation = rapid.IntRange(0, 2).Draw(t, "incarnation")
			dup.Start += ms(rapid.IntRange(0, 3000).Draw(t, "delay"))
			dup.End = dup.Start + ms(rapid.IntRange(1, 3000).Draw(t, "termLength"))
			insertTerm(h, dup)
		},
	},
	{
		name:    "restart-reuses-token",
		checker: uniqueHolderName,
		needs:   shape{minTerms: 1},
		apply: func(t *rapid.T, h *sim.History) {
			orig := h.Terms[rapid.IntRange(0, len(h.Terms)-1).Draw(t, "victim")]
			dup := orig
			for _, tr := range h.Terms {
				if tr.Node == orig.Node {
					dup.Incarnation = max(dup.Incarnation, tr.Incarnation+1)
				}
			}
			dup.Start += ms(rapid.IntRange(1, 3000).Draw(t, "delay"))
			dup.End = dup.Start + ms(rapid.IntRange(1, 3000).Draw(t, "termLength"))
			insertTerm(h, dup)
		},
	},
	{
		name:    "swap-two-terms-tokens",
		checker: monotonicTokensName,
		needs:   shape{minTerms: 2},
		apply: func(t *rapid.T, h *sim.History) {
			var pairs [][2]int
			for i := range h.Terms {
				for j := i + 1; j < len(h.Terms); j++ {
					if h.Terms[i].Token != h.Terms[j].Token {
						pairs = append(pairs, [2]int{i, j})
					}
				}
			}
			p := rapid.SampledFrom(pairs).Draw(t, "pair")
			a, b := &h.Terms[p[0]], &h.Terms[p[1]]
			a.Token, b.Token = b.Token, a.Token
		},
	},
	{
		name:    "accept-stale-write",
		checker: fencingName,
		needs:   shape{minTerms: 2},
		apply: func(t *rapid.T, h *sim.History) {
			// Somewhere in applied order, have the resource accept a
			// token below the highest it accepted, first accepting a
			// higher one if it has not.
			lo := h.Terms[0]
			higher := slices.IndexFunc(h.Terms, func(tr sim.Term) bool { return tr.Token > lo.Token })
			hiTerm := h.Terms[higher]
			p := rapid.IntRange(0, len(h.Writes)).Draw(t, "position")
			var top uint64
			var at time.Duration
			for _, w := range h.Writes[:p] {
				if w.Accepted {
					top = max(top, w.Token)
				}
				at = w.Applied
			}
			var ins []sim.FencedWrite
			if top <= lo.Token {
				ins = append(ins, sim.FencedWrite{Node: hiTerm.Node, Token: hiTerm.Token, Sent: at, Applied: at, Accepted: true})
			}
			ins = append(ins, sim.FencedWrite{Node: lo.Node, Token: lo.Token, Sent: at, Applied: at, Accepted: true})
			h.Writes = slices.Insert(h.Writes, p, ins...)
		},
	},
	{
		name:    "reject-current-write",
		checker: fencingName,
		needs:   shape{minTerms: 1, minWrites: 1},
		apply: func(t *rapid.T, h *sim.History) {
			var acc []int // the first write is always accepted
			for i, w := range h.Writes {
				if w.Accepted {
					acc = append(acc, i)
				}
			}
			h.Writes[rapid.SampledFrom(acc).Draw(t, "victim")].Accepted = false
		},
	},
	{
		name:    "second-writer-under-one-token",
		checker: fencingName,
		needs:   shape{minNodes: 2, minTerms: 1, minWrites: 1},
		apply: func(t *rapid.T, h *sim.History) {
			// Right after an accepted write, another node writes under the
			// same token, which a fence by tokens alone must accept.
			var acc []int
			for i, w := range h.Writes {
				if w.Accepted {
					acc = append(acc, i)
				}
			}
			i := rapid.SampledFrom(acc).Draw(t, "victim")
			w := h.Writes[i]
			w.Node = (w.Node + rapid.IntRange(1, h.Nodes-1).Draw(t, "otherNode")) % h.Nodes
			h.Writes = slices.Insert(h.Writes, i+1, w)
		},
	},
}

// insertTerm adds tr to h.Terms, keeping them in the order they began.
func insertTerm(h *sim.History, tr sim.Term) {
	i, _ := slices.BinarySearchFunc(h.Terms, tr.Start, func(x sim.Term, start time.Duration) int {
		if x.Start <= start {
			return -1
		}
		return 1
	})
	h.Terms = slices.Insert(h.Terms, i, tr)
	if tr.End > h.End {
		h.End = tr.End
	}
}
