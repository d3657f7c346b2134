package protocol

import (
	"context"
	"time"
)

// Clock is the elector's only view of time and concurrency. Production code
// uses [RealClock]; the simulator supplies a virtual clock per node. Protocol
// code must not call the time package, start goroutines with the go statement,
// or block on channels directly: every wait goes through Sleep (a context that
// some other goroutine cancels is a join) or a Ticker's Next, every goroutine
// through Go.
type Clock interface {
	// Now returns the node's wall-clock time. It may jump forwards or
	// backwards (an NTP step) and differs between nodes; it is written into
	// records for humans and is the floor of a new term's fencing token,
	// and decides nothing about who leads or for how long.
	Now() time.Time

	// Monotonic returns the time elapsed since a fixed, arbitrary origin on a
	// clock that never goes backwards. Differences of two readings on the same
	// node are the basis of every safety decision. The rate may differ from
	// true time by a bounded drift, and the clock may stall while the machine
	// is suspended.
	Monotonic() time.Duration

	// Sleep blocks until d of monotonic time has passed or ctx is done,
	// whichever comes first. It returns ctx.Err() if ctx ended the wait and
	// nil otherwise. A non-positive d yields to other goroutines and returns.
	Sleep(ctx context.Context, d time.Duration) error

	// WithTimeout returns a copy of ctx that is cancelled once d of monotonic
	// time has passed, with context.DeadlineExceeded as its error.
	WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)

	// Go runs f concurrently with its caller.
	Go(f func())

	// NewTicker returns a Ticker that ticks every d of monotonic time from
	// now, as time.NewTicker does; receive its ticks through Ticker.Next.
	// It panics if d is not positive. A Clock other than the real one
	// implements it with TickerOn.
	NewTicker(d time.Duration) *Ticker
}

// RealClock is the Clock of a real process: the time package and real
// goroutines.
//
//simvet:real the production Clock; under the simulator Config.Clock is the simulator's own.
type RealClock struct {
	origin time.Time
}

// NewRealClock returns a RealClock whose monotonic origin is now.
//
//simvet:real constructs the production Clock, the default only when Config.Clock is nil, never under the simulator.
func NewRealClock() *RealClock { return &RealClock{origin: time.Now()} }

// Now returns time.Now().
func (c *RealClock) Now() time.Time { return time.Now() }

// Monotonic returns the monotonic time elapsed since the clock was created.
func (c *RealClock) Monotonic() time.Duration { return time.Since(c.origin) }

// Sleep waits for d or for ctx to be done.
func (c *RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WithTimeout is context.WithTimeout.
func (c *RealClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// Go starts f in a new goroutine.
func (c *RealClock) Go(f func()) { go f() }

// NewTicker is time.NewTicker: a goroutine of the runtime fills C, and
// Ticker.Next is C.
func (c *RealClock) NewTicker(d time.Duration) *Ticker {
	t := time.NewTicker(d)
	return &Ticker{C: t.C, real: t}
}
