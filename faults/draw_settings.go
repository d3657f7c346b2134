package faults

import (
	"cmp"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// settings draws the nodes' settings, for a protocol that takes them (the
// production elector, the zoo's careful lock): on half the draws none
// (the protocol as given), on a quarter one drawn setting for every node,
// on a quarter a mix in which each node runs the protocol as given (one
// in three) or a setting of its own. Every setting is one
// protocol.NewElector accepts (see setting).
func (s stream) settings(nodes int) []Settings {
	switch s.Pick(4) {
	case 0, 1:
		return nil
	case 2:
		one := s.setting()
		out := make([]Settings, nodes)
		for i := range out {
			out[i] = one
			out[i].Node = i
		}
		return out
	}
	var out []Settings
	for i := range nodes {
		if s.Pick(3) == 0 {
			continue
		}
		one := s.setting()
		one.Node = i
		out = append(out, one)
	}
	return out
}

// setting draws one node's settings across the range protocol.Config
// accepts, tight ones included: a lease of 1 to 20 s, in whole
// milliseconds or, on one draw in eight, with a remainder below a
// millisecond (subMillis), which the other settings are drawn against (a
// deadline at the drift-margin limit is at that lease's); a drift bound
// of a few ppm to the largest accepted (10%), or on one draw in eight 0,
// the default (protocol.DefaultClockDriftPPM); a renew deadline anywhere
// from a third of the lease to the lease less the drift margin, a third
// of the time exactly at that limit; a retry period short (a twentieth of
// the deadline) or long (just under its 5/6); a request timeout of at
// least 150 ms (above the simulated S3's longest round trip) up to
// exactly half the deadline, or 0 (the retry period) where that fits;
// release on cancel or not. The elector has no jitter setting (its
// follower jitter of up to 20% of the retry period is built in), so none
// is drawn.
func (s stream) setting() Settings {
	ms := time.Millisecond
	var lease time.Duration
	switch s.Pick(20) {
	case 0, 1, 2, 3:
		lease = s.Between(1000*ms, 2000*ms)
	case 4, 5, 6, 7, 8, 9, 10:
		lease = s.Between(2000*ms, 6000*ms)
	case 11, 12, 13, 14, 15, 16, 17:
		lease = s.Between(6000*ms, 12000*ms)
	default:
		lease = s.Between(12000*ms, 20000*ms)
	}
	lease = lease.Truncate(ms) + s.subMillis()
	var ppm int64
	switch s.Pick(4) {
	case 0:
		ppm = s.Int(1, 100)
	case 1, 2:
		ppm = s.Int(100, 5000)
	default:
		ppm = s.Int(5000, 100_000)
	}
	if s.OneIn(8) {
		ppm = 0 // the elector's default, which most users leave it at
	}
	limit := lease - protocol.DriftMargin(lease, cmp.Or(ppm, protocol.DefaultClockDriftPPM))
	var renew time.Duration
	switch s.Pick(3) {
	case 0:
		renew = s.Between(lease/3, limit).Truncate(ms)
	case 1:
		renew = s.Between(limit-limit/20, limit).Truncate(ms) // close to it
	default:
		renew = limit // at the drift-margin limit, to the nanosecond
	}
	renew = max(renew, min(limit, 300*ms))
	var retry time.Duration
	hi := (renew*5 - 1) / 6 // retry*6 < renew*5
	switch s.Pick(3) {
	case 0:
		retry = s.Between(max(50*ms, renew/20), max(50*ms, renew/5))
	case 1:
		retry = s.Between(renew/5, renew/3)
	default:
		retry = s.Between(renew/3, hi)
	}
	retry = min(max(retry.Truncate(ms), 50*ms), hi)
	var timeout time.Duration
	lo := 150 * ms
	switch s.Pick(3) {
	case 0:
		if retry < lo || retry > renew/2 {
			timeout = renew / 2
		} // else 0, the default: the retry period
	case 1:
		timeout = s.Between(max(lo, renew/4), renew/2).Truncate(ms)
	default:
		timeout = renew / 2 // exactly the largest accepted
	}
	if timeout != 0 {
		timeout = min(max(timeout, lo), renew/2)
	}
	return Settings{
		Lease: Duration(lease), RenewDeadline: Duration(renew), RetryPeriod: Duration(retry),
		RequestTimeout: Duration(timeout), DriftPPM: ppm, ReleaseOnCancel: s.OneIn(2),
	}
}

// subMillis draws the part of a lease below a millisecond: none on seven
// draws in eight; else a nanosecond, a millisecond less a nanosecond, or
// any count of nanoseconds in between. A record states its lease in
// whole milliseconds (leaseDurationMillis), rounded up so that it never
// understates it: a lease a nanosecond over whole milliseconds is where
// rounding that is a little short shows, and one just under a millisecond
// more is where rounding that is a little long shows.
func (s stream) subMillis() time.Duration {
	if !s.OneIn(8) {
		return 0
	}
	switch s.Pick(3) {
	case 0:
		return time.Nanosecond
	case 1:
		return time.Millisecond - time.Nanosecond
	}
	return s.Between(time.Nanosecond, time.Millisecond-time.Nanosecond)
}
