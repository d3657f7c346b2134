package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestExploreCatchesSmallZooVariants: the zoo variants whose bug shows with
// two nodes in a short run are also caught by exhaustive exploration: with
// no faults at all for the ones broken in every schedule that matters, with
// one fault for the others. The seed only fixes the choices the explorer
// does not enumerate (the swarm plan's knobs, entropy).
func TestExploreCatchesSmallZooVariants(t *testing.T) {
	for _, tc := range []struct {
		variant  string
		seed     uint64
		faults   int
		duration time.Duration
	}{
		{"unconditional-acquire", 1, 0, 20 * time.Second},
		{"wall-clock-expiry", 1, 0, 20 * time.Second},
		{"last-modified", 1, 0, 20 * time.Second},
		{"no-nonce", 1, 1, 12 * time.Second},
		{"conflict-as-success", 1, 1, 12 * time.Second},
		{"follower-no-reset", 1, 1, 12 * time.Second},
	} {
		sc, err := harness.Lookup("zoo/" + tc.variant)
		if err != nil {
			t.Fatal(err)
		}
		b := sim.ExploreBounds{MaxFaults: tc.faults, MaxDelays: 1, MaxDepth: 40}
		s := harness.Small(sc.Build(tc.seed), 2, tc.duration)
		r, err := harness.Explore(s, tc.seed, b, 20_000)
		if err != nil {
			t.Fatal(err)
		}
		if r.Found == nil {
			t.Errorf("%s: not caught in %d executions (exhausted %v)", tc.variant, r.Executions, r.Exhausted)
			continue
		}
		t.Logf("%s: %v after %d executions: %s", tc.variant, r.Found.Verdict, r.Executions, r.Found.Violations[0].Checker)
	}
}
