package faults

import (
	"math/bits"
	"slices"
)

// Shrink makes choices c smaller (Smaller), as rapid and Hypothesis
// shrink theirs, by one round of passes, each choice proposed kept if try
// accepts it. try runs the choices it is given (Replay, with 0 past their
// end) and returns the choices the run drew and whether it failed as the
// first run did. A round proposes, in turn: for a sub-stream of a few
// choices (the nodes a run keeps, say), every set of them set to 0, the
// most first; each sub-stream left out whole (a family off); runs of
// choices set to 0, a sub-stream's halves first, then quarters, down to
// single choices; each element of each Repeat deleted, with its count,
// the last first; and each choice lowered, as far as it goes for a choice
// of a small range (a kind, a count, an index: a binary search), by
// halves for another (a duration, a rate). It stops early when spent
// reports the budget spent, and returns the smallest choices try accepted
// (c if none) and whether it accepted any: a caller shrinks until a round
// accepts nothing. It knows nothing of what the choices mean: it shrinks
// whatever a Source drew, every family of the generator, now and later.
func Shrink(c *Choices, try func(*Choices) (*Choices, bool), spent func() bool) (*Choices, bool) {
	sh := &shrinker{cur: c, try: try, spent: spent}
	sh.fewestChoices()
	for _, name := range sh.cur.names() {
		if len(sh.path(name).trimmed()) > 0 {
			sh.propose(name, nil)
		}
	}
	sh.zeroRuns()
	sh.deleteElements()
	sh.lower()
	return sh.cur, sh.accepted
}

type shrinker struct {
	cur      *Choices
	try      func(*Choices) (*Choices, bool)
	spent    func() bool
	accepted bool
}

// propose runs the current choices with sub-stream name's replaced by
// vals, if that is smaller, and makes what it drew current if it failed
// alike and is smaller still.
func (sh *shrinker) propose(name string, vals []uint64) bool {
	cand := sh.cur.clone()
	if p := cand.paths[name]; p != nil {
		p.vals = vals
	}
	if sh.spent() || !cand.Smaller(sh.cur) {
		return false
	}
	got, ok := sh.try(cand)
	if !ok || !got.Smaller(sh.cur) {
		return false
	}
	sh.cur, sh.accepted = got, true
	return true
}

// path is sub-stream name's current choices (none if it draws none now).
func (sh *shrinker) path(name string) *path {
	if p := sh.cur.paths[name]; p != nil {
		return p
	}
	return &path{}
}

// vals is a copy of sub-stream name's current choices.
func (sh *shrinker) vals(name string) []uint64 { return slices.Clone(sh.path(name).vals) }

// fewestChoices tries, for a sub-stream of at most maxWhole choices, every
// set of its choices set to 0, the most first.
func (sh *shrinker) fewestChoices() {
	for _, name := range sh.cur.names() {
		vals := sh.vals(name)
		var nonzero []int
		for i, v := range vals {
			if v != 0 {
				nonzero = append(nonzero, i)
			}
		}
		if len(vals) > maxWhole {
			continue
		}
		for k, done := len(nonzero), false; k > 0 && !done; k-- {
			for mask := 0; mask < 1<<len(nonzero) && !done; mask++ {
				if bits.OnesCount(uint(mask)) != k {
					continue
				}
				c := slices.Clone(vals)
				for b, i := range nonzero {
					if mask>>b&1 == 1 {
						c[i] = 0
					}
				}
				done = sh.propose(name, c)
			}
		}
	}
}

// maxWhole bounds the sub-streams fewestChoices tries whole.
const maxWhole = 5

func (sh *shrinker) zeroRuns() {
	for _, name := range sh.cur.names() {
		for size := (len(sh.path(name).trimmed()) + 1) / 2; size >= 1; size /= 2 {
			for start := 0; start < len(sh.vals(name)); start += size {
				vals := sh.vals(name)
				run := vals[start:min(start+size, len(vals))]
				if slices.ContainsFunc(run, func(v uint64) bool { return v != 0 }) {
					clear(run)
					sh.propose(name, vals)
				}
			}
		}
	}
}

func (sh *shrinker) deleteElements() {
	for _, name := range sh.cur.names() {
		for li := len(sh.path(name).lists) - 1; li >= 0; li-- {
			for ei := len(sh.path(name).lists[li].elems) - 1; ei >= 0; ei-- {
				p := sh.path(name)
				if li >= len(p.lists) || ei >= len(p.lists[li].elems) || p.vals[p.lists[li].count] == 0 {
					continue
				}
				l := p.lists[li]
				vals := slices.Concat(p.vals[:l.elems[ei][0]], p.vals[l.elems[ei][1]:])
				vals[l.count]--
				sh.propose(name, vals)
			}
		}
	}
}

// maxSearched bounds the ranges of the choices lower searches whole: a
// kind, a count, an index; a duration or a rate is halved.
const maxSearched = 256

// lower lowers each choice: as far as it goes in a small range, assuming
// that if a choice fails alike, every larger one does; by halves in
// another, while it fails alike.
func (sh *shrinker) lower() {
	for _, name := range sh.cur.names() {
		for i := 0; i < len(sh.vals(name)); i++ {
			lo, hi := uint64(0), sh.vals(name)[i] // hi fails alike
			search := sh.path(name).bounds[i] <= maxSearched
			for lo < hi && !sh.spent() {
				mid := hi / 2
				if search {
					mid = lo + (hi-lo)/2
				}
				vals := sh.vals(name)
				if i >= len(vals) {
					break
				}
				vals[i] = mid
				switch {
				case sh.propose(name, vals):
					hi = mid
				case search:
					lo = mid + 1
				default:
					lo = hi
				}
			}
		}
	}
}
