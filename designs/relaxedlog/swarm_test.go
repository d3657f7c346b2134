package relaxedlog

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestSafeSurvivesSwarm: every swarm seed of the safe form passes, judged
// by the election checkers, the elector's own judges and the design's,
// and messages commit. go test ./designs/relaxedlog/ -run
// TestSafeSurvivesSwarm -relaxedlog.seeds=2000 for the campaign's count.
func TestSafeSurvivesSwarm(t *testing.T) {
	var committed, not int
	sweep(t, Default.swarm("relaxedlog/safe", "", harness.Either), seedsOr(200), func(r judged) error {
		c, n := verdicts(r.log)
		committed, not = committed+c, not+n
		return passes(r, false)
	})
	if committed < 100*int(seedsOr(200)) {
		t.Errorf("%d messages committed over the sweep (%d not): fewer than 100 a seed", committed, not)
	}
	t.Logf("%d messages committed, %d not", committed, not)
}

// TestNaiveCaughtBySwarm: the swarm alone catches the writer that trusts
// its acknowledgements within a few hundred seeds, by the violation the
// essay predicts: an acknowledged message its bag's lock object leaves out.
func TestNaiveCaughtBySwarm(t *testing.T) {
	var mu sync.Mutex
	first := uint64(0)
	err := harness.Work(context.Background(), 0, harness.Count(300), func(k uint64) error {
		o, err := harness.RunSeed(SwarmNaive, k+1, false)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, v := range o.Violations {
			if v.Checker != AckedCheck || v.Rule != RuleLeftOut {
				return fmt.Errorf("seed %d: caught by another checker: %v", o.Seed, v)
			}
		}
		if len(o.Violations) > 0 && (first == 0 || o.Seed < first) {
			first = o.Seed
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if first == 0 {
		t.Fatal("no seed of 300 caught the naive form")
	}
	t.Logf("first caught at seed %d", first)
}

// TestCheck: harness.Check runs the safe form like any protocol: the
// election checkers, the elector's judges, and what the history shows of
// the bags (Config.AuditWrites).
func TestCheck(t *testing.T) {
	harness.Check(t, Default.Protocol("relaxedlog-safe"))
}
