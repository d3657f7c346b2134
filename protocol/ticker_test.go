package protocol

import (
	"context"
	"testing"
	"time"
)

// stepClock is a Clock whose Sleep moves its time on at once (unless ctx
// is done).
type stepClock struct{ now time.Duration }

func (c *stepClock) Now() time.Time           { return time.Unix(0, int64(c.now)) }
func (c *stepClock) Monotonic() time.Duration { return c.now }
func (c *stepClock) Go(f func())              { f() }
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() == nil {
		c.now += max(d, 0)
	}
	return ctx.Err()
}
func (c *stepClock) WithTimeout(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}
func (c *stepClock) NewTicker(d time.Duration) *Ticker { return TickerOn(c, d) }

// TestTickerOn: the ticks of a ticker on a Clock fall at whole periods
// from its start; a receiver that fell behind gets one at once and the
// next at the next whole period; each is in C when Next returns, carrying
// the clock's Now; Next returns nil once ctx is done, and after Stop;
// Reset starts the count again.
func TestTickerOn(t *testing.T) {
	clk := &stepClock{now: 10 * time.Second}
	tk := clk.NewTicker(time.Second)
	ctx := context.Background()
	next := func() time.Duration {
		t.Helper()
		c := tk.Next(ctx)
		if c == nil || len(c) != 1 {
			t.Fatalf("Next returned %v holding %d ticks", c, len(c))
		}
		if v := <-c; !v.Equal(clk.Now()) {
			t.Errorf("tick carries %v, want the clock's Now %v", v, clk.Now())
		}
		return clk.now
	}
	for i, want := range []time.Duration{11 * time.Second, 12 * time.Second} {
		if got := next(); got != want {
			t.Fatalf("tick %d at %v, want %v", i+1, got, want)
		}
	}
	clk.now += 3500 * time.Millisecond // busy: ticks at 13, 14 and 15 s passed
	if got := next(); got != 15500*time.Millisecond {
		t.Fatalf("late tick at %v, want at once (15.5s)", got)
	}
	if got := next(); got != 16*time.Second {
		t.Fatalf("next tick at %v, want 16s", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if c := tk.Next(cctx); c != nil {
		t.Error("Next on a done context returned a channel")
	}
	tk.Stop()
	if c := tk.Next(cctx); c != nil {
		t.Error("Next on a stopped ticker returned a channel")
	}
	tk.Reset(2 * time.Second)
	if got := next(); got != 18*time.Second {
		t.Fatalf("tick after Reset at %v, want 18s", got)
	}
}

// TestRealClockTicker: the real clock's ticker is time.Ticker: Next is C,
// ticks arrive in a select with ctx.Done(), and none after Stop.
func TestRealClockTicker(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadline for the waits, not a limit
	defer cancel()
	tk := NewRealClock().NewTicker(time.Millisecond)
	if tk.Next(ctx) != tk.C {
		t.Fatal("the real ticker's Next is not C")
	}
	for range 2 {
		select {
		case <-ctx.Done():
			t.Fatal("no tick within a minute")
		case <-tk.Next(ctx):
		}
	}
	tk.Stop()
	time.Sleep(5 * time.Millisecond)
	select {
	case <-tk.C:
		t.Error("a tick after Stop")
	default:
	}
}
