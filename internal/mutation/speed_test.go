package mutation

import (
	"strings"
	"testing"
)

// TestSpeedOnlyIsDerivedFromTheFailedTests: a mutant the swarm passes and
// that fails only speed guards is speed-only, left out of the scores and
// listed in a section of its own; one that also fails a test of values,
// or fails before any test runs, is killed by the tests.
func TestSpeedOnlyIsDerivedFromTheFailedTests(t *testing.T) {
	o := &Options{SpeedGuards: []string{"TestFast", "TestFastToo"}}
	for _, c := range []struct {
		status Status
		failed []string
		want   Status
	}{
		{KilledByTests, []string{"TestFast"}, SpeedOnly},
		{KilledByTests, []string{"TestFastToo", "TestFast"}, SpeedOnly},
		{KilledByTests, []string{"TestFast", "TestValues"}, KilledByTests},
		{KilledByTests, []string{"example.com/lib"}, KilledByTests},
		{KilledByTests, nil, KilledByTests},
		{Survived, nil, Survived},
		{KilledBySwarm, nil, KilledBySwarm},
	} {
		if got := o.status(Result{Status: c.status, FailedTests: c.failed}); got != c.want {
			t.Errorf("%s failing %v: status %s, want %s", c.status, c.failed, got, c.want)
		}
	}
	if got := (&Options{}).status(Result{Status: KilledByTests, FailedTests: []string{"TestFast"}}); got != KilledByTests {
		t.Errorf("without speed guards: status %s, want %s", got, KilledByTests)
	}

	entry := func(id string, s Status, failed ...string) Entry {
		return Entry{Mutant: Mutant{ID: id, Area: AreaElection}, Status: s, Result: &Result{Status: s, FailedTests: failed, Tested: true}}
	}
	r := newReport([]Entry{
		entry("a", KilledBySwarm), entry("b", KilledBySwarm), entry("c", KilledByTests, "TestValues"),
		entry("d", Survived), entry("e", SpeedOnly, "TestFast"),
	})
	if c := r.Counts; c.SpeedOnly != 1 || c.Valid != 4 || r.SwarmScore != 50 || r.SuiteScore != 75 {
		t.Errorf("counts %+v, scores %.1f/%.1f; want 1 speed-only, 4 valid, 50/75", c, r.SwarmScore, r.SuiteScore)
	}
	var md strings.Builder
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Speed-only mutants") || !strings.Contains(md.String(), "| e |") ||
		!strings.Contains(md.String(), "its 1 speed-only mutants would make the swarm score 40.0%") {
		t.Errorf("the markdown report does not list the speed-only mutant:\n%s", md.String())
	}
}
