package sim

import (
	"math/bits"
	"time"
)

// The simulator does all arithmetic on time in integers: float64 results can
// differ between CPU architectures (fused multiply-add), which would break
// the promise that a seed gives the same trace on any machine.

func mul64(a, b uint64) (hi, lo uint64) { return bits.Mul64(a, b) }

// mulDiv returns a*b/c rounded down, or rounded up if up is set, computed in
// 128 bits. a, b >= 0, c > 0. The result saturates at the largest Duration.
func mulDiv(a, b, c int64, up bool) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return int64(^uint64(0) >> 1)
	}
	q, r := bits.Div64(hi, lo, uint64(c))
	if up && r != 0 {
		q++
	}
	if q > uint64(^uint64(0)>>1) {
		return int64(^uint64(0) >> 1)
	}
	return int64(q)
}

// ppmScale converts a duration of true time into local time on a clock whose
// rate differs from true time by ppm parts per million.
func ppmScale(d time.Duration, ppm int64) time.Duration {
	if ppm == 0 || d <= 0 {
		return d
	}
	return time.Duration(mulDiv(int64(d), 1_000_000+ppm, 1_000_000, false))
}

// ppmUnscale converts a duration of local time into the shortest duration of
// true time after which the local clock has advanced at least d.
func ppmUnscale(d time.Duration, ppm int64) time.Duration {
	if ppm == 0 || d <= 0 {
		return d
	}
	return time.Duration(mulDiv(int64(d), 1_000_000, 1_000_000+ppm, true))
}
