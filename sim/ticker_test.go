package sim

import (
	"context"
	"slices"
	"testing"
	"time"
)

// tick is when a node received a tick: true time and its monotonic
// reading.
type tick struct{ at, mono time.Duration }

// receiveTicks runs ticker loops on each node of cfg (a ticker of period,
// received in a select with ctx.Done() until it ends or n ticks came),
// with node's own hooks, and returns each node's ticks and the true time
// its loop ended.
func receiveTicks(t *testing.T, cfg Config, period time.Duration, n int, setup func(w *World), ctxOf func(ctx context.Context, env Env) context.Context) ([][]tick, []time.Duration) {
	t.Helper()
	var w *World
	ticks := make([][]tick, cfg.Nodes)
	ended := make([]time.Duration, cfg.Nodes)
	cfg.Setup = func(world *World) {
		w = world
		if setup != nil {
			setup(world)
		}
	}
	cfg.Candidate = func(ctx context.Context, env Env) error {
		if ctxOf != nil {
			ctx = ctxOf(ctx, env)
		}
		i := env.Node
		tk := env.Clock.NewTicker(period)
		defer tk.Stop()
		for len(ticks[i]) < n {
			select {
			case <-ctx.Done():
				ended[i] = w.Now()
				return nil
			case <-tk.Next(ctx):
				ticks[i] = append(ticks[i], tick{w.Now(), env.Clock.Monotonic()})
			}
		}
		ended[i] = w.Now()
		return nil
	}
	mustRun(t, cfg)
	return ticks, ended
}

// TestTickerTicksOnTheNodeClock: ticks fall at whole periods of the
// node's monotonic clock from the ticker's start (the first instant it
// reads at least that), so a node whose clock runs 10% fast ticks earlier
// in true time.
func TestTickerTicksOnTheNodeClock(t *testing.T) {
	cfg := testConfig(2, time.Minute, nil)
	cfg.Clocks = []ClockModel{{}, {DriftPPM: 100_000}}
	var starts [2]time.Duration
	ticks, _ := receiveTicks(t, cfg, time.Second, 3, nil, func(ctx context.Context, env Env) context.Context {
		starts[env.Node] = env.Clock.Monotonic()
		return ctx
	})
	for i := range 2 {
		for k, tk := range ticks[i] {
			// The first instant the clock reads at least the tick: with
			// drift, a nanosecond of true time moves it by more than one.
			if want := starts[i] + time.Duration(k+1)*time.Second; tk.mono < want || tk.mono > want+time.Nanosecond {
				t.Errorf("node %d tick %d at monotonic %v, want %v", i, k+1, tk.mono, want)
			}
		}
	}
	if got := ticks[0]; got[0].at != time.Second || got[2].at != 3*time.Second {
		t.Errorf("perfect clock ticks at %v, want at 1s, 2s, 3s of true time", got)
	}
	if got := ticks[1]; got[2].at >= 2730*time.Millisecond || got[2].at <= 2720*time.Millisecond {
		t.Errorf("fast clock's third tick at %v of true time, want 3s/1.1", got[2].at)
	}
}

// TestTickerLateReceiver: a node paused past several ticks gets one tick
// when it runs again, and the next at the next whole period, as
// time.Ticker drops the ticks nobody received.
func TestTickerLateReceiver(t *testing.T) {
	cfg := testConfig(1, time.Minute, nil)
	ticks, _ := receiveTicks(t, cfg, time.Second, 3, func(w *World) {
		w.At(1500*time.Millisecond, -1, func() { w.Node(0).Pause(2700 * time.Millisecond) })
	}, nil)
	want := []time.Duration{time.Second, 4200 * time.Millisecond, 5 * time.Second}
	if got := []time.Duration{ticks[0][0].at, ticks[0][1].at, ticks[0][2].at}; !slices.Equal(got, want) {
		t.Errorf("ticks at %v, want %v", got, want)
	}
}

// TestTickerSelectWithDone: a context cancelled by another goroutine of
// the node ends the select at that instant, through its ctx.Done() case,
// between two ticks.
func TestTickerSelectWithDone(t *testing.T) {
	cfg := testConfig(1, time.Minute, nil)
	ticks, ended := receiveTicks(t, cfg, time.Second, 10, nil, func(ctx context.Context, env Env) context.Context {
		ctx, cancel := context.WithCancel(ctx)
		env.Clock.Go(func() {
			_ = env.Clock.Sleep(ctx, 2500*time.Millisecond)
			cancel()
		})
		return ctx
	})
	if len(ticks[0]) != 2 || ended[0] != 2500*time.Millisecond {
		t.Errorf("%d ticks, select ended at %v; want 2 ticks and the end at 2.5s", len(ticks[0]), ended[0])
	}
}

// TestTickerStop: a stopped ticker never ticks again; Next waits for its
// context, and returns nil when it ends.
func TestTickerStop(t *testing.T) {
	var got []time.Duration
	var w *World
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tk := env.Clock.NewTicker(time.Second)
		if tk.Next(ctx) == nil {
			return nil
		}
		<-tk.C
		got = append(got, w.Now())
		tk.Stop()
		tctx, cancel := env.Clock.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if tk.Next(tctx) == nil {
			got = append(got, w.Now())
		}
		tk.Reset(2 * time.Second)
		if tk.Next(ctx) != nil {
			got = append(got, w.Now())
		}
		return nil
	})
	cfg.Setup = func(world *World) { w = world }
	mustRun(t, cfg)
	if want := []time.Duration{time.Second, 6 * time.Second, 8 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("tick, end of the wait after Stop, tick after Reset at %v; want %v", got, want)
	}
}

// TestTickerDeterministic: ticker loops on several nodes, with latency
// draws and simultaneous ticks, give the same trace every run.
func TestTickerDeterministic(t *testing.T) {
	run := func() uint64 {
		cfg := testConfig(3, 20*time.Second, func(ctx context.Context, env Env) error {
			tk := env.Clock.NewTicker(500 * time.Millisecond)
			for {
				select {
				case <-ctx.Done():
					return nil
				case <-tk.Next(ctx):
					_, _ = env.Store.GetObject(ctx, nil)
				}
			}
		})
		return mustRun(t, cfg).Hash()
	}
	if a, b := run(), run(); a != b {
		t.Errorf("two runs of one config: hashes %x and %x", a, b)
	}
}
