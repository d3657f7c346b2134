package harness

import (
	"math/bits"

	"github.com/s3lease/s3lease/faults"
)

// BytesSource reads a run's choices from bytes, as a fuzzer supplies them:
// each Int takes as many bytes as its range needs, big-endian, modulo the
// range; once the bytes run out every draw is the low end of its range. So
// every byte string is a valid run, and the empty string is the quietest.
func BytesSource(data []byte) Source { return &byteSource{data: data} }

type byteSource struct{ data []byte }

func (s *byteSource) Int(lo, hi int64, _ string) int64 {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo)
	var v uint64
	for n := bits.Len64(span); n > 0 && len(s.data) > 0; n -= 8 {
		v = v<<8 | uint64(s.data[0])
		s.data = s.data[1:]
	}
	return lo + int64(v%(span+1))
}

func (s *byteSource) Bool(label string) bool { return s.Int(0, 1, label) == 1 }

func (s *byteSource) Groups(most int, label string, one func(Source) []faults.Event) [][]faults.Event {
	out := make([][]faults.Event, s.Int(0, int64(most), label))
	for i := range out {
		out[i] = one(s)
	}
	return out
}
