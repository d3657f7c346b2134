package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

// acceptAll is a broken fence that admits every token.
type acceptAll struct{}

func (acceptAll) Admit(uint64) error { return nil }

// brokenScenario runs candidate in the reference world without restarts.
func brokenScenario(name string, c sim.Candidate, fence func() sim.Fence) harness.Scenario {
	return harness.Scenario{Name: name, Build: func(seed uint64) harness.Setup {
		p := harness.Protocol{Name: name, Candidate: c}
		cfg := harness.World(seed)
		cfg.NewFence = fence
		return harness.Setup{Config: cfg, Protocol: p}
	}}
}

// caughtBy runs seeds of sc until the named checker reports a violation and
// returns that seed's violation, failing the test if no seed of the budget
// is caught.
func caughtBy(t *testing.T, sc harness.Scenario, checker string, seeds uint64) linearizability.Violation {
	t.Helper()
	return caughtWith(t, sc, checker, "", seeds)
}

// caughtWith is caughtBy for a violation whose message contains text.
func caughtWith(t *testing.T, sc harness.Scenario, checker, text string, seeds uint64) linearizability.Violation {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict == harness.Crashed {
			t.Fatalf("seed %d crashed: %v", seed, o.Result.Failure)
		}
		for _, v := range o.Violations {
			if v.Checker == checker && strings.Contains(v.Message, text) {
				t.Logf("seed %d: %s", seed, v)
				return v
			}
		}
	}
	t.Fatalf("%s: checker %s caught nothing (%q) in %d seeds", sc.Name, checker, text, seeds)
	return linearizability.Violation{}
}

const naiveLease = 4 * time.Second

// TestUniqueHolderCatchesUnconditionalAcquire: acquiring by read and then an
// unconditional write lets two nodes both "win" the same token.
func TestUniqueHolderCatchesUnconditionalAcquire(t *testing.T) {
	sc := brokenScenario("unconditional", zoo.NaiveLock{Lease: naiveLease, Unconditional: true}.Protocol().Candidate, nil)
	v := caughtBy(t, sc, "unique-holder", 20)
	if len(v.Nodes) < 2 {
		t.Fatalf("violation names %v; want two holders", v.Nodes)
	}
}

// TestMonotonicTokensCatchesDeleteOnRelease: releasing by deleting the
// object resets the token that lived in it.
func TestMonotonicTokensCatchesDeleteOnRelease(t *testing.T) {
	sc := brokenScenario("delete-on-release", zoo.NaiveLock{Lease: naiveLease, DeleteOnRelease: true}.Protocol().Candidate, nil)
	caughtBy(t, sc, "monotonic-tokens", 20)
}

// TestFencingCatchesTokenReuse: a protocol that hands the same token to
// successive leaders gets writes from two nodes under one epoch accepted,
// even by a correct fence.
func TestFencingCatchesTokenReuse(t *testing.T) {
	sc := brokenScenario("same-token", zoo.NaiveLock{Lease: naiveLease, SameToken: true}.Protocol().Candidate, nil)
	caughtBy(t, sc, "fencing", 20)
}

// TestFencingCatchesBrokenFence: the naive lock judges expiry by comparing
// the expiry another node wrote with its own wall clock, so with clocks
// seconds apart a new leader takes over while the old one still writes. A
// correct fence rejects the old leader's writes; one that does not check
// tokens accepts them, and the fencing checker says so.
func TestFencingCatchesBrokenFence(t *testing.T) {
	skewed := func(fence func() sim.Fence) harness.Scenario {
		sc := brokenScenario("skewed", zoo.NaiveLock{Lease: naiveLease}.Protocol().Candidate, fence)
		base := sc.Build
		sc.Build = func(seed uint64) harness.Setup {
			s := base(seed)
			s.Config.Clocks = make([]sim.ClockModel, s.Config.Nodes)
			for i := range s.Config.Clocks {
				s.Config.Clocks[i].Offset = time.Duration(i-s.Config.Nodes/2) * 1500 * time.Millisecond
			}
			return s
		}
		return sc
	}
	caughtWith(t, skewed(func() sim.Fence { return acceptAll{} }), "fencing", "stale token", 20)
	// The fence is judged by the election's terms too: a write its sender
	// sent after the lease was handed on is reported whatever the fence
	// made of it.
	caughtWith(t, skewed(func() sim.Fence { return acceptAll{} }), "fencing", "the election had handed the lease on", 20)
	// The control: with a correct fence the same overlap breaks no rule of
	// the fence's (no stale write accepted, no current one refused); the
	// superseded writes it let through, before the new leader's first, are
	// the election's failure and are reported as such.
	for seed := uint64(1); seed <= 20; seed++ {
		o, err := harness.RunSeed(skewed(nil), seed, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range o.Violations {
			if v.Checker == "fencing" && v.Rule != linearizability.RuleSuperseded {
				t.Fatalf("seed %d: correct fence flagged: %s", seed, v)
			}
		}
	}
}

// TestCorrectNaiveLockPasses is the control: the same protocol with every
// switch off, perfect clocks and no faults, is safe, so the tests above fail
// because of the switch they turn on.
func TestCorrectNaiveLockPasses(t *testing.T) {
	sc := brokenScenario("naive-correct", zoo.NaiveLock{Lease: naiveLease}.Protocol().Candidate, nil)
	for seed := uint64(1); seed <= 20; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Fatalf("seed %d: %v %v %v", seed, o.Verdict, o.Violations, o.Result.Failure)
		}
		if len(o.Result.History.Terms) < 3 {
			t.Fatalf("seed %d: only %d terms; the control does not exercise handovers", seed, len(o.Result.History.Terms))
		}
	}
}

// TestReferenceProductionElectorIsSafe runs the production elector on the
// reference scenario and checks that leadership really changes hands, so
// that the checkers judge something.
func TestReferenceProductionElectorIsSafe(t *testing.T) {
	terms, handovers := 0, 0
	for seed := uint64(1); seed <= 100; seed++ {
		o, err := harness.RunSeed(Reference, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Fatalf("seed %d: %v %v %v", seed, o.Verdict, o.Violations, o.Result.Failure)
		}
		ts := o.Result.History.Terms
		terms += len(ts)
		for i := 1; i < len(ts); i++ {
			if ts[i].Node != ts[i-1].Node {
				handovers++
			}
		}
	}
	if handovers < 50 {
		t.Fatalf("only %d handovers in %d terms over 100 seeds", handovers, terms)
	}
}
