package faults

import (
	"hash/fnv"
	"math/bits"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Source is a stream of choices: every random decision the generator
// (Draw), a story or a plan's sub-plan (Within) makes is read from one, so
// that a run is a function of its choices. A choice is an integer in
// [0, n), and 0 is always the simplest answer: a family off, the fewest
// events, the earliest instant, the shortest fault, the first node.
//
// A Source has named sub-streams (Sub), one for each family of
// decisions, so that drawing more in one family never moves the draws of
// another. Where the choices come from is the Source's origin: a seed
// (NewSource: a PCG generator per sub-stream, seeded from the seed and
// the sub-stream's name), a fuzzer's bytes (FromBytes), recorded choices
// (Replay), or any Origin (FromOrigin; package harness feeds rapid's bit
// stream through one). Whatever the origin, a Source records what it
// drew (Choices), so that a run can be drawn again, shrunk and mutated.
type Source struct {
	st   *sourceState
	path string
}

// Origin answers a Source's choices: the next choice of the named
// sub-stream, in [0, n) (n >= 1). Given the same calls it must give the
// same answers.
type Origin interface {
	Choose(path string, n uint64) uint64
}

// sourceState is what every sub-stream of one Source shares.
type sourceState struct {
	origin Origin
	rec    *Choices
}

// NewSource is the stream of choices of seed: each sub-stream draws from
// a PCG generator of its own, seeded from seed and its name.
func NewSource(seed uint64) *Source { return FromOrigin(newSeedOrigin(seed)) }

// FromOrigin is the stream of choices o answers.
func FromOrigin(o Origin) *Source {
	return &Source{st: &sourceState{origin: o, rec: &Choices{}}}
}

// Sub is the sub-stream called name: its own sequence of choices, the
// same Source on every call with that name.
func (s *Source) Sub(name string) *Source {
	return &Source{st: s.st, path: s.path + "/" + name}
}

// Choices are the choices the Source has drawn so far, in every
// sub-stream.
func (s *Source) Choices() *Choices { return s.st.rec.clone() }

// Choose draws an integer in [0, n); 0 for n <= 1 (a draw still made, so
// that the sub-stream's later draws do not depend on n).
func (s *Source) Choose(n uint64) uint64 {
	v := s.st.origin.Choose(s.path, max(n, 1))
	if n <= 1 {
		v = 0
	} else if v >= n {
		v = n - 1
	}
	s.st.rec.add(s.path, v, max(n, 1))
	return v
}

// Int draws an integer in [lo, hi], lo the simplest (lo if hi <= lo).
func (s *Source) Int(lo, hi int64) int64 {
	if hi <= lo {
		s.Choose(1)
		return lo
	}
	return lo + int64(s.Choose(uint64(hi-lo)+1))
}

// Pick draws an index below n, 0 the simplest.
func (s *Source) Pick(n int) int { return int(s.Choose(uint64(max(n, 1)))) }

// OneIn reports true one time in n: false is the simpler answer.
func (s *Source) OneIn(n uint64) bool { return n > 0 && s.Choose(n) == n-1 }

// Between draws a duration in [lo, hi), lo the simplest (lo if hi <= lo).
func (s *Source) Between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		s.Choose(1)
		return lo
	}
	return lo + time.Duration(s.Choose(uint64(hi-lo)))
}

// Signed draws an integer in [-most, most], nearest 0 the simplest: 0, 1,
// -1, 2, -2, ... as the choice grows.
func (s *Source) Signed(most int64) int64 {
	v := int64(s.Choose(2*uint64(max(most, 0)) + 1))
	if v%2 == 1 {
		return (v + 1) / 2
	}
	return -v / 2
}

// Repeat draws a count in [lo, hi] and calls each for every element, in
// order. The elements' choices are recorded as spans of the sub-stream,
// which shrinking deletes one by one (lowering the count with them).
func (s *Source) Repeat(lo, hi int, each func(i int)) {
	count := int(s.Int(int64(lo), int64(hi)))
	rec := s.st.rec.path(s.path)
	l := list{count: len(rec.vals) - 1}
	for i := range count {
		begin := len(rec.vals)
		each(i)
		l.elems = append(l.elems, [2]int{begin, len(rec.vals)})
	}
	rec.lists = append(rec.lists, l)
}

// seedOrigin draws each sub-stream from a generator of its own.
type seedOrigin struct {
	seed uint64
	subs map[string]*sim.RandomChooser
}

func newSeedOrigin(seed uint64) *seedOrigin {
	return &seedOrigin{seed: seed, subs: map[string]*sim.RandomChooser{}}
}

func (o *seedOrigin) Choose(path string, n uint64) uint64 {
	c := o.subs[path]
	if c == nil {
		h := fnv.New64a()
		h.Write([]byte(path))
		c = sim.NewRandomChooser(o.seed*0x9e3779b97f4a7c15 + h.Sum64())
		o.subs[path] = c
	}
	return c.Choose(sim.ChooseSetup, n)
}

// FromBytes is the stream of a fuzzer's input: each choice, in the order
// they are drawn across every sub-stream, read from the next bytes of
// data (as many as the choice's range needs, big-endian, modulo the
// range); once data runs out, the choices of seed's stream (NewSource).
// So the empty string is the seed's own run, and a fuzzer that mutates
// the bytes mutates the run's first choices.
func FromBytes(seed uint64, data []byte) *Source {
	return FromOrigin(&bytesOrigin{data: data, seed: newSeedOrigin(seed)})
}

type bytesOrigin struct {
	data []byte
	seed *seedOrigin
}

func (o *bytesOrigin) Choose(path string, n uint64) uint64 {
	v := o.seed.Choose(path, n) // drawn always, so that the seed's later choices stay
	if len(o.data) == 0 || n <= 1 {
		return v
	}
	var b uint64
	for k := (bits.Len64(n-1) + 7) / 8; k > 0 && len(o.data) > 0; k-- {
		b = b<<8 | uint64(o.data[0])
		o.data = o.data[1:]
	}
	return b % n
}
