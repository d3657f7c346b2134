package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestExploreCatchesSmallZooVariants: the zoo variants whose bug shows with
// two nodes in a short run are caught by exhaustive exploration (simrun
// explore -scenario zoo/NAME -seed 5 -duration 12s, with -faults 1 where
// the case says one fault), with partial-order reduction in no more
// executions than without it: the full search does not catch them any
// sooner. The path each failure is reported with replays it exactly. The
// seed only fixes the choices the explorer does not enumerate (the swarm
// plan's knobs and clocks, entropy).
func TestExploreCatchesSmallZooVariants(t *testing.T) {
	const seed = 5
	for _, tc := range []struct {
		variant string
		faults  int
	}{
		{"unconditional-acquire", 0},
		{"wall-clock-expiry", 0},
		{"last-modified", 0},
		{"no-nonce", 0},
		{"conflict-as-success", 1},
		{"follower-no-reset", 0},
	} {
		sc, err := project.Lookup("zoo/" + tc.variant)
		if err != nil {
			t.Fatal(err)
		}
		b := sim.ExploreBounds{MaxFaults: tc.faults, MaxDelays: 1, MaxDepth: 60}
		s := harness.Small(sc.Build(seed), 2, 12*time.Second)
		r, err := harness.Explore(s, seed, b, 20_000)
		if err != nil {
			t.Fatal(err)
		}
		if r.Found == nil {
			t.Errorf("%s: not caught in %d executions (exhausted %v)", tc.variant, r.Executions, r.Exhausted)
			continue
		}
		t.Logf("%s: %v after %d executions: %s (path %q)", tc.variant, r.Found.Verdict, r.Executions, r.Found.Violations[0].Checker, r.Path)
		again, err := harness.ReplayPath(s, seed, b, r.Path, false)
		if err != nil {
			t.Fatal(err)
		}
		if again.Verdict != r.Found.Verdict || again.Result.Hash() != r.Found.Result.Hash() {
			t.Errorf("%s: the replay of path %q is %v with hash %x, the execution found %v with hash %x",
				tc.variant, r.Path, again.Verdict, again.Result.Hash(), r.Found.Verdict, r.Found.Result.Hash())
		}
		if r.Executions == 1 {
			continue
		}
		b.Full = true
		full, err := harness.Explore(s, seed, b, r.Executions-1)
		if err != nil {
			t.Fatal(err)
		}
		if full.Found != nil {
			t.Errorf("%s: the full search caught it after %d executions, the reduced one after %d", tc.variant, full.Executions, r.Executions)
		}
	}
}
