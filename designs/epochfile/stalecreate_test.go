package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
)

// TestStaleCreate: on every seed, the cleanup deleted epoch 1 and node 0,
// acting on its listing from before the pause, then created epoch 1 again
// and S3 applied it (200); node 0 never led with token 1, and the safe form
// survives.
func TestStaleCreate(t *testing.T) {
	designtest.Sweep(t, StaleCreate, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		if err := resurrected(o); err != nil {
			return err
		}
		for _, l := range leads(o) {
			if l.Node == 0 && l.Token == 1 {
				return fmt.Errorf("n0 led with token 1 at %v", l.At)
			}
		}
		return nil
	})
}

// resurrected checks that epoch 1's lock file was deleted and that node 0
// then created it again, successfully.
func resurrected(o *harness.Outcome) error {
	var deleted *designtest.Call
	for _, c := range designtest.Calls(o.Result.Trace) {
		switch {
		case c.Key != key1:
		case c.Op == "DeleteObject" && c.Applied(200) && deleted == nil:
			deleted = c
		case deleted != nil && c.Node == 0 && isCreate(c) && c.Applied(200) && c.Apply.At > deleted.Apply.At:
			return nil
		}
	}
	return fmt.Errorf("no create of %s by n0 applied after its deletion %+v", key1, deleted)
}

// TestDefencesAreNeeded: each defence the safe form adds to the design is
// needed, and the harness shows it. Without the confirming listing, node 0
// of stale-create leads with token 1 on the epoch it re-created while
// another node leads a later epoch, on every seed. Without the expiry mark,
// a follower creates the next epoch while the old leader's touches go on
// extending its term on the old file; the swarm catches it.
func TestDefencesAreNeeded(t *testing.T) {
	t.Run("no-confirm/stale-create", func(t *testing.T) {
		cfg := EagerCleanup
		cfg.weak.noConfirm = true
		sc := StaleCreate
		sc.Name += "-no-confirm"
		sc.Build = func(seed uint64) harness.Setup {
			s := StaleCreate.Build(seed)
			s.Protocol = cfg.Safe()
			return s
		}
		designtest.Sweep(t, sc, 50, func(o *harness.Outcome) error {
			if o.Verdict != harness.Unsafe || len(o.Outside) > 0 {
				return fmt.Errorf("verdict %v, outside %v; want unsafe inside the assumptions", o.Verdict, o.Outside)
			}
			return resurrected(o)
		})
	})
	t.Run("no-expiry-mark/swarm", func(t *testing.T) {
		cfg := Default
		cfg.weak.noExpiryMark = true
		seed, o := firstUnsafe(t, harness.Swarm("epochfile/safe-no-expiry-mark", cfg.Safe()), 2000, false)
		t.Logf("caught at seed %d: %v", seed, o.Violations)
	})
}

// firstUnsafe runs seeds 1, 2, ... of sc until one is judged unsafe with an
// overlap of leaders (in a run inside the assumptions, if inside is set),
// and fails the test if none is within budget.
func firstUnsafe(t *testing.T, sc harness.Scenario, budget uint64, inside bool) (uint64, *harness.Outcome) {
	t.Helper()
	for seed := uint64(1); seed <= budget; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Unsafe || inside && len(o.Outside) > 0 {
			continue
		}
		for _, v := range o.Violations {
			if v.Checker == "overlap" {
				return seed, o
			}
		}
	}
	t.Fatalf("%s: no run of seeds 1..%d was judged unsafe with an overlap (inside the assumptions: %v)", sc.Name, budget, inside)
	return 0, nil
}
