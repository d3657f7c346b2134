package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

func genClockModel(t *rapid.T) ClockModel {
	m := ClockModel{
		Offset:   time.Duration(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "offset")),
		DriftPPM: rapid.Int64Range(-100_000, 100_000).Draw(t, "ppm"),
	}
	at := time.Duration(0)
	for i := range rapid.IntRange(0, 3).Draw(t, "stalls") {
		_ = i
		at += time.Duration(rapid.Int64Range(0, int64(10*time.Second)).Draw(t, "gap"))
		d := time.Duration(rapid.Int64Range(0, int64(5*time.Second)).Draw(t, "for"))
		m.Stalls = append(m.Stalls, ClockStall{At: at, For: d})
		at += d
	}
	for range rapid.IntRange(0, 3).Draw(t, "jumps") {
		m.Jumps = append(m.Jumps, ClockJump{
			At: time.Duration(rapid.Int64Range(0, int64(30*time.Second)).Draw(t, "jumpAt")),
			By: time.Duration(rapid.Int64Range(-int64(time.Minute), int64(time.Minute)).Draw(t, "jumpBy")),
		})
	}
	if rapid.Bool().Draw(t, "drift ends") {
		m.DriftUntil = time.Duration(rapid.Int64Range(1, int64(40*time.Second)).Draw(t, "driftUntil"))
	}
	return m
}

// TestClockDriftEnds: a drift that ends at DriftUntil leaves the clock
// running at true rate from then on, without a step.
func TestClockDriftEnds(t *testing.T) {
	c := newClockState(ClockModel{DriftPPM: 50_000, DriftUntil: 10 * time.Second}, 0)
	if got := c.mono(10 * time.Second); got != 10500*time.Millisecond {
		t.Fatalf("at the end of the drift the clock reads %v, want 10.5s", got)
	}
	if got := c.mono(20*time.Second) - c.mono(10*time.Second); got != 10*time.Second {
		t.Fatalf("after the drift the clock advanced %v in 10 s of true time", got)
	}
	if at := c.after(5*time.Second, 10*time.Second); at != 14750*time.Millisecond {
		t.Fatalf("after(5s, 10s) = %v, want 14.75s (5.25 s of drifting time, then 4.75 s at true rate)", at)
	}
}

// TestClockAfterIsEarliestInstant checks the property Sleep relies on: the
// wake-up instant is the first true instant at which the node's monotonic
// clock has advanced by the requested amount.
func TestClockAfterIsEarliestInstant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newClockState(genClockModel(t), time.Hour)
		now := time.Duration(rapid.Int64Range(0, int64(30*time.Second)).Draw(t, "now"))
		d := time.Duration(rapid.Int64Range(1, int64(20*time.Second)).Draw(t, "d"))
		at := c.after(now, d)
		if got := c.mono(at) - c.mono(now); got < d {
			t.Fatalf("after(%v, %v) = %v, but the clock advanced only %v", now, d, at, got)
		}
		if at > now {
			if got := c.mono(at-1) - c.mono(now); got >= d {
				t.Fatalf("after(%v, %v) = %v, but the clock had advanced %v already at %v", now, d, at, got, at-1)
			}
		}
	})
}

// TestClockMonotonicNeverDecreases checks that neither drift nor stalls nor
// wall-clock jumps make the monotonic clock go backwards.
func TestClockMonotonicNeverDecreases(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newClockState(genClockModel(t), 0)
		a := time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "a"))
		b := a + time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "b"))
		if c.mono(b) < c.mono(a) {
			t.Fatalf("mono(%v)=%v < mono(%v)=%v", b, c.mono(b), a, c.mono(a))
		}
	})
}

func TestClockDriftStallAndJump(t *testing.T) {
	c := newClockState(ClockModel{
		Offset:   2 * time.Second,
		DriftPPM: 100_000, // 10% fast
		Jumps:    []ClockJump{{At: 20 * time.Second, By: -30 * time.Second}},
		Stalls:   []ClockStall{{At: 10 * time.Second, For: 5 * time.Second}},
	}, 0)
	for _, tc := range []struct {
		t          time.Duration
		mono, wall time.Duration
	}{
		{0, 0, 2 * time.Second},
		{10 * time.Second, 11 * time.Second, 13 * time.Second},
		{15 * time.Second, 11 * time.Second, 13 * time.Second}, // stalled
		{20 * time.Second, 16500 * time.Millisecond, -11500 * time.Millisecond},
	} {
		if got := c.mono(tc.t); got != tc.mono {
			t.Errorf("mono(%v) = %v, want %v", tc.t, got, tc.mono)
		}
		if got := c.wall(tc.t); got != tc.wall {
			t.Errorf("wall(%v) = %v, want %v", tc.t, got, tc.wall)
		}
	}
	// Sleeping 1.1 s of local time from true 9.5 s crosses the stall.
	if got, want := c.after(9500*time.Millisecond, 1100*time.Millisecond), 15500*time.Millisecond; got != want {
		t.Errorf("after = %v, want %v", got, want)
	}
}
