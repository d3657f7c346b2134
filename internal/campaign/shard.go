package campaign

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Shard is one of Count disjoint parts of a seed range: the seeds s with
// (s - start) % Count == Index. Count machines running shards 0/Count to
// Count-1/Count of one range cover it exactly once. Its text form is
// "Index/Count"; the zero Shard is invalid (the whole range is 0/1).
type Shard struct {
	Index, Count uint64
}

// Whole is the shard that is the whole range.
var Whole = Shard{Index: 0, Count: 1}

// ParseShard reads "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q is not i/n", s)
	}
	i, err1 := strconv.ParseUint(is, 10, 64)
	n, err2 := strconv.ParseUint(ns, 10, 64)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q is not i/n with non-negative integers i and n", s)
	}
	sh := Shard{Index: i, Count: n}
	if err := sh.Validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Validate reports whether 0 <= Index < Count.
func (s Shard) Validate() error {
	if s.Count == 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: need 0 <= i < n", s.Index, s.Count)
	}
	return nil
}

// String renders the shard as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// MarshalText writes the shard as "i/n".
func (s Shard) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "i/n".
func (s *Shard) UnmarshalText(b []byte) error {
	sh, err := ParseShard(string(b))
	if err != nil {
		return err
	}
	*s = sh
	return nil
}

// Owns reports whether seed belongs to the shard of the range starting at
// start.
func (s Shard) Owns(start, seed uint64) bool {
	return seed >= start && (seed-start)%s.Count == s.Index
}

// Size returns how many seeds of the range of n seeds from any start belong
// to the shard.
func (s Shard) Size(n uint64) uint64 {
	if n <= s.Index {
		return 0
	}
	return (n-s.Index-1)/s.Count + 1
}

// Seed returns the k-th seed (from 0) of the shard of the range starting at
// start.
func (s Shard) Seed(start, k uint64) uint64 { return start + s.Index + k*s.Count }

// index is the inverse of Seed for a seed the shard owns.
func (s Shard) index(start, seed uint64) uint64 { return (seed - start) / s.Count }

// Overlaps reports whether two shards of one range share a seed: the seeds
// i + a*n and j + b*m meet if and only if i and j agree modulo gcd(n, m).
func (s Shard) Overlaps(t Shard) bool {
	g := gcd(s.Count, t.Count)
	return s.Index%g == t.Index%g
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// shardSeeds is the number of seeds the shard runs: all of its part of a
// range of n seeds, or, for an unbounded range (n == 0), every seed from
// start up to the last that leaves room to step past it without overflow.
func shardSeeds(s Shard, start, n uint64) uint64 {
	if n == 0 {
		limit := uint64(math.MaxUint64) - s.Count // the last seed + Count must not overflow
		if limit < start {
			return 0
		}
		return s.Size(limit - start + 1)
	}
	return s.Size(n)
}

// doneSet is the set of a shard's completed seeds, by index within the
// shard (Shard.Seed): every index below next, and those in above (sorted,
// each above next). Workers finish out of order, but seeds are handed out
// in order, so above stays about as short as the number of workers.
type doneSet struct {
	next  uint64
	above []uint64
}

func (d *doneSet) has(k uint64) bool {
	if k < d.next {
		return true
	}
	_, found := slices.BinarySearch(d.above, k)
	return found
}

// add marks k done; it reports false if k already was.
func (d *doneSet) add(k uint64) bool {
	if k < d.next {
		return false
	}
	if k == d.next {
		d.next++
		n := 0
		for n < len(d.above) && d.above[n] == d.next {
			d.next++
			n++
		}
		d.above = append(d.above[:0], d.above[n:]...)
		return true
	}
	i, found := slices.BinarySearch(d.above, k)
	if found {
		return false
	}
	d.above = slices.Insert(d.above, i, k)
	return true
}

func (d *doneSet) count() uint64 { return d.next + uint64(len(d.above)) }
