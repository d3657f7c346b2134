package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/zoo"
)

// tokenViolation reports whether v is about tokens: one handed out twice,
// a decrease, or two nodes writing under one.
func tokenViolation(v linearizability.Violation) bool {
	return v.Checker == "unique-holder" || v.Checker == "monotonic-tokens" ||
		v.Checker == "fencing" && v.Rule == linearizability.RuleSharedEpoch
}

// foreignWrite reports whether someone else wrote the lock object in the
// run, or before it.
func foreignWrite(o *harness.Outcome) bool {
	if o.Plan.Initial.Foreign() {
		return true
	}
	for _, f := range o.Result.History.Faults {
		switch f.Kind {
		case string(faults.DeleteLock), string(faults.Overwrite), string(faults.Restore):
			return true
		}
	}
	return false
}

// TestZooTokenBreaksAreNeverExcusedByOtherFaults: for each zoo variant
// that breaks tokens, no swarm seed that shows a token violation and has no
// foreign write of the lock object is judged pass, whatever else left the
// assumptions (drift, pauses, stalls, lingering applications).
func TestZooTokenBreaksAreNeverExcusedByOtherFaults(t *testing.T) {
	for _, name := range []string{"same-token", "delete-on-release", "unconditional-acquire", "conflict-as-success", "identity-owns-record"} {
		sc := zoo.Scenario(zooVariant(t, name))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			shown := 0
			for seed := uint64(1); seed <= 300; seed++ {
				o, err := harness.RunSeed(sc, seed, false)
				if err != nil {
					t.Fatal(err)
				}
				if o.Result.Failure != nil || foreignWrite(o) {
					continue
				}
				broke := false
				for _, v := range o.Violations {
					broke = broke || tokenViolation(v)
				}
				for _, x := range o.Excused {
					if tokenViolation(x.Violation) {
						t.Errorf("seed %d: token violation excused without a foreign write: %s", seed, x)
					}
				}
				if broke {
					shown++
					if o.Verdict == harness.Pass {
						t.Errorf("seed %d: a token violation judged pass", seed)
					}
				}
			}
			t.Logf("%s: %d of 300 seeds show a token violation without a foreign write", name, shown)
		})
	}
}

// TestZooLeaderContextNotCancelledIsCaughtAfterTheHeal: the variant whose
// application never learns that its term ended leads on beside its
// successor; no swarm seed with two leaders at once after the faults and
// their effects are over is judged pass.
func TestZooLeaderContextNotCancelledIsCaughtAfterTheHeal(t *testing.T) {
	v := zooVariant(t, "leader-ctx-not-cancelled")
	sc := zoo.Scenario(v)
	late, caught := 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		heal := o.Plan.HealAt.D()
		for _, ov := range o.Overlaps {
			if ov.From >= heal {
				late++
				if o.Verdict == harness.Pass {
					t.Errorf("seed %d: two leaders after the heal (%s), judged pass", seed, ov)
				} else {
					caught++
				}
				break
			}
		}
	}
	if late == 0 {
		t.Fatalf("no seed in 300 shows two leaders after the heal: the variant's bug no longer shows")
	}
	t.Logf("%d of 300 seeds show two leaders after the heal; %d judged unsafe", late, caught)
}

// zooVariant returns the zoo variant called name.
func zooVariant(t *testing.T, name string) zoo.Variant {
	t.Helper()
	for _, v := range zoo.Variants() {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no zoo variant %q", name)
	return zoo.Variant{}
}
