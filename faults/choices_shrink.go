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
// the last first; each choice halved, again and again; and, only when
// those make no progress, each choice of a small range lowered as far as
// it goes (a binary search). It stops early when spent reports the budget
// spent, and returns the smallest choices try accepted (c if none) and
// whether it accepted any: a caller shrinks until a round accepts
// nothing. It knows nothing of what the choices mean: it shrinks whatever
// a Source drew, every family of the generator, now and later.
func Shrink(c *Choices, try func(*Choices) (*Choices, bool), spent func() bool) (*Choices, bool) {
	sh := &shrinker{cur: c, try: try, spent: spent}
	sh.fewestChoices()
	sh.dropPaths()
	sh.zeroRuns()
	sh.deleteElements()
	sh.halve()
	if sh.accepted == 0 {
		sh.lower()
	}
	return sh.cur, sh.accepted > 0
}

type shrinker struct {
	cur      *Choices
	try      func(*Choices) (*Choices, bool)
	spent    func() bool
	accepted int
}

// propose runs cand if it is smaller than the current choices, and makes
// what it drew current if it failed alike and is smaller still.
func (sh *shrinker) propose(cand *Choices) bool {
	if sh.spent() || !cand.Smaller(sh.cur) {
		return false
	}
	got, ok := sh.try(cand)
	if !ok || !got.Smaller(sh.cur) {
		return false
	}
	sh.cur = got
	sh.accepted++
	return true
}

// with is the current choices with sub-stream name's choices replaced.
func (sh *shrinker) with(name string, vals []uint64) *Choices {
	c := sh.cur.clone()
	c.paths[name].vals = vals
	return c
}

func (sh *shrinker) dropPaths() {
	for _, name := range sh.cur.names() {
		if p := sh.cur.paths[name]; p != nil && len(p.trimmed()) > 0 {
			sh.propose(sh.with(name, nil))
		}
	}
}

// fewestChoices tries, for a sub-stream of at most maxWhole choices (the
// nodes a run keeps, say), every set of its choices set to 0, the most
// first.
func (sh *shrinker) fewestChoices() {
	for _, name := range sh.cur.names() {
		p := sh.cur.paths[name]
		if n := len(p.vals); n == 0 || n > maxWhole {
			continue
		}
		var nonzero []int
		for i, v := range p.vals {
			if v != 0 {
				nonzero = append(nonzero, i)
			}
		}
		done := false
		for k := len(nonzero); k > 0 && !done; k-- {
			for mask := range 1 << len(nonzero) {
				if bits.OnesCount(uint(mask)) != k {
					continue
				}
				vals := slices.Clone(p.vals)
				for b, i := range nonzero {
					if mask>>b&1 == 1 {
						vals[i] = 0
					}
				}
				if done = sh.propose(sh.with(name, vals)); done {
					break
				}
			}
		}
	}
}

// maxWhole bounds the sub-streams fewestChoices tries whole.
const maxWhole = 5

func (sh *shrinker) deleteElements() {
	for _, name := range sh.cur.names() {
		for li := len(sh.pathLists(name)) - 1; li >= 0; li-- {
			for ei := len(sh.list(name, li).elems) - 1; ei >= 0; ei-- {
				l, p := sh.list(name, li), sh.cur.paths[name]
				if ei >= len(l.elems) || p.vals[l.count] == 0 {
					continue
				}
				span := l.elems[ei]
				vals := slices.Concat(p.vals[:span[0]], p.vals[span[1]:])
				vals[l.count]--
				sh.propose(sh.with(name, vals))
			}
		}
	}
}

func (sh *shrinker) pathLists(name string) []list {
	if p := sh.cur.paths[name]; p != nil {
		return p.lists
	}
	return nil
}

func (sh *shrinker) list(name string, i int) list {
	if ls := sh.pathLists(name); i < len(ls) {
		return ls[i]
	}
	return list{}
}

func (sh *shrinker) zeroRuns() {
	for _, name := range sh.cur.names() {
		for size := (len(sh.cur.paths[name].trimmed()) + 1) / 2; size >= 1; size /= 2 {
			for start := 0; ; start += size {
				p := sh.cur.paths[name]
				if p == nil || start >= len(p.vals) {
					break
				}
				end := min(start+size, len(p.vals))
				if !slices.ContainsFunc(p.vals[start:end], func(v uint64) bool { return v != 0 }) {
					continue
				}
				vals := slices.Clone(p.vals)
				clear(vals[start:end])
				sh.propose(sh.with(name, vals))
			}
			if size == 1 {
				break
			}
		}
	}
}

func (sh *shrinker) halve() {
	for _, name := range sh.cur.names() {
		for i := 0; ; i++ {
			p := sh.cur.paths[name]
			if p == nil || i >= len(p.vals) {
				break
			}
			for p := sh.cur.paths[name]; p != nil && i < len(p.vals) && p.vals[i] > 1; p = sh.cur.paths[name] {
				vals := slices.Clone(p.vals)
				vals[i] /= 2
				if !sh.propose(sh.with(name, vals)) {
					break
				}
			}
		}
	}
}

// maxLowered bounds the ranges of the choices lower searches: a kind, a
// count, an index (a duration or a rate is only halved).
const maxLowered = 256

// lower lowers each choice of a range of at most maxLowered as far as it
// goes, assuming that if a choice fails alike, every larger one does.
func (sh *shrinker) lower() {
	for _, name := range sh.cur.names() {
		for i := 0; ; i++ {
			p := sh.cur.paths[name]
			if p == nil || i >= len(p.vals) {
				break
			}
			if p.bounds[i] > maxLowered {
				continue // a duration or a rate: halving it is enough
			}
			lo, hi := uint64(0), p.vals[i] // hi fails alike; is anything below it?
			for lo < hi && !sh.spent() {
				mid := lo + (hi-lo)/2
				vals := slices.Clone(sh.cur.paths[name].vals)
				if i >= len(vals) {
					break
				}
				vals[i] = mid
				if sh.propose(sh.with(name, vals)) {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
		}
	}
}
