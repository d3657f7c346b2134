package sim

import (
	"context"
	"errors"
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
