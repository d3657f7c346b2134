package epochfile

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestNaiveCaughtBySwarm: the swarm campaign alone catches the naive form
// within a few hundred seeds: two leaders overlap in a run that stays
// inside the assumptions, since the design claims not to need synchronised
// clocks and swarm plans give every node a wall-clock offset of up to five
// minutes from S3's.
func TestNaiveCaughtBySwarm(t *testing.T) {
	seed, o := firstUnsafe(t, SwarmNaive, 300, true)
	t.Logf("caught inside the assumptions at seed %d: %v", seed, o.Violations)
}

// TestSafeSurvivesSwarm: every one of 3000 swarm seeds passes: no overlap
// inside the assumptions, no stale write accepted outside them, a leader
// once faults heal, and an S3 history that is linearizable.
func TestSafeSurvivesSwarm(t *testing.T) {
	const seeds = 3000
	var mu sync.Mutex
	var failed []string
	outside, excused := 0, 0
	err := harness.Work(context.Background(), 0, harness.Count(seeds), func(k uint64) error {
		o, err := harness.RunSeed(SwarmSafe, k+1, false)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if len(o.Outside) > 0 {
			outside++
		}
		excused += len(o.Excused)
		if o.Verdict != harness.Pass {
			failed = append(failed, fmt.Sprintf("seed %d: %s (%s)", o.Seed, harness.Explain(o), harness.Repro{Scenario: o.Scenario, Seed: o.Seed}.Command()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failed[:min(len(failed), 5)] {
		t.Error(f)
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d swarm seeds failed", len(failed), seeds)
	}
	t.Logf("%d seeds passed; %d left the assumptions, with %d excused violations", seeds, outside, excused)
}
