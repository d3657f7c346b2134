package scenarios

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// naiveLiveness is a test-only scenario that fails liveness: the naive lock
// (which leads for three quarters of its lease, then releases and rests)
// judged as if it promised a stable leader within 10 s of the heal, under
// naive-skew's crashes and restarts without its clock offsets.
var naiveLiveness = harness.Drawn(harness.Scenario{
	Name:   "test-naive-liveness",
	Doc:    "test only: the naive lock judged against a 10 s liveness bound; it never keeps a leader, so every run fails liveness",
	Expect: harness.Caught,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := zoo.NaiveLock{Lease: 4 * time.Second}.Protocol()
		p.LivenessBound = 10 * time.Second
		cfg := harness.World(seed)
		plan := modeBSkewPlan(src.Sub("skew"), cfg.Nodes)
		plan.Clocks = nil
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})

// size is what Shrink makes smaller, as run: plan events, nodes, duration.
type size struct {
	events, clocks, nodes int
	duration, healAt      time.Duration
}

func sizeOf(t *testing.T, r *harness.Reproducer) size {
	t.Helper()
	s, err := r.Setup(scenario(t, r.Scenario))
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
func checkShrunk(t *testing.T, r, small *harness.Reproducer, want harness.Signature) (before, after size) {
	t.Helper()
	back := loadBytes(t, marshal(t, small))
	o, err := back.Run(scenario(t, back.Scenario), false)
	if err != nil {
		t.Fatal(err)
	}
	// The shrunk run fails as it expects to, and as the original did: the
	// same verdict and some of its checkers, none other.
	got := harness.SignatureOf(o)
	same := got.Verdict == want.Verdict && len(got.Checkers) > 0 == (len(want.Checkers) > 0)
	for _, c := range got.Checkers {
		same = same && slices.Contains(want.Checkers, c)
	}
	if !same || back.Expect == nil || !back.Expect.Equal(got) {
		t.Fatalf("shrunk reproducer shows %s, expects %v; want the failure of %s\n%s", got, back.Expect, want, marshal(t, small))
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
	for _, sc := range []harness.Scenario{NaiveSkew, UnconditionalWrite} {
		for seed := uint64(1); seed <= 3; seed++ {
			o, err := harness.RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict == harness.Pass {
				continue
			}
			r := harness.ReproducerFor(scenario(t, o.Scenario), o)
			small, runs, err := harness.Shrink(scenario(t, r.Scenario), r, 300)
			if err != nil {
				t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
			}
			if runs < 2 || runs > 300 {
				t.Fatalf("%s seed %d: %d runs for a budget of 300", sc.Name, seed, runs)
			}
			before, after := checkShrunk(t, r, small, harness.SignatureOf(o))
			if after.events >= max(before.events, 1) && after.nodes >= before.nodes {
				t.Errorf("%s seed %d: neither fewer events nor fewer nodes: %+v from %+v", sc.Name, seed, after, before)
			}
			t.Logf("%s seed %d (%s): %d events, %d clocks, %d nodes, %v -> %d events, %d clocks, %d nodes, %v; %d runs",
				sc.Name, seed, harness.SignatureOf(o), before.events, before.clocks, before.nodes, before.duration,
				after.events, after.clocks, after.nodes, after.duration, runs)
		}
	}
}

// TestShrinkSwarmPlanOnNaiveLock gives the naive lock swarm plans, so that
// there are many events to remove, and checks that few remain. With
// naive-skew's clock offsets the lock fails without any event (at most
// two remain); with the offsets and knobs taken out, only plans whose
// events break the lock (the same seed with no faults passes) are kept,
// and the shrunk plan must keep an event that does it, and at most half.
func TestShrinkSwarmPlanOnNaiveLock(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	space := faults.Space{Nodes: 5, HealAt: 45 * time.Second, Bounds: faults.Bounds{Assumptions: p.Assumptions}}
	for _, skewed := range []bool{true, false} {
		shrunk := 0
		for seed := uint64(1); seed <= 2000 && shrunk < 3; seed++ {
			plan := faults.Draw(faults.NewSource(seed), space)
			if len(plan.Events) < 6 {
				continue
			}
			if skewed {
				plan.Clocks = modeBSkewPlan(faults.NewSource(seed).Sub("skew"), space.Nodes).Clocks
			} else {
				plan.Clocks, plan.S3, plan.SDKAttempts = nil, faults.Knobs{}, 0
			}
			r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: NaiveSkew.Name, Seed: seed, Plan: plan}
			o, err := r.Run(scenario(t, r.Scenario), false)
			if err != nil {
				t.Fatal(err)
			}
			if o.Verdict == harness.Pass {
				continue
			}
			if !skewed {
				calm := &harness.Reproducer{Version: harness.ReproVersion, Scenario: NaiveSkew.Name, Seed: seed, Plan: &faults.Plan{HealAt: plan.HealAt}}
				if o, err := calm.Run(scenario(t, calm.Scenario), false); err != nil || o.Verdict != harness.Pass {
					continue // fails without the events: they are not what breaks it
				}
			}
			shrunk++
			small, runs, err := harness.Shrink(scenario(t, r.Scenario), r, 500)
			if err != nil {
				t.Fatal(err)
			}
			before, after := checkShrunk(t, r, small, harness.SignatureOf(o))
			t.Logf("skewed %v, swarm plan seed %d on the naive lock (%s): %d events, %d clocks, %d nodes, %v -> %d events, %d clocks, %d nodes, %v; %d runs",
				skewed, seed, harness.SignatureOf(o), before.events, before.clocks, before.nodes, before.duration,
				after.events, after.clocks, after.nodes, after.duration, runs)
			if most := max(2, before.events/2); after.events > most || !skewed && after.events == 0 {
				t.Errorf("seed %d: %d of %d events left; want at most %d (and at least 1 without skew):\n%s", seed, after.events, before.events, most, marshal(t, small))
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
	o, err := harness.RunSeed(naiveLiveness, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict != harness.Liveness {
		t.Fatalf("%s seed 1: verdict %v, want liveness", naiveLiveness.Name, o.Verdict)
	}
	r := harness.ReproducerFor(scenario(t, o.Scenario), o)
	small, runs, err := harness.Shrink(scenario(t, r.Scenario), r, 300)
	if err != nil {
		t.Fatal(err)
	}
	before, after := checkShrunk(t, r, small, harness.SignatureOf(o))
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
	pass := &harness.Reproducer{Version: harness.ReproVersion, Scenario: ElectorSkew.Name, Seed: 1}
	if _, _, err := harness.Shrink(scenario(t, pass.Scenario), pass, 100); !errors.Is(err, harness.ErrNothingToShrink) {
		t.Fatalf("passing run: %v", err)
	}
	wrong := &harness.Reproducer{Version: harness.ReproVersion, Scenario: NaiveSkew.Name, Seed: 1, Expect: &harness.Signature{Verdict: "unsafe", Checkers: []string{"unique-holder"}}}
	if _, _, err := harness.Shrink(scenario(t, wrong.Scenario), wrong, 100); !errors.Is(err, harness.ErrNothingToShrink) {
		t.Fatalf("unexpected signature: %v", err)
	}
	if _, _, err := harness.Shrink(harness.Scenario{}, &harness.Reproducer{Version: harness.ReproVersion, Scenario: "nope"}, 100); !errors.Is(err, harness.ErrBadReproducer) {
		t.Fatalf("bad reproducer: %v", err)
	}
	if _, _, err := harness.Shrink(scenario(t, pass.Scenario), pass, 0); err == nil {
		t.Fatal("budget 0 accepted")
	}
	r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: NaiveSkew.Name, Seed: 1}
	same, runs, err := harness.Shrink(scenario(t, r.Scenario), r, 1)
	if err != nil || runs != 1 {
		t.Fatalf("budget 1: %d runs, %v", runs, err)
	}
	if b, a := sizeOf(t, r), sizeOf(t, same); a != b {
		t.Fatalf("budget 1 changed the run: %+v from %+v", a, b)
	}
}

// TestShrinkSwarmBreadth: the first swarm failure of each masked zoo
// variant (settings, content before the run, applications, foreign writes
// and faults aimed at roles among its plan) shrinks: it keeps failing the
// same way with fewer plan events, and what the plan said of the world
// that the failure does not need (settings, content, applications) goes.
func TestShrinkSwarmBreadth(t *testing.T) {
	if testing.Short() {
		t.Skip("shrinks five swarm failures")
	}
	for _, sc := range zoo.MaskedScenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			var o *harness.Outcome
			for seed := uint64(1); seed <= 2000; seed++ {
				out, err := harness.RunSeed(sc, seed, false)
				if err != nil {
					t.Fatal(err)
				}
				if out.Verdict != harness.Pass {
					o = out
					break
				}
			}
			if o == nil {
				t.Fatal("no failing seed in 2000")
			}
			r := harness.ReproducerFor(scenario(t, o.Scenario), o)
			small, runs, err := harness.Shrink(scenario(t, r.Scenario), r, 400)
			if err != nil {
				t.Fatal(err)
			}
			before, after := checkShrunk(t, r, small, harness.SignatureOf(o))
			setup := func(p *faults.Plan) int {
				return len(p.Settings) + len(p.Apps) + map[bool]int{true: 1}[p.Initial != nil]
			}
			t.Logf("seed %d (%s): %d events, %d settings/apps/content -> %d events, %d; %d runs",
				o.Seed, harness.SignatureOf(o), before.events, setup(r.Plan), after.events, setup(small.Plan), runs)
			if after.events > before.events || after.events == before.events && setup(small.Plan) == setup(r.Plan) && before.events > 0 {
				t.Errorf("seed %d: nothing removed:\n%s", o.Seed, marshal(t, small))
			}
		})
	}
}
