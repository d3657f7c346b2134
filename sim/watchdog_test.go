package sim

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockedAfterForTests is short so that the tests are quick; the guard
// below only keeps a test from hanging if detection fails.
const blockedAfterForTests = 500 * time.Millisecond

// runGuarded runs cfg and fails the test, instead of hanging it, if Run
// does not return within a generous real-time limit. It returns the world
// too, captured by Setup.
func runGuarded(t *testing.T, cfg Config) (*Result, *World) {
	t.Helper()
	var w *World
	setup := cfg.Setup
	cfg.Setup = func(world *World) {
		w = world
		if setup != nil {
			setup(world)
		}
	}
	type ran struct {
		res *Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := Run(cfg)
		done <- ran{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.res, w
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return: the blocked run was not detected")
	}
	return nil, nil
}

// awaitWorker waits until the abandoned world's worker goroutine has ended,
// once the test has released what its candidate was blocked on.
func awaitWorker(t *testing.T, w *World) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !w.live.ended.Load(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned run's goroutine did not end after its task was released")
		}
	}
}

// assertBlocked checks the typed fields of a blocked run's failure and that
// its stack shows the test's own function.
func assertBlocked(t *testing.T, res *Result, node int, at time.Duration, fn string) {
	t.Helper()
	f := res.Failure
	if f == nil || f.Kind != FailureBlocked || f.Node != node || f.At != at {
		t.Fatalf("failure = %+v; want %v on n%d at %v", f, FailureBlocked, node, at)
	}
	if !strings.Contains(f.Stack, fn) {
		t.Fatalf("the stack does not show %s:\n%s", fn, f.Stack)
	}
	if res.History == nil || res.Trace == nil || res.History.End != at {
		t.Fatalf("history and trace must be kept up to the block: %+v", res.History)
	}
}

func blockedConfig(nodes int, c Candidate) Config {
	cfg := testConfig(nodes, time.Minute, c)
	cfg.BlockedAfter = blockedAfterForTests
	return cfg
}

func TestBlockedOnBareChannelReceive(t *testing.T) {
	release := make(chan struct{})
	res, w := runGuarded(t, blockedConfig(2, func(ctx context.Context, env Env) error {
		if err := env.Clock.Sleep(ctx, time.Second); err != nil {
			return err
		}
		if env.Node == 1 {
			<-release
		}
		return env.Clock.Sleep(ctx, time.Hour)
	}))
	assertBlocked(t, res, 1, time.Second, "TestBlockedOnBareChannelReceive")
	if res.Failure.Error() == "" || res.Failure.Kind.String() != "blocked" {
		t.Fatalf("failure = %v", res.Failure)
	}
	// Once released, the task stops at its next simulated call and every
	// goroutine of the run ends.
	close(release)
	awaitWorker(t, w)
}

func TestBlockedOnContextDone(t *testing.T) {
	res, w := runGuarded(t, blockedConfig(1, func(ctx context.Context, env Env) error {
		<-ctx.Done() // the simulator cannot see this wait
		return ctx.Err()
	}))
	assertBlocked(t, res, 0, 0, "TestBlockedOnContextDone")
	w.Node(0).cancel()
	awaitWorker(t, w)
}

func TestBlockedOnMutexHeldAcrossSleep(t *testing.T) {
	var mu sync.Mutex
	res, w := runGuarded(t, blockedConfig(2, func(ctx context.Context, env Env) error {
		if env.Node == 0 {
			return env.Clock.Sleep(ctx, time.Hour)
		}
		_ = env.Clock.Sleep(ctx, 2*time.Second)
		mu.Lock()
		env.Clock.Go(func() {
			mu.Lock() // blocks the whole simulation: the holder sleeps in it
			mu.Unlock()
		})
		_ = env.Clock.Sleep(ctx, time.Second)
		mu.Unlock()
		return nil
	}))
	assertBlocked(t, res, 1, 2*time.Second, "TestBlockedOnMutexHeldAcrossSleep")
	mu.Unlock() // in place of the holder, whose task is unwound
	awaitWorker(t, w)
}

