package scenarios

import (
	"errors"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// naiveLiveness is a test-only scenario that fails liveness: the naive lock
// (which leads for three quarters of its lease, then releases and rests)
// judged as if it promised a stable leader within 10 s of the heal, under
// naive-skew's crashes and restarts without its clock offsets.
var naiveLiveness = register(Scenario{
	Name:   "test-naive-liveness",
	Doc:    "test only: the naive lock judged against a 10 s liveness bound; it never keeps a leader, so every run fails liveness",
	Expect: Caught,
	Build: func(seed uint64) Setup {
		p := NaiveLock{Lease: 4 * time.Second}.Protocol()
		p.LivenessBound = 10 * time.Second
		cfg := baseConfig(seed, p)
		plan := modeBSkewPlan(seed, cfg.Nodes)
		plan.Clocks = nil
		return Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// size is what Shrink makes smaller, as run: plan events, nodes, duration.
type size struct {
	events, clocks, nodes int
	duration, healAt      time.Duration
}

func sizeOf(t *testing.T, r *Reproducer) size {
	t.Helper()
	s, err := r.Setup()
	if err != nil {
		t.Fatal(err)
	}
	z := size{nodes: s.Config.Nodes, duration: s.Config.Duration}
	if s.Plan != nil {
		z.events, z.clocks, z.healAt = len(s.Plan.Events), len(s.Plan.Clocks), s.Plan.HealAt.D()
	}
	return z
}

// checkShrunk asserts that min, written and read back, still fails with
// the signature of r's run and is no larger than r in any way, and
// returns both sizes.
func checkShrunk(t *testing.T, r, small *Reproducer, want Signature) (before, after size) {
	t.Helper()
	back := loadBytes(t, marshal(t, small))
	o, err := back.Run(false)
	if err != nil {
		t.Fatal(err)
	}
	if got := SignatureOf(o); !got.Equal(want) || back.Expect == nil || !back.Expect.Equal(want) {
		t.Fatalf("shrunk reproducer shows %s, expects %v; want %s\n%s", got, back.Expect, want, marshal(t, small))
	}
	if back.Seed != r.Seed || back.Scenario != r.Scenario {
		t.Fatalf("shrinking changed the run: %s seed %d from %s seed %d", back.Scenario, back.Seed, r.Scenario, r.Seed)
	}
	before, after = sizeOf(t, r), sizeOf(t, back)
	if after.events > before.events || after.clocks > before.clocks || after.nodes > before.nodes || after.duration > before.duration {
		t.Fatalf("shrinking grew the run: %+v from %+v", after, before)
	}
	if after == before {
		t.Fatalf("shrinking made nothing smaller: %+v", after)
	}
	return before, after
}

// TestShrinkBrokenScenarios shrinks failing seeds of the scenarios that run
// broken protocols: the result fails alike and is smaller.
func TestShrinkBrokenScenarios(t *testing.T) {
	for _, sc := range []Scenario{NaiveSkew, UnconditionalWrite} {
		for seed := uint64(1); seed <= 3; seed++ {
			o, err := RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict == Pass {
				continue
			}
			r := ReproducerFor(o)
			small, runs, err := Shrink(r, 300)
			if err != nil {
				t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
			}
			if runs < 2 || runs > 300 {
				t.Fatalf("%s seed %d: %d runs for a budget of 300", sc.Name, seed, runs)
			}
			before, after := checkShrunk(t, r, small, SignatureOf(o))
			if after.events >= max(before.events, 1) && after.nodes >= before.nodes {
				t.Errorf("%s seed %d: neither fewer events nor fewer nodes: %+v from %+v", sc.Name, seed, after, before)
			}
			t.Logf("%s seed %d (%s): %d events, %d clocks, %d nodes, %v -> %d events, %d clocks, %d nodes, %v; %d runs",
				sc.Name, seed, SignatureOf(o), before.events, before.clocks, before.nodes, before.duration,
				after.events, after.clocks, after.nodes, after.duration, runs)
		}
	}
}

// TestShrinkSwarmPlanOnNaiveLock gives the naive lock swarm plans, so that
// there are many events to remove, and checks that few remain. With
// naive-skew's clock offsets the lock fails without any event; with the
// offsets and knobs taken out, only plans whose events break the lock (the
// same seed with no faults passes) are kept, and the shrunk plan must keep
// the event that does it.
func TestShrinkSwarmPlanOnNaiveLock(t *testing.T) {
	p := Elector(DefaultElectorSettings)
	space := faults.SwarmSpace{Nodes: 5, HealAt: 45 * time.Second, DriftPPM: DefaultElectorSettings.ClockDriftPPM,
		MaxPause: p.Assumptions.MaxPause, Lease: DefaultElectorSettings.LeaseDuration}
	for _, skewed := range []bool{true, false} {
		shrunk := 0
		for seed := uint64(1); seed <= 2000 && shrunk < 3; seed++ {
			plan := faults.Swarm(seed, space)
			if len(plan.Events) < 6 {
				continue
			}
			if skewed {
				plan.Clocks = modeBSkewPlan(seed, space.Nodes).Clocks
			} else {
				plan.Clocks, plan.S3, plan.SDKAttempts = nil, faults.Knobs{}, 0
			}
			r := &Reproducer{Version: ReproVersion, Scenario: NaiveSkew.Name, Seed: seed, Plan: plan}
			o, err := r.Run(false)
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict == Pass {
				continue
			}
			if !skewed {
				calm := &Reproducer{Version: ReproVersion, Scenario: NaiveSkew.Name, Seed: seed, Plan: &faults.Plan{HealAt: plan.HealAt}}
				if o, err := calm.Run(false); err != nil || o.Verdict != Pass {
					continue // fails without the events: they are not what breaks it
				}
			}
			shrunk++
			small, runs, err := Shrink(r, 500)
			if err != nil {
				t.Fatal(err)
			}
			before, after := checkShrunk(t, r, small, SignatureOf(o))
			t.Logf("skewed %v, swarm plan seed %d on the naive lock (%s): %d events, %d clocks, %d nodes, %v -> %d events, %d clocks, %d nodes, %v; %d runs",
				skewed, seed, SignatureOf(o), before.events, before.clocks, before.nodes, before.duration,
				after.events, after.clocks, after.nodes, after.duration, runs)
			if after.events > 2 || !skewed && after.events == 0 {
				t.Errorf("seed %d: %d of %d events left; want at most 2 (and at least 1 without skew):\n%s", seed, after.events, before.events, marshal(t, small))
			}
		}
		if shrunk == 0 {
			t.Fatalf("skewed %v: no failing swarm plan with 6 or more events", skewed)
		}
	}
}

// TestShrinkLiveness: a liveness failure shrinks with its liveness phase
// kept long enough to be judged: duration beyond healAt plus the bound.
func TestShrinkLiveness(t *testing.T) {
	o, err := RunSeed(naiveLiveness, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict != Stuck {
		t.Fatalf("%s seed 1: verdict %v, want liveness", naiveLiveness.Name, o.Verdict)
	}
	r := ReproducerFor(o)
	small, runs, err := Shrink(r, 300)
	if err != nil {
		t.Fatal(err)
	}
	before, after := checkShrunk(t, r, small, SignatureOf(o))
	if after.duration <= after.healAt+10*time.Second {
		t.Fatalf("duration %v, healAt %v: the liveness phase is too short to judge", after.duration, after.healAt)
	}
	if after.duration >= before.duration {
		t.Errorf("the run did not get shorter: %v", after.duration)
	}
	t.Logf("liveness: %d events, %d nodes, %v (healAt %v) -> %d events, %d nodes, %v (healAt %v); %d runs",
		before.events, before.nodes, before.duration, before.healAt, after.events, after.nodes, after.duration, after.healAt, runs)
}

// TestShrinkRefuses: a passing run, or one that fails otherwise than the
// reproducer expects, has nothing to shrink; a budget of 1 spends its run
// on learning the signature and returns the reproducer as it was.
func TestShrinkRefuses(t *testing.T) {
	pass := &Reproducer{Version: ReproVersion, Scenario: ElectorSkew.Name, Seed: 1}
	if _, _, err := Shrink(pass, 100); !errors.Is(err, ErrNothingToShrink) {
		t.Fatalf("passing run: %v", err)
	}
	wrong := &Reproducer{Version: ReproVersion, Scenario: NaiveSkew.Name, Seed: 1, Expect: &Signature{Verdict: "unsafe", Checkers: []string{"unique-holder"}}}
	if _, _, err := Shrink(wrong, 100); !errors.Is(err, ErrNothingToShrink) {
		t.Fatalf("unexpected signature: %v", err)
	}
	if _, _, err := Shrink(&Reproducer{Version: ReproVersion, Scenario: "nope"}, 100); !errors.Is(err, ErrBadReproducer) {
		t.Fatalf("bad reproducer: %v", err)
	}
	if _, _, err := Shrink(pass, 0); err == nil {
		t.Fatal("budget 0 accepted")
	}
	r := &Reproducer{Version: ReproVersion, Scenario: NaiveSkew.Name, Seed: 1}
	same, runs, err := Shrink(r, 1)
	if err != nil || runs != 1 {
		t.Fatalf("budget 1: %d runs, %v", runs, err)
	}
	if b, a := sizeOf(t, r), sizeOf(t, same); a != b {
		t.Fatalf("budget 1 changed the run: %+v from %+v", a, b)
	}
}
