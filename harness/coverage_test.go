package harness

import (
	"errors"
	"testing"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestCoverageChangesNoRun: recording the elector's coverage draws no
// choice and writes no trace event: swarm runs of the elector that
// declares its coverage and of the same elector declaring none have the
// same traces and verdicts, and only the first marks transitions.
func TestCoverageChangesNoRun(t *testing.T) {
	with := Elector(DefaultElectorSettings)
	without := with
	without.Coverage = nil
	a, b := Swarm("coverage-with", with), Swarm("coverage-without", without)
	transitions := len(protocol.Transitions())
	for seed := uint64(1); seed <= 30; seed++ {
		oa, err := RunSeed(a, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := RunSeed(b, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if oa.Result.Hash() != ob.Result.Hash() || oa.Verdict != ob.Verdict {
			t.Fatalf("seed %d: with coverage %016x %v, without %016x %v", seed, oa.Result.Hash(), oa.Verdict, ob.Result.Hash(), ob.Verdict)
		}
		if len(oa.Coverage) != 3 || oa.Coverage[0].Name != ElectorTransitionsSet || len(ob.Coverage) != 1 || ob.Coverage[0].Name != runShapes.Name {
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
		for i := range runShapes.Points {
			if oa.Reached.Hits(transitions+len(electorAnswers)+i) != ob.Reached.Hits(i) {
				t.Fatalf("seed %d: run shape %q: %d and %d", seed, runShapes.Points[i], oa.Reached.Hits(transitions+len(electorAnswers)+i), ob.Reached.Hits(i))
			}
		}
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

// TestCoverageSetsChecked: a protocol's coverage sets must be named, once
// each, and have points; RunSetup refuses others, ValidateCoverage also
// a point named twice.
func TestCoverageSetsChecked(t *testing.T) {
	for name, sets := range map[string][]CoverageSet{
		"unnamed":    {{Points: []string{"a"}}},
		"twice":      {{Name: "x", Points: []string{"a"}}, {Name: "x", Points: []string{"b"}}},
		"no points":  {{Name: "x"}},
		"run shapes": {{Name: runShapes.Name, Points: []string{"a"}}},
	} {
		p := Elector(DefaultElectorSettings)
		p.Coverage = sets
		if _, err := RunSetup(Setup{Config: World(1), Protocol: p}, false); !errors.Is(err, ErrInvalidSetup) {
			t.Errorf("%s: RunSetup: %v, want ErrInvalidSetup", name, err)
		}
	}
	if err := ValidateCoverage([]CoverageSet{{Name: "x", Points: []string{"a", "a"}}}); !errors.Is(err, ErrInvalidSetup) {
		t.Errorf("a point twice: %v", err)
	}
	if err := ValidateCoverage(ElectorCoverage()); err != nil {
		t.Errorf("the elector's: %v", err)
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
