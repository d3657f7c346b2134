package faults

import (
	"math/rand/v2"
	"slices"
)

// Mutate derives choices from c, as a coverage-guided fuzzer derives an
// input from its corpus, rng choosing how: a choice set to any other in
// its range, nudged up or down, or set to 0; an element of a Repeat
// deleted or repeated; a sub-stream left out (its family off), or
// replaced by the same sub-stream of other (another corpus entry) or of
// donor (a fresh seed): a family grafted from another run. It returns
// the new choices, to be replayed with the run's own seed behind them
// (Replay), and what it did ("" if nothing: c has no choice to change).
// Like Shrink it knows nothing of what the choices mean.
func (c *Choices) Mutate(rng *rand.Rand, other, donor *Choices) (*Choices, string) {
	names := slices.DeleteFunc(c.names(), func(n string) bool { return len(c.paths[n].vals) == 0 })
	if len(names) == 0 {
		return c, ""
	}
	out := c.clone()
	name := names[rng.IntN(len(names))]
	p := out.paths[name]
	i := rng.IntN(len(p.vals))
	switch k := rng.IntN(10); {
	case k < 3:
		p.vals[i] = rng.Uint64N(p.bounds[i])
		return out, "set a choice of " + name
	case k < 5:
		step := uint64(1 + rng.IntN(4))
		if rng.IntN(2) == 0 {
			p.vals[i] -= min(step, p.vals[i])
		} else {
			p.vals[i] = min(p.vals[i]+step, p.bounds[i]-1)
		}
		return out, "nudge a choice of " + name
	case k < 6:
		p.vals[i] = 0
		return out, "zero a choice of " + name
	case k < 8 && len(p.lists) > 0:
		l := p.lists[rng.IntN(len(p.lists))]
		if len(l.elems) == 0 {
			return out, ""
		}
		span := l.elems[rng.IntN(len(l.elems))]
		if rng.IntN(2) == 0 && p.vals[l.count] > 0 {
			p.vals = slices.Concat(p.vals[:span[0]], p.vals[span[1]:])
			p.bounds = slices.Concat(p.bounds[:span[0]], p.bounds[span[1]:])
			p.lists, p.vals[l.count] = nil, p.vals[l.count]-1
			return out, "delete an element of " + name
		}
		if p.vals[l.count]+1 < p.bounds[l.count] {
			p.vals = slices.Concat(p.vals[:span[1]], p.vals[span[0]:span[1]], p.vals[span[1]:])
			p.bounds = slices.Concat(p.bounds[:span[1]], p.bounds[span[0]:span[1]], p.bounds[span[1]:])
			p.lists, p.vals[l.count] = nil, p.vals[l.count]+1
			return out, "repeat an element of " + name
		}
		return out, ""
	case k < 9:
		p.vals, p.bounds, p.lists = nil, nil, nil
		return out, "leave out " + name
	}
	from, what := donor, "a fresh seed's"
	if other != nil && rng.IntN(2) == 0 {
		from, what = other, "a corpus run's"
	}
	if from == nil || from.paths[name] == nil {
		return out, ""
	}
	q := from.paths[name]
	out.paths[name] = &path{vals: slices.Clone(q.vals), bounds: slices.Clone(q.bounds)}
	return out, "graft " + name + " of " + what
}
