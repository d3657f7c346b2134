package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

// TestPanicAndLivelockAreCrashes: a protocol that panics, or that spins
// without letting time pass, gives a Crashed outcome with the reason, not
// a dead harness and not a pass.
func TestPanicAndLivelockAreCrashes(t *testing.T) {
	for name, c := range map[string]sim.Candidate{
		"panic": func(ctx context.Context, env sim.Env) error {
			_ = env.Clock.Sleep(ctx, time.Second)
			panic("protocol bug")
		},
		"livelock": func(ctx context.Context, env sim.Env) error {
			for {
				_ = env.Clock.Sleep(ctx, 0)
			}
		},
	} {
		p := harness.Protocol{Name: name, Candidate: c}
		cfg := harness.World(1)
		cfg.MaxSteps = 100_000
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Protocol: p}, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Crashed || o.Result.Failure == nil {
			t.Fatalf("%s: verdict %v, failure %v", name, o.Verdict, o.Result.Failure)
		}
		if name == "panic" && !strings.Contains(o.Result.Failure.Message, "protocol bug") {
			t.Fatalf("panic not reported: %v", o.Result.Failure)
		}
	}
}

// TestLivenessFailureIsItsOwnVerdict: a protocol that never leads again
// after the heal is judged Liveness, not Unsafe or Pass.
func TestLivenessFailureIsItsOwnVerdict(t *testing.T) {
	lazy := harness.Protocol{Name: "lazy", LivenessBound: 5 * time.Second,
		Candidate: func(ctx context.Context, env sim.Env) error { return env.Clock.Sleep(ctx, time.Hour) }}
	o, err := harness.RunSetup(harness.Setup{Config: harness.World(1), Plan: &faults.Plan{HealAt: faults.Duration(10 * time.Second)}, Protocol: lazy}, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict != harness.Liveness || len(o.Violations) != 1 || o.Violations[0].Checker != "liveness" {
		t.Fatalf("verdict %v, violations %v", o.Verdict, o.Violations)
	}
}

// TestOverlapInsideAssumptionsIsUnsafe and outside is expected: the same
// overlapping history is judged by where the plan falls.
func TestOverlapJudgedByAssumptions(t *testing.T) {
	naive := zoo.NaiveLock{Lease: 4 * time.Second}.Protocol()
	skew := &faults.Plan{}
	for i := range 5 {
		skew.Clocks = append(skew.Clocks, faults.ClockSetting{Node: i, Offset: faults.Duration(time.Duration(i-2) * 1500 * time.Millisecond)})
	}
	overlapped := false
	for seed := uint64(1); seed <= 10 && !overlapped; seed++ {
		inside, err := harness.RunSetup(harness.Setup{Config: harness.World(seed), Plan: skew, Protocol: naive}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(inside.Overlaps) == 0 {
			continue
		}
		overlapped = true
		if inside.Verdict != harness.Unsafe {
			t.Fatalf("seed %d: overlap inside the assumptions judged %v", seed, inside.Verdict)
		}
		// Declare an assumption the plan breaks: the overlap becomes expected.
		strict := naive
		strict.Assumptions.MaxDriftPPM = -1
		drift := *skew
		drift.Clocks = append([]faults.ClockSetting(nil), skew.Clocks...)
		drift.Clocks[0].DriftPPM = 1
		outside, err := harness.RunSetup(harness.Setup{Config: harness.World(seed), Plan: &drift, Protocol: strict}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(outside.Outside) == 0 || len(outside.Overlaps) == 0 {
			t.Fatalf("seed %d: outside %v, overlaps %v", seed, outside.Outside, outside.Overlaps)
		}
		for _, v := range outside.Violations {
			if v.Checker == "overlap" {
				t.Fatalf("seed %d: overlap outside the assumptions counted as a violation", seed)
			}
		}
	}
	if !overlapped {
		t.Fatal("the skewed naive lock never overlapped in 10 seeds")
	}
}
