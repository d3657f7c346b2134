package sim

import "math"

// Coverage is what one run reached of the coverage points a protocol
// declares (Config.Coverage; harness.Protocol.Coverage names them): for
// each point, by its number, how many times the run reached it. A
// candidate marks a point with Env.Coverage.Hit; marking draws no choice
// and writes no trace event, so it changes nothing in the run, its trace
// or its hash.
//
// The zero Coverage holds no points. A Coverage is a value: copies share
// their counts, and Clone makes one that does not.
type Coverage struct {
	counts []uint32
}

// NewCoverage returns an empty set of n points.
func NewCoverage(n int) Coverage {
	if n <= 0 {
		return Coverage{}
	}
	return Coverage{counts: make([]uint32, n)}
}

// Hit counts one more reach of point i. It does nothing on a nil Coverage
// (a run of a protocol that declares no points) or for a point outside
// [0, Len), and allocates nothing.
func (c *Coverage) Hit(i int) {
	if c == nil || uint(i) >= uint(len(c.counts)) {
		return
	}
	if c.counts[i] < math.MaxUint32 {
		c.counts[i]++
	}
}

// Has reports whether point i was reached.
func (c Coverage) Has(i int) bool { return uint(i) < uint(len(c.counts)) && c.counts[i] > 0 }

// Hits is the number of times point i was reached (at most MaxUint32).
func (c Coverage) Hits(i int) uint32 {
	if uint(i) >= uint(len(c.counts)) {
		return 0
	}
	return c.counts[i]
}

// Len is the number of points declared.
func (c Coverage) Len() int { return len(c.counts) }

// Count is the number of points reached.
func (c Coverage) Count() int {
	k := 0
	for _, n := range c.counts {
		if n > 0 {
			k++
		}
	}
	return k
}

// Clone returns a copy sharing nothing with c.
func (c Coverage) Clone() Coverage {
	if len(c.counts) == 0 {
		return Coverage{}
	}
	return Coverage{counts: append([]uint32(nil), c.counts...)}
}

// Add adds o's counts to c's (saturating), widening c to o's points if it
// has fewer.
func (c *Coverage) Add(o Coverage) {
	if len(o.counts) > len(c.counts) {
		c.counts = append(c.counts, make([]uint32, len(o.counts)-len(c.counts))...)
	}
	for i, n := range o.counts {
		c.counts[i] = uint32(min(uint64(c.counts[i])+uint64(n), math.MaxUint32))
	}
}
