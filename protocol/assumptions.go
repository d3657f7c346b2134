package protocol

import (
	"math"
	"math/bits"
	"time"
)

// Assumptions are what a lock needs of the world to keep two leaders from
// overlapping in true time: the elector's are computed from its Config
// (Config.Assumptions), and every other lock the project runs states its own
// in the same terms. A run that stays inside them must show no overlap; a
// run outside them may, and then fencing must still reject every stale
// write. Package faults says how a plan leaves them (faults.Plan.Outside).
//
// # The pause bound
//
// Let rho = MaxDriftPPM/1e6, and let a leader send its last successful
// write at true time t. Its term ends once Term has passed on its monotonic
// clock, read just before t; that clock runs at least 1-rho times as fast as
// true time, so the term ends by t + Term/(1-rho). A process pause of p at
// the worst moment (just before its watchdog fires, or between the
// application's check of leadership and its action) lets it act until
// t + Term/(1-rho) + p. A follower first read that write after t and takes
// over once Lease has passed on its own clock, which runs at most 1+rho
// times as fast: not before t + Lease/(1+rho). The two do not overlap if
//
//	p <= Lease/(1+rho) - Term/(1-rho)
//	   = Lease - Term - rho*Lease/(1+rho) - rho*Term/(1-rho).
//
// With p = 0 this is the drift margin (DriftMargin) that TermLength keeps.
// As Term < Lease and rho <= 0.1, the two drift terms together are less
// than 2.03*rho*Lease. PauseBound subtracts 4*rho*Lease instead, about twice
// that: it is conservative (to the nanosecond it is rounded to),
// deliberately so, and it is the bound the project's simulator has always
// judged runs by.
//
// PauseBound is negative when Term is within 4*rho*Lease of Lease, which
// the elector accepts down to the drift margin of about 2*rho*Lease; for
// example a 15 s lease at 1000 ppm with a RenewDeadline of 14.95 s. Such a
// configuration is safe without pauses but promises to survive none: read
// a negative MaxPause as zero.
type Assumptions struct {
	// Lease is how long a follower waits, on its own clock, after first
	// seeing a record unchanged before it takes the record over. It also
	// sizes the faults a campaign draws (partitions and stalls of about a
	// lease, pauses past it).
	Lease time.Duration
	// Term, if positive, is how long a term lasts, on the leader's clock,
	// after the send of its last successful write (TermLength); 0 means
	// Lease.
	Term time.Duration
	// MaxDriftPPM bounds how far every node's monotonic clock rate may
	// differ from true time, in parts per million.
	MaxDriftPPM int64
	// MaxPause is the longest process pause (GC, SIGSTOP, scheduling, an
	// application's work between its check and its write), in true time,
	// that the guarantee survives (PauseBound). It may be negative; see
	// above.
	MaxPause time.Duration
	// MaxOffset, if positive, bounds how far any node's wall clock may be
	// from true time at the start of a run (a lock that compares wall
	// clocks of different nodes needs it); 0 assumes nothing of offsets.
	MaxOffset time.Duration
	// MaxWallStep, if positive, bounds a single step of a wall clock (an
	// NTP step or a manual change); 0 assumes nothing of steps.
	MaxWallStep time.Duration
	// Stalls, ForeignWrites and Linger say whether the lock tolerates
	// monotonic clock stalls (suspended VMs), writes to the lock object by
	// anyone else, and applications that go on working after their term.
	Stalls, ForeignWrites, Linger bool
	// TornReads says whether the lock tolerates a store that answers a
	// read racing a write with the body of one version and the ETag of
	// another (a torn read: S3 updates a key atomically, versitygw v1.8.0
	// did not), as long as the store's ETags are the MD5 of the bodies
	// (S3's, for an object written in one part without SSE-KMS or SSE-C):
	// it reads such a body again rather than act on it.
	TornReads bool
	// OpaqueETags says whether the lock works on a store whose ETags are
	// not the MD5s of the bodies (S3's for objects under SSE-KMS or SSE-C,
	// or written in parts). Torn reads are then beyond any reader's
	// detection: TornReads holds only where ETags are MD5s.
	OpaqueETags bool
}

// DriftMargin is how much shorter than a lease a leader's term must be so
// that no follower can end the lease while the leader still leads, when
// every clock rate is within ppm of true time: the pause bound of
// Assumptions with no pause, term/(1-rho) <= lease/(1+rho), gives
// lease*2*ppm/(1e6+ppm), rounded up (at least 1 ns for any positive lease
// and ppm). It is exact, in 128-bit integer arithmetic; outside lease in
// (0, MaxLeaseDuration] and ppm in [0, MaxClockDriftPPM] it means nothing,
// but it does not panic.
func DriftMargin(lease time.Duration, ppm int64) time.Duration {
	hi, lo := bits.Mul64(uint64(lease), uint64(2*ppm))
	d := uint64(1_000_000 + ppm)
	if hi >= d { // Div64 would panic; in the ranges above hi < 2^18 < d
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, d)
	if r != 0 {
		q++
	}
	return time.Duration(q)
}

// TermLength is how long a term lasts after the send of its last
// successful write, when followers wait lease and clocks are within ppm:
// renewDeadline, cut to lease less the drift margin.
func TermLength(lease, renewDeadline time.Duration, ppm int64) time.Duration {
	return min(renewDeadline, lease-DriftMargin(lease, ppm))
}

// PauseBound is the longest pause a lock survives whose terms last term
// after their last successful write's send and whose followers wait lease,
// on clocks within ppm: lease - term - lease*4*ppm/1e6, the product rounded
// down to the nanosecond (see Assumptions for the derivation). It may be
// negative. The product is never formed: for lease >= 0 and ppm in [0,
// MaxClockDriftPPM] nothing overflows.
func PauseBound(lease, term time.Duration, ppm int64) time.Duration {
	k := time.Duration(4 * ppm)
	return lease - term - (lease/1e6*k + lease%1e6*k/1e6)
}
