package sim

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
)

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
	// What the phases measured is real time, which a loaded machine may
	// leave at nothing once the clock's cost is taken out: only its
	// shape is judged here.
	if p.Runs != 1 || p.Simulation < 0 || p.Protocol < 0 || p.Overhead < 0 || p.Simulation+p.Protocol <= 0 {
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
