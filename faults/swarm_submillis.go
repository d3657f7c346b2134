package faults

import "time"

// streamSubMillis is the stream that draws, for each settings draw of a
// seed in turn, whether its lease has a remainder below a millisecond, and
// which. Drawn apart, so that every other setting, and every lease drawn
// without one, stays as it was drawn.
const streamSubMillis = 0x7375626d_696c6c69

// subMillis draws the part of a lease below a millisecond: none on seven
// settings draws in eight; else a nanosecond, a millisecond less a
// nanosecond, or any count of nanoseconds in between. A record states its
// lease in whole milliseconds (leaseDurationMillis), rounded up so that it
// never understates it: a lease a nanosecond over whole milliseconds is
// where rounding that is a little short shows, and one just under a
// millisecond more is where rounding that is a little long shows.
func (s stream) subMillis() time.Duration {
	if !s.on(8) {
		return 0
	}
	switch s.pick(3) {
	case 0:
		return time.Nanosecond
	case 1:
		return time.Millisecond - time.Nanosecond
	}
	return s.between(time.Nanosecond, time.Millisecond-time.Nanosecond)
}
