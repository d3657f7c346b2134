package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// testConfig is a small world running candidate on n nodes.
func testConfig(n int, d time.Duration, c Candidate) Config {
	return Config{
		Seed: 1, Nodes: n, Duration: d, Candidate: c,
		Bucket: "b", Key: "k", WriteInterval: 100 * time.Millisecond,
		S3Request:  Latency{Min: time.Millisecond, Max: 5 * time.Millisecond},
		S3Response: Latency{Min: time.Millisecond, Max: 5 * time.Millisecond},
		KeepTrace:  true,
	}
}

func mustRun(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("run failed: %v\n%s", res.Failure, res.Failure.Stack)
	}
	return res
}

// TestSleepFollowsTheNodeClock checks that a sleep is measured on the node's
// own monotonic clock: a node whose clock runs 10% fast wakes earlier in
// true time.
func TestSleepFollowsTheNodeClock(t *testing.T) {
	var woke [2]time.Duration
	cfg := testConfig(2, time.Minute, func(ctx context.Context, env Env) error {
		if err := env.Clock.Sleep(ctx, 11*time.Second); err != nil {
			return err
		}
		woke[env.Node] = env.Clock.(*nodeClock).w.Now()
		return nil
	})
	cfg.Clocks = []ClockModel{{}, {DriftPPM: 100_000}}
	mustRun(t, cfg)
	if woke[0] != 11*time.Second || woke[1] != 10*time.Second {
		t.Fatalf("woke at %v, want [11s 10s]", woke)
	}
}

// TestCancellationWakesWaitersAtOnce checks that cancelling a context in one
// goroutine wakes a goroutine sleeping on it at the same true instant, and
// that the sleeper sees the context's error.
func TestCancellationWakesWaitersAtOnce(t *testing.T) {
	var sleepErr error
	var wokeAt time.Duration
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		w := env.Clock.(*nodeClock).w
		inner, cancel := context.WithCancel(ctx)
		done, markDone := context.WithCancel(context.Background())
		env.Clock.Go(func() {
			defer markDone()
			sleepErr = env.Clock.Sleep(inner, time.Hour)
			wokeAt = w.Now()
		})
		_ = env.Clock.Sleep(ctx, 3*time.Second)
		cancel()
		// Join the goroutine: done is cancelled when it returns.
		_ = env.Clock.Sleep(done, time.Hour)
		return nil
	})
	mustRun(t, cfg)
	if !errors.Is(sleepErr, context.Canceled) || wokeAt != 3*time.Second {
		t.Fatalf("sleeper returned %v at %v; want context.Canceled at 3s", sleepErr, wokeAt)
	}
}

// TestWithTimeoutReportsDeadlineExceeded checks the simulated timeout
// context: it ends after the node's monotonic duration with
// DeadlineExceeded, and a call waiting on it is abandoned.
func TestWithTimeoutReportsDeadlineExceeded(t *testing.T) {
	var err error
	var at time.Duration
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tctx, cancel := env.Clock.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		err = env.Clock.Sleep(tctx, time.Hour)
		at = env.Clock.(*nodeClock).w.Now()
		return nil
	})
	mustRun(t, cfg)
	if !errors.Is(err, context.DeadlineExceeded) || at != 2*time.Second {
		t.Fatalf("got %v at %v, want DeadlineExceeded at 2s", err, at)
	}
}

// TestPauseDelaysTheNode checks that a paused node's goroutines do not run
// until the pause ends, while its clock keeps going.
func TestPauseDelaysTheNode(t *testing.T) {
	var wokeAt time.Duration
	var slept time.Duration
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		before := env.Clock.Monotonic()
		_ = env.Clock.Sleep(ctx, time.Second)
		slept = env.Clock.Monotonic() - before
		wokeAt = env.Clock.(*nodeClock).w.Now()
		return nil
	})
	cfg.Setup = func(w *World) {
		w.At(500*time.Millisecond, -1, func() { w.Node(0).Pause(5 * time.Second) })
	}
	mustRun(t, cfg)
	if wokeAt != 5500*time.Millisecond || slept != 5500*time.Millisecond {
		t.Fatalf("woke at %v having slept %v; want 5.5s and 5.5s", wokeAt, slept)
	}
}

// TestCrashUnwindsGoroutines checks that a crash stops a node's goroutines
// for good: deferred functions run, nothing after the blocking point does.
func TestCrashUnwindsGoroutines(t *testing.T) {
	var deferred, after bool
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		if env.Incarnation > 1 {
			return nil
		}
		defer func() { deferred = true }()
		_ = env.Clock.Sleep(ctx, 10*time.Second)
		after = true
		return nil
	})
	cfg.Setup = func(w *World) { w.At(time.Second, -1, w.Node(0).Crash) }
	mustRun(t, cfg)
	if !deferred || after {
		t.Fatalf("deferred=%v after=%v; want deferred only", deferred, after)
	}
}

// TestPanicIsReported checks that a panic in protocol code ends the run
// with a Failure naming the node, instead of crashing the harness.
func TestPanicIsReported(t *testing.T) {
	cfg := testConfig(2, time.Minute, func(ctx context.Context, env Env) error {
		_ = env.Clock.Sleep(ctx, time.Second)
		if env.Node == 1 {
			var m map[string]int
			m["boom"]++
		}
		return env.Clock.Sleep(ctx, time.Hour)
	})
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != FailurePanic || res.Failure.Node != 1 ||
		!strings.Contains(res.Failure.Message, "nil map") || res.Failure.At != time.Second {
		t.Fatalf("failure = %+v", res.Failure)
	}
}

// TestStepBudgetCatchesBusyLoops checks that a protocol that spins without
// letting time pass is reported as stuck.
func TestStepBudgetCatchesBusyLoops(t *testing.T) {
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		for {
			_ = env.Clock.Sleep(ctx, 0)
		}
	})
	cfg.MaxSteps = 10_000
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Failure.Kind != FailureStuck {
		t.Fatalf("failure = %v, want stuck", res.Failure)
	}
}

func TestConfigValidation(t *testing.T) {
	ok := testConfig(1, time.Second, func(context.Context, Env) error { return nil })
	for name, mutate := range map[string]func(*Config){
		"no nodes":      func(c *Config) { c.Nodes = 0 },
		"no duration":   func(c *Config) { c.Duration = 0 },
		"no candidate":  func(c *Config) { c.Candidate = nil },
		"no key":        func(c *Config) { c.Key = "" },
		"bad clocks":    func(c *Config) { c.Clocks = make([]ClockModel, 3) },
		"bad latency":   func(c *Config) { c.S3Request.Min = -1 },
		"bad drift":     func(c *Config) { c.Clocks = []ClockModel{{DriftPPM: -1_000_000}} },
		"bad interval":  func(c *Config) { c.WriteInterval = 0 },
		"bad max steps": func(c *Config) { c.MaxSteps = -1 },
	} {
		cfg := ok
		mutate(&cfg)
		if _, err := Run(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
	}
}
