package elector

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestCoverageChangesNoRun: recording the elector's coverage draws no
// choice and writes no trace event: swarm runs of the elector that
// declares its coverage and of the same elector declaring none have the
// same traces and verdicts, and only the first marks transitions.
func TestCoverageChangesNoRun(t *testing.T) {
	with := Protocol(DefaultSettings)
	without := with
	without.Coverage = nil
	a, b := harness.Swarm("coverage-with", with), harness.Swarm("coverage-without", without)
	transitions := len(protocol.Transitions())
	for seed := uint64(1); seed <= 30; seed++ {
		oa, err := harness.RunSeed(a, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := harness.RunSeed(b, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if oa.Result.Hash() != ob.Result.Hash() || oa.Verdict != ob.Verdict {
			t.Fatalf("seed %d: with coverage %016x %v, without %016x %v", seed, oa.Result.Hash(), oa.Verdict, ob.Result.Hash(), ob.Verdict)
		}
		if len(oa.Coverage) != 3 || oa.Coverage[0].Name != TransitionsSet || len(ob.Coverage) != 1 || ob.Coverage[0].Name != harness.RunShapes().Name {
			t.Fatalf("seed %d: sets %d and %d", seed, len(oa.Coverage), len(ob.Coverage))
		}
		marked := 0
		for i := range transitions {
			if oa.Reached.Has(i) {
				marked++
			}
		}
		if marked == 0 || !oa.Reached.Has(0) { // every run starts: stopped --start--> reading
			t.Fatalf("seed %d: %d transitions marked", seed, marked)
		}
		// The run shapes are the same.
		for i := range harness.RunShapes().Points {
			if oa.Reached.Hits(transitions+len(electorAnswers)+i) != ob.Reached.Hits(i) {
				t.Fatalf("seed %d: run shape %q: %d and %d", seed, harness.RunShapes().Points[i], oa.Reached.Hits(transitions+len(electorAnswers)+i), ob.Reached.Hits(i))
			}
		}
	}
}

// TestCoverageIsValid: the elector's coverage sets are ones a protocol may
// declare.
func TestCoverageIsValid(t *testing.T) {
	if err := harness.ValidateCoverage(Coverage()); err != nil {
		t.Errorf("the elector's: %v", err)
	}
}

// TestElectorCoverHooksAllocateNothing: marking a transition or an answer
// allocates nothing.
func TestElectorCoverHooksAllocateNothing(t *testing.T) {
	set := sim.NewCoverage(len(electorTransitions) + len(electorAnswers))
	c := &electorCover{set: &set}
	tr := electorTransitions[len(electorTransitions)/2]
	req := protocol.Request{Op: "GetObject", Purpose: protocol.PurposeFollow, Answer: protocol.CauseNotFound}
	if n := testing.AllocsPerRun(1000, func() { c.transition(tr); c.request(req) }); n != 0 {
		t.Fatalf("%v allocations per transition and answer", n)
	}
	if set.Hits(len(electorTransitions)/2) == 0 {
		t.Fatalf("%v not marked", tr)
	}
}

// BenchmarkElectorCoverHooks measures marking one transition and one
// answer, what the elector's Metrics hooks cost a run per step.
func BenchmarkElectorCoverHooks(b *testing.B) {
	set := sim.NewCoverage(len(electorTransitions) + len(electorAnswers))
	c := &electorCover{set: &set}
	req := protocol.Request{Op: "PutObject", Purpose: protocol.PurposeRenew, Answer: protocol.CauseOK}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.transition(electorTransitions[i%len(electorTransitions)])
		c.request(req)
	}
}
