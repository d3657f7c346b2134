package harness_test

import (
	"errors"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// TestSetupHasOneCandidate: the candidate a run's nodes execute is its
// protocol's; a Setup that names another in its world is refused rather
// than run with one and judged as the other.
func TestSetupHasOneCandidate(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	broken := variant(t, "unconditional-acquire")
	cfg := harness.World(1)
	cfg.Candidate = broken.Candidate
	if _, err := harness.RunSetup(harness.Setup{Config: cfg, Protocol: p}, false); !errors.Is(err, harness.ErrInvalidSetup) {
		t.Fatalf("a Setup whose world names its own candidate: err = %v, want ErrInvalidSetup", err)
	}
	if _, err := harness.RunSetup(harness.Setup{Config: harness.World(1), Protocol: harness.Protocol{Name: "none"}}, false); !errors.Is(err, harness.ErrInvalidSetup) {
		t.Fatalf("a protocol without a candidate: err = %v, want ErrInvalidSetup", err)
	}
	o, err := harness.RunSetup(harness.Setup{Config: harness.World(1), Protocol: broken}, false)
	if err != nil || o.Verdict != harness.Unsafe {
		t.Fatalf("the broken protocol's own run: %v, %v; want unsafe", o, err)
	}
}
