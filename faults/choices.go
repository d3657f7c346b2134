package faults

import (
	"maps"
	"math/bits"
	"slices"
)

// Choices are the choices a Source drew, by sub-stream, with the range of
// each and the spans of the elements of every Repeat: what makes a run
// drawn again (Replay), smaller (Shrink) or different (Mutate). Choices
// are compared by size (Smaller): fewer choices, then lower ones.
type Choices struct {
	paths map[string]*path
	seq   []string // the sub-stream of every choice, in the order drawn
}

// path is one sub-stream's choices.
type path struct {
	vals, bounds []uint64
	lists        []list
}

// list is a Repeat: the index of its count and its elements' spans.
type list struct {
	count int
	elems [][2]int
}

func (c *Choices) path(name string) *path {
	if c.paths == nil {
		c.paths = map[string]*path{}
	}
	p := c.paths[name]
	if p == nil {
		p = &path{}
		c.paths[name] = p
	}
	return p
}

func (c *Choices) add(name string, v, n uint64) {
	p := c.path(name)
	p.vals, p.bounds = append(p.vals, v), append(p.bounds, n)
	c.seq = append(c.seq, name)
}

// names are the sub-streams, sorted.
func (c *Choices) names() []string { return slices.Sorted(maps.Keys(c.paths)) }

func (c *Choices) clone() *Choices {
	out := &Choices{paths: map[string]*path{}, seq: slices.Clone(c.seq)}
	for name, p := range c.paths {
		q := &path{vals: slices.Clone(p.vals), bounds: slices.Clone(p.bounds)}
		for _, l := range p.lists {
			q.lists = append(q.lists, list{count: l.count, elems: slices.Clone(l.elems)})
		}
		out.paths[name] = q
	}
	return out
}

// trimmed is p's choices without the zeros at its end, which a replay
// reads past the end anyway.
func (p *path) trimmed() []uint64 {
	v := p.vals
	for len(v) > 0 && v[len(v)-1] == 0 {
		v = v[:len(v)-1]
	}
	return v
}

// Smaller reports whether c is smaller than d: fewer choices that are
// not trailing zeros, or as many and, sub-stream by sub-stream in name
// order, the first that differs lower.
func (c *Choices) Smaller(d *Choices) bool {
	size := func(x *Choices) (n int) {
		for _, p := range x.paths {
			n += len(p.trimmed())
		}
		return n
	}
	if a, b := size(c), size(d); a != b {
		return a < b
	}
	names := slices.Compact(slices.Sorted(slices.Values(append(c.names(), d.names()...))))
	for _, name := range names {
		var a, b []uint64
		if p := c.paths[name]; p != nil {
			a = p.trimmed()
		}
		if p := d.paths[name]; p != nil {
			b = p.trimmed()
		}
		if r := slices.Compare(a, b); r != 0 {
			return r < 0
		}
	}
	return false
}

// Replay is the stream of choices c: each sub-stream's recorded choices
// in order (a choice beyond its new range reads as the largest in it),
// then, past the end of what was recorded, the choices of fallback, or 0
// if fallback is nil.
func Replay(c *Choices, fallback *Source) *Source {
	o := &replayOrigin{c: c, at: map[string]int{}}
	if fallback != nil {
		o.fallback = fallback.st.origin
	}
	return FromOrigin(o)
}

type replayOrigin struct {
	c        *Choices
	at       map[string]int
	fallback Origin
}

func (o *replayOrigin) Choose(name string, n uint64) uint64 {
	i := o.at[name]
	o.at[name] = i + 1
	if p := o.c.paths[name]; p != nil && i < len(p.vals) {
		return p.vals[i]
	}
	if o.fallback != nil {
		return o.fallback.Choose(name, n)
	}
	return 0
}

// Bytes writes c as the bytes FromBytes reads: every choice in the order
// drawn, in as many bytes as its range needs. FromBytes(seed, c.Bytes())
// draws what c drew, for any seed.
func (c *Choices) Bytes() []byte {
	var out []byte
	at := map[string]int{}
	for _, name := range c.seq {
		p := c.paths[name]
		i := at[name]
		at[name] = i + 1
		v, n := p.vals[i], p.bounds[i]
		for k := (bits.Len64(n-1) + 7) / 8; k > 0; k-- {
			out = append(out, byte(v>>(8*(k-1))))
		}
	}
	return out
}
