package faults

import "time"

// streamLongLease is the stream that draws whether the record SwarmInitial
// drew states a lease near the longest a record may state, and which.
// Drawn apart, so that the record's other fields, its links, spelling and
// edit stay as they were drawn.
const streamLongLease = 0x6c6f6e67_6c656173

// longLease gives the record drawn for seed, on one seed in three of those
// that draw foreign writes during the run (foreignWritesOn), and only
// there, a lease at the edge of the longest a record may state
// (MaxLease): a whole number of milliseconds in (MaxLease - 1 h,
// MaxLease], exactly MaxLease, or a millisecond more, which the elector
// must refuse as malformed (and the record is then foreign: Native). The
// record is released, and SwarmInitial draws such a lease only for a
// record it does not edit (an edit may leave the release out): a live
// record would hold every node off for the whole run, past any liveness
// bound (a protocol without the elector's bound honours even the lease
// beyond it), and so would a record at the top of the token space, which
// the elector times for the lease it states, released or not: such a
// record keeps its lease. Electors take a released record over at once,
// linking to it if they read it as a valid record: whether they read its
// lease as valid shows in the link. Whether the lease is drawn is decided
// first, on every seed.
func longLease(seed uint64, sp SwarmSpace, r *Record) {
	s := newStream(seed, streamLongLease, sp)
	if !s.on(3) || !foreignWritesOn(seed, sp) || r.Token > MaxNativeToken {
		return
	}
	switch s.pick(3) {
	case 0:
		r.Lease = Duration(s.between(MaxLease-time.Hour+time.Millisecond, MaxLease+time.Millisecond).Truncate(time.Millisecond))
	case 1:
		r.Lease = Duration(MaxLease)
	default:
		r.Lease = Duration(MaxLease + time.Millisecond)
	}
	r.Released = true
}
