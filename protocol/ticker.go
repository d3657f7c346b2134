package protocol

import (
	"context"
	"time"
)

// Ticker delivers a tick every period of a Clock's monotonic time, as
// time.Ticker does: the ticks fall at the start plus whole periods, a tick
// waits in C until it is received, and one that comes while an earlier one
// still waits is dropped, so that a receiver that fell behind gets one tick
// at once and the next at the next multiple of the period. Clock.NewTicker
// makes one.
//
// Receive the ticks in a select with the context that ends the wait:
//
//	t := clock.NewTicker(period)
//	defer t.Stop()
//	for {
//		select {
//		case <-ctx.Done():
//			return ctx.Err()
//		case <-t.Next(ctx):
//			// a tick
//		}
//	}
//
// With the real clock, Next is C, and the select is Go's. Under any other
// clock (the simulator's) no goroutine feeds C: Next itself waits on the
// clock, with ctx, until the next tick is due, puts the tick in C and
// returns C, or returns nil once ctx is done, so that exactly one case of
// the select is ready when it runs. When both are ready at once, ctx wins
// there, where Go chooses at random. A receive from C itself, or a select
// on C with other channels than ctx's, blocks outside such a clock.
type Ticker struct {
	// C is the channel of the ticks: each carries the clock's wall-clock
	// reading (Clock.Now) when it was delivered.
	C <-chan time.Time

	real *time.Ticker // the real clock's, or nil

	// A ticker on another Clock (TickerOn).
	clk     Clock
	c       chan time.Time
	start   time.Duration // monotonic reading the ticks count from
	period  time.Duration
	next    int64 // index of the next tick to deliver, from 1
	stopped bool
}

// TickerOn returns a Ticker on clk, ticking every period of clk's
// monotonic time from now, with no goroutine of its own: its ticks are
// waits on clk (Clock.Sleep), made by Next. It is how a Clock other than
// the real one implements NewTicker. As time.NewTicker, it panics if
// period is not positive.
func TickerOn(clk Clock, period time.Duration) *Ticker {
	if period <= 0 {
		panic("protocol: non-positive interval for NewTicker")
	}
	c := make(chan time.Time, 1)
	return &Ticker{C: c, clk: clk, c: c, start: clk.Monotonic(), period: period, next: 1}
}

// Next returns the channel to receive the next tick from, in a select
// with ctx.Done(): C, which holds a tick by the time Next returns (a tick
// waiting in C is delivered at once), or nil if ctx ended first. With the
// real clock it returns C at once and the select waits. After Stop no tick
// comes: Next waits until ctx is done.
func (t *Ticker) Next(ctx context.Context) <-chan time.Time {
	if t.real != nil {
		return t.C
	}
	if len(t.c) > 0 {
		return t.C
	}
	for t.stopped {
		if t.clk.Sleep(ctx, t.period) != nil {
			return nil
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	now := t.clk.Monotonic()
	if due := t.start + time.Duration(t.next)*t.period; now < due {
		if t.clk.Sleep(ctx, due-now) != nil {
			return nil
		}
		now = max(t.clk.Monotonic(), due)
	}
	t.next = int64((now-t.start)/t.period) + 1
	select {
	case t.c <- t.clk.Now():
	default: // C is empty: only Next fills it
	}
	return t.C
}

// Stop turns the ticker off: no tick comes after it. A tick waiting in C
// stays there, as with time.Ticker.
func (t *Ticker) Stop() {
	if t.real != nil {
		t.real.Stop()
		return
	}
	t.stopped = true
}

// Reset stops the ticker and starts it again with period d: the next tick
// comes d from now. As time.Ticker.Reset, it panics if d is not positive.
func (t *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("protocol: non-positive interval for Ticker.Reset")
	}
	if t.real != nil {
		t.real.Reset(d)
		return
	}
	t.start, t.period, t.next, t.stopped = t.clk.Monotonic(), d, 1, false
}
