package sim

import "math/bits"

// Coverage is the set of coverage points one run reached: a bitset
// indexed by the point's number, among the Config.Coverage points a
// protocol declares (harness.Protocol.Coverage names them). A candidate
// marks a point with Env.Coverage.Hit; marking draws no choice and writes
// no trace event, so it changes nothing in the run, its trace or its hash.
//
// The zero Coverage holds no points. A Coverage is a value: copies share
// their bits, and Clone makes one that does not.
type Coverage struct {
	n    int
	bits []uint64
}

// NewCoverage returns an empty set of n points.
func NewCoverage(n int) Coverage {
	if n <= 0 {
		return Coverage{}
	}
	return Coverage{n: n, bits: make([]uint64, (n+63)/64)}
}

// Hit marks point i as reached. It does nothing on a nil Coverage (a run
// of a protocol that declares no points) or for a point outside [0, Len),
// and allocates nothing.
func (c *Coverage) Hit(i int) {
	if c == nil || uint(i) >= uint(c.n) {
		return
	}
	c.bits[i>>6] |= 1 << (uint(i) & 63)
}

// Has reports whether point i was reached.
func (c Coverage) Has(i int) bool {
	return uint(i) < uint(c.n) && c.bits[i>>6]&(1<<(uint(i)&63)) != 0
}

// Len is the number of points declared.
func (c Coverage) Len() int { return c.n }

// Count is the number of points reached.
func (c Coverage) Count() int {
	k := 0
	for _, w := range c.bits {
		k += bits.OnesCount64(w)
	}
	return k
}

// Clone returns a copy sharing nothing with c.
func (c Coverage) Clone() Coverage {
	if c.n == 0 {
		return Coverage{}
	}
	return Coverage{n: c.n, bits: append([]uint64(nil), c.bits...)}
}

// Union adds the points o reached to c; a set of more points than c's
// widens c to o's size first.
func (c *Coverage) Union(o Coverage) {
	if o.n > c.n {
		w := make([]uint64, len(o.bits))
		copy(w, c.bits)
		c.bits, c.n = w, o.n
	}
	for i, x := range o.bits {
		c.bits[i] |= x
	}
}

// New reports how many points o reached that c did not.
func (c Coverage) New(o Coverage) int {
	k := 0
	for i, x := range o.bits {
		if i < len(c.bits) {
			x &^= c.bits[i]
		}
		k += bits.OnesCount64(x)
	}
	return k
}
