package sim

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestTimeoutContextSemantics holds Clock.WithTimeout's context to the
// standard library's: errors of its own cancellation, of its timer, of its
// parent's cancellation (also when a parent is another timeout context that
// expired), contexts derived from it (cancelled synchronously, before and
// after it ends), Done, Cause and Value. Each case runs in a task, since
// the timer needs the scheduler.
func TestTimeoutContextSemantics(t *testing.T) {
	type key struct{}
	cases := []struct {
		name string
		run  func(ctx context.Context, env Env) error
	}{
		{"cancel", func(ctx context.Context, env Env) error {
			tc, cancel := env.Clock.WithTimeout(ctx, time.Second)
			if tc.Err() != nil || context.Cause(tc) != nil {
				return errors.New("ended before its time")
			}
			cancel()
			cancel()
			if !errors.Is(tc.Err(), context.Canceled) || !errors.Is(context.Cause(tc), context.Canceled) {
				return errors.New("cancel: " + errString(tc.Err()))
			}
			select {
			case <-tc.Done():
			default:
				return errors.New("Done open after cancel")
			}
			return nil
		}},
		{"expire", func(ctx context.Context, env Env) error {
			want := env.Clock.Now().Add(time.Second)
			tc, cancel := env.Clock.WithTimeout(ctx, time.Second)
			defer cancel()
			if d, ok := tc.Deadline(); !ok || !d.Equal(want) {
				return errors.New("deadline " + d.String() + ", want " + want.String())
			}
			if err := env.Clock.Sleep(tc, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
				return errors.New("sleep: " + errString(err))
			}
			cancel()
			if !errors.Is(tc.Err(), context.DeadlineExceeded) || context.Cause(tc) == nil {
				return errors.New("after cancel: " + errString(tc.Err()))
			}
			if d, ok := tc.Deadline(); !ok || d.IsZero() {
				return errors.New("no deadline")
			}
			return nil
		}},
		{"parent cancelled", func(ctx context.Context, env Env) error {
			parent, stop := context.WithCancel(ctx)
			tc, cancel := env.Clock.WithTimeout(parent, time.Minute)
			defer cancel()
			env.Clock.Go(func() {
				_ = env.Clock.Sleep(ctx, time.Second)
				stop()
			})
			if err := env.Clock.Sleep(tc, time.Hour); !errors.Is(err, context.Canceled) {
				return errors.New("sleep: " + errString(err))
			}
			return nil
		}},
		{"parent already cancelled", func(ctx context.Context, env Env) error {
			parent, stop := context.WithCancel(ctx)
			stop()
			tc, cancel := env.Clock.WithTimeout(parent, time.Minute)
			defer cancel()
			if !errors.Is(tc.Err(), context.Canceled) {
				return errors.New(errString(tc.Err()))
			}
			return nil
		}},
		{"nested timeouts", func(ctx context.Context, env Env) error {
			outer, cancelOuter := env.Clock.WithTimeout(ctx, time.Second)
			defer cancelOuter()
			inner, cancelInner := env.Clock.WithTimeout(outer, time.Minute)
			defer cancelInner()
			_ = env.Clock.Sleep(inner, time.Hour)
			// The inner context is a child of the cancel context the outer
			// stands for: it reports context.Canceled, the outer the
			// deadline.
			if !errors.Is(outer.Err(), context.DeadlineExceeded) || !errors.Is(inner.Err(), context.Canceled) {
				return errors.New(errString(outer.Err()) + ", " + errString(inner.Err()))
			}
			return nil
		}},
		{"derived", func(ctx context.Context, env Env) error {
			tc, cancel := env.Clock.WithTimeout(context.WithValue(ctx, key{}, "v"), time.Second)
			defer cancel()
			child, stop := context.WithCancel(tc)
			defer stop()
			if tc.Value(key{}) != "v" || child.Value(key{}) != "v" {
				return errors.New("value lost")
			}
			if err := env.Clock.Sleep(child, time.Minute); !errors.Is(err, context.Canceled) {
				return errors.New("child sleep: " + errString(err))
			}
			if !errors.Is(tc.Err(), context.DeadlineExceeded) {
				return errors.New("parent: " + errString(tc.Err()))
			}
			late, stopLate := context.WithCancel(tc)
			defer stopLate()
			if late.Err() == nil {
				return errors.New("child of an ended context not ended")
			}
			return nil
		}},
		{"derived then cancelled", func(ctx context.Context, env Env) error {
			tc, cancel := env.Clock.WithTimeout(ctx, time.Minute)
			child, stop := context.WithCancel(tc)
			defer stop()
			cancel()
			if !errors.Is(child.Err(), context.Canceled) || !errors.Is(tc.Err(), context.Canceled) {
				return errors.New(errString(child.Err()) + ", " + errString(tc.Err()))
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			done := false
			mustRun(t, testConfig(1, 2*time.Hour, func(ctx context.Context, env Env) error {
				err = c.run(ctx, env)
				done = true
				return nil
			}))
			if !done {
				t.Fatal("the case did not finish")
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestCoroutinesAreReused checks that the tasks' coroutines go back to the
// worker's pool: many runs in a row, some of whose tasks panic and all of
// whose tasks are unwound at the end, leave no goroutines behind and give
// the same hash as the first time.
func TestCoroutinesAreReused(t *testing.T) {
	run := func(seed uint64, panicking bool) *Result {
		cfg := testConfig(3, 30*time.Second, func(ctx context.Context, env Env) error {
			if panicking && env.Node == 1 {
				_ = env.Clock.Sleep(ctx, time.Second)
				panic("protocol bug")
			}
			return naiveLease(ctx, env)
		})
		cfg.Seed = seed
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run(1, false)
	before := runtime.NumGoroutine()
	for i := range 50 {
		if res := run(uint64(2+i%3), i%2 == 0); i%2 == 0 && (res.Failure == nil || res.Failure.Kind != FailurePanic) {
			t.Fatalf("run %d: failure %v, want a panic", i, res.Failure)
		}
	}
	if again := run(1, false); again.Hash() != first.Hash() || again.Steps != first.Steps {
		t.Fatalf("hash %x, %d steps; the first time %x, %d steps", again.Hash(), again.Steps, first.Hash(), first.Steps)
	}
	if after := runtime.NumGoroutine(); after > before+5 {
		t.Fatalf("%d goroutines after the runs, %d before", after, before)
	}
}

// TestPhasesChangeNothing checks that timing a run phase by phase leaves
// the run as it is, and measures both phases.
func TestPhasesChangeNothing(t *testing.T) {
	cfg := testConfig(4, 30*time.Second, naiveLease)
	cfg.Seed = 3
	want := mustRun(t, cfg)
	p := NewPhases()
	cfg.Phases = p
	got := mustRun(t, cfg)
	if got.Hash() != want.Hash() || got.Steps != want.Steps {
		t.Fatalf("timed: hash %x, %d steps; untimed %x, %d steps", got.Hash(), got.Steps, want.Hash(), want.Steps)
	}
	if p.Runs != 1 || p.Simulation <= 0 || p.Protocol <= 0 || p.Overhead <= 0 {
		t.Fatalf("phases %+v", p)
	}
	q := p.Fork()
	cfg.Phases = q
	mustRun(t, cfg)
	p.Add(q)
	if p.Runs != 2 {
		t.Fatalf("%d runs after Add", p.Runs)
	}
}

// TestReleasedHistoriesAreReused checks that a run recording into the
// buffers of a released history records what it would have recorded into
// fresh ones, and that lists it recorded nothing into stay nil.
func TestReleasedHistoriesAreReused(t *testing.T) {
	run := func(seed uint64) *Result {
		cfg := testConfig(3, 20*time.Second, naiveLease)
		cfg.Seed = seed
		return mustRun(t, cfg)
	}
	want := run(5)
	wantS3, wantWrites := append([]S3Op(nil), want.History.S3...), append([]FencedWrite(nil), want.History.Writes...)
	for seed := uint64(1); seed <= 4; seed++ {
		run(seed).Release()
	}
	got := run(5)
	if got.Hash() != want.Hash() || !slices.Equal(got.History.S3, wantS3) || !slices.Equal(got.History.Writes, wantWrites) {
		t.Fatal("a run into released buffers recorded another history")
	}
	if got.History.Faults != nil {
		t.Fatalf("faults %v; want nil", got.History.Faults)
	}
	got.Release()
	if got.History != nil {
		t.Fatal("History kept after Release")
	}
	got.Release() // twice is harmless
}
