package harness

import (
	"context"
	"errors"
	"testing"

	"github.com/s3lease/s3lease/sim"
)

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
		p := Protocol{Name: "covered", Candidate: func(context.Context, sim.Env) error { return nil }, Coverage: sets}
		if _, err := RunSetup(Setup{Config: World(1), Protocol: p}, false); !errors.Is(err, ErrInvalidSetup) {
			t.Errorf("%s: RunSetup: %v, want ErrInvalidSetup", name, err)
		}
	}
	if err := ValidateCoverage([]CoverageSet{{Name: "x", Points: []string{"a", "a"}}}); !errors.Is(err, ErrInvalidSetup) {
		t.Errorf("a point twice: %v", err)
	}
}
