package protocol

import (
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestDerivedBounds: over every lease up to MaxLeaseDuration and every
// drift bound up to MaxClockDriftPPM, DriftMargin, TermLength and PauseBound
// are the exact figures (no overflow), the margin is there whenever the
// drift bound is (and never eats the lease), a term cut to the margin ends
// before any follower's wait in true time, and the pause bound leaves the
// pause it promises between the two.
func TestDerivedBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lease := time.Duration(rapid.OneOf(rapid.Int64Range(1, int64(MaxLeaseDuration)), rapid.Int64Range(1, 1000),
			rapid.SampledFrom([]int64{1, int64(time.Second), int64(MaxLeaseDuration)})).Draw(t, "lease"))
		ppm := rapid.OneOf(rapid.Int64Range(0, MaxClockDriftPPM), rapid.SampledFrom([]int64{0, 1, MaxClockDriftPPM})).Draw(t, "ppm")
		renew := time.Duration(rapid.OneOf(rapid.Int64Range(1, int64(lease)), rapid.Just(int64(lease))).Draw(t, "renew deadline"))

		margin, term := DriftMargin(lease, ppm), TermLength(lease, renew, ppm)
		l := big.NewInt(int64(lease))
		// margin = ceil(lease*2*ppm/(1e6+ppm))
		want := new(big.Int).Mul(l, big.NewInt(2*ppm))
		want.Add(want, big.NewInt(1_000_000+ppm-1)).Quo(want, big.NewInt(1_000_000+ppm))
		if want.Cmp(big.NewInt(int64(margin))) != 0 {
			t.Fatalf("DriftMargin(%v, %d) = %d, want %v", lease, ppm, margin, want)
		}
		if (margin > 0) != (ppm > 0) || margin >= lease && lease > 1 {
			t.Fatalf("DriftMargin(%v, %d) = %v: no margin, or all of the lease", lease, ppm, margin)
		}
		if term != min(renew, lease-margin) || term < 0 || term == 0 && lease > 1 {
			t.Fatalf("TermLength(%v, %v, %d) = %v", lease, renew, ppm, term)
		}
		// term/(1-rho) <= lease/(1+rho): the term ends before any follower's wait.
		slow := new(big.Rat).SetFrac(mul(big.NewInt(int64(term)), 1_000_000), big.NewInt(1_000_000-ppm))
		fast := new(big.Rat).SetFrac(mul(l, 1_000_000), big.NewInt(1_000_000+ppm))
		if slow.Cmp(fast) > 0 {
			t.Fatalf("a term of %v outlasts a lease of %v at %d ppm", term, lease, ppm)
		}
		// PauseBound = lease - term - floor(lease*4*ppm/1e6), within the
		// budget lease/(1+rho) - term/(1-rho) to the nanosecond.
		pause := PauseBound(lease, term, ppm)
		drift := new(big.Int).Quo(mul(l, 4*ppm), big.NewInt(1_000_000))
		if exact := new(big.Int).Sub(new(big.Int).Sub(l, big.NewInt(int64(term))), drift); exact.Cmp(big.NewInt(int64(pause))) != 0 {
			t.Fatalf("PauseBound(%v, %v, %d) = %d, want %v", lease, term, ppm, pause, exact)
		}
		if new(big.Rat).Add(slow, new(big.Rat).SetInt64(int64(pause)-1)).Cmp(fast) >= 0 {
			t.Fatalf("PauseBound(%v, %v, %d) = %v exceeds the pause budget", lease, term, ppm, pause)
		}
	})
}
