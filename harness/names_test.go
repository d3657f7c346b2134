package harness_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// TestSwarmRunsTheNamesItDraws: on the swarm seeds that draw identities,
// the elector's terms are held under them (a restart that names no
// identity of its own keeps the node's name; one with a suffix appends
// it), and the runs pass.
func TestSwarmRunsTheNamesItDraws(t *testing.T) {
	sc := harness.Swarm("names-test", elector.Protocol(elector.DefaultSettings))
	runs, named := 0, 0
	for seed := uint64(1); seed <= 200 && runs < 8; seed++ {
		plan := sc.Build(seed).Plan
		if plan.Names == nil {
			continue
		}
		runs++
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Errorf("seed %d (names %q): %s %v", seed, plan.Names, o.Verdict, o.Violations)
		}
		for _, term := range o.Result.History.Terms {
			name := plan.Names[term.Node]
			// A swarm restart may also name a new process n<i>-r<k>.
			if !strings.HasPrefix(term.Identity, name) && !strings.HasPrefix(term.Identity, fmt.Sprintf("n%d-r", term.Node)) {
				t.Errorf("seed %d: n%d led as %q; its name is %q", seed, term.Node, term.Identity, name)
			}
			if strings.HasPrefix(term.Identity, name) && name != fmt.Sprintf("n%d", term.Node) {
				named++
			}
		}
	}
	if runs < 8 || named == 0 {
		t.Fatalf("%d seeds of 1..200 draw names, %d terms held under a drawn name; want 8 seeds and some terms", runs, named)
	}
}