// TestBlockedInOrphanTask checks a task whose parent task has ended: the
// stack still shows it, though its ancestry no longer leads to the run.
func TestBlockedInOrphanTask(t *testing.T) {
	release := make(chan struct{})
	res, w := runGuarded(t, blockedConfig(1, func(ctx context.Context, env Env) error {
		env.Clock.Go(func() {
			env.Clock.Go(func() {
				_ = env.Clock.Sleep(ctx, time.Second)
				<-release
			})
		})
		return env.Clock.Sleep(ctx, time.Hour)
	}))
	assertBlocked(t, res, 0, time.Second, "TestBlockedInOrphanTask")
	close(release)
	awaitWorker(t, w)
}

func TestBlockedInRealSleep(t *testing.T) {
	res, w := runGuarded(t, blockedConfig(1, func(ctx context.Context, env Env) error {
		_ = env.Clock.Sleep(ctx, 3*time.Second)
		time.Sleep(blockedAfterForTests + time.Second)
		return env.Clock.Sleep(ctx, time.Hour)
	}))
	assertBlocked(t, res, 0, 3*time.Second, "TestBlockedInRealSleep")
	awaitWorker(t, w)
}

// TestBlockedInOutsideAction checks that a function of the outside world
// (World.At) that blocks is reported on no node.
func TestBlockedInOutsideAction(t *testing.T) {
	release := make(chan struct{})
	cfg := blockedConfig(1, func(ctx context.Context, env Env) error { return env.Clock.Sleep(ctx, time.Hour) })
	cfg.Setup = func(w *World) { w.At(5*time.Second, -1, func() { <-release }) }
	res, w := runGuarded(t, cfg)
	assertBlocked(t, res, -1, 5*time.Second, "TestBlockedInOutsideAction")
	close(release)
	awaitWorker(t, w)
}

// TestWatchdogLeavesRunsAlone checks that the watchdog changes nothing in a
// run that completes: the same hash and steps whether it watches with the
// default threshold, a huge one, or not at all.
func TestWatchdogLeavesRunsAlone(t *testing.T) {
	run := func(after time.Duration) *Result {
		cfg := testConfig(4, 30*time.Second, naiveLease)
		cfg.Seed = 7
		cfg.BlockedAfter = after
		cfg.S3Request = Latency{Min: time.Millisecond, Max: 30 * time.Millisecond}
		return mustRun(t, cfg)
	}
	want := run(-1)
	for _, after := range []time.Duration{0, time.Hour} {
		got := run(after)
		if got.Hash() != want.Hash() || got.Steps != want.Steps || len(got.History.Writes) != len(want.History.Writes) {
			t.Fatalf("BlockedAfter %v: hash %x, %d steps; without the watchdog %x, %d steps",
				after, got.Hash(), got.Steps, want.Hash(), want.Steps)
		}
	}
	if len(want.History.Terms) == 0 {
		t.Fatal("the run elected nobody: the comparison proves little")
	}
}

// TestPanicUnderWatchdog checks that a panic in protocol code is still a
// FailurePanic, and a panic of the outside world is raised on the caller's
// goroutine as it was before the run moved to a goroutine of its own.
func TestPanicUnderWatchdog(t *testing.T) {
	cfg := blockedConfig(1, func(ctx context.Context, env Env) error {
		_ = env.Clock.Sleep(ctx, time.Second)
		panic("protocol bug")
	})
	res, _ := runGuarded(t, cfg)
	if f := res.Failure; f == nil || f.Kind != FailurePanic || f.Node != 0 || f.At != time.Second {
		t.Fatalf("failure = %+v; want a panic on n0 at 1s", f)
	}

	boom := errors.New("scenario bug")
	cfg = blockedConfig(1, func(ctx context.Context, env Env) error { return env.Clock.Sleep(ctx, time.Hour) })
	cfg.Setup = func(w *World) { w.At(time.Second, -1, func() { panic(boom) }) }
	func() {
		defer func() {
			err, _ := recover().(error)
			if !errors.Is(err, boom) {
				t.Fatalf("recovered %v; want the scenario's panic", err)
			}
		}()
		_, _ = Run(cfg)
		t.Fatal("Run returned")
	}()
}

// TestGoexitUnderWatchdog checks that runtime.Goexit in a candidate (what
// t.FailNow does) ends the goroutine that called Run.
func TestGoexitUnderWatchdog(t *testing.T) {
	cfg := blockedConfig(1, func(ctx context.Context, env Env) error {
		_ = env.Clock.Sleep(ctx, time.Second)
		runtime.Goexit()
		return nil
	})
	returned := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Run(cfg)
		returned = true
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not end")
	}
	if returned {
		t.Fatal("Run returned; want its caller's goroutine to exit")
	}
}
