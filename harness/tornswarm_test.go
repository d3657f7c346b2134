package harness_test

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestTornReadsJudgedByTheClaim: a lock that acts on torn reads is caught
// by the swarm when it claims to tolerate them (the careful lock's claim,
// which the variant shares), and passes the same runs when it does not:
// each torn read then excuses what its reader did on it, and nothing
// else is left.
func TestTornReadsJudgedByTheClaim(t *testing.T) {
	claims := variant(t, "trusts-torn-reads")
	if !claims.Assumptions.TornReads {
		t.Fatal("the variant does not claim to tolerate torn reads")
	}
	disclaims := claims
	disclaims.Assumptions.TornReads = false
	a := harness.Swarm("torn-claims", claims)
	caught := 0
	for seed := uint64(1); seed <= 400; seed++ {
		o, err := harness.RunSeed(a, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict == harness.Pass {
			continue
		}
		caught++
		s := a.Build(seed) // the same plan, judged by the other claim
		s.Protocol = disclaims
		p, err := harness.RunSetup(s, false)
		if err != nil {
			t.Fatal(err)
		}
		torn := 0
		for _, x := range p.Excused {
			if x.FaultKinds() == "torn-read" {
				torn++
			}
		}
		if p.Verdict != harness.Pass || torn == 0 {
			t.Errorf("seed %d: caught as %s claiming torn reads; not claiming them %s with %d violations excused by torn reads: %v",
				seed, harness.SignatureOf(o), p.Verdict, torn, p.Violations)
		}
	}
	t.Logf("%d of 400 seeds caught", caught)
	if caught == 0 {
		t.Error("no seed in 400 catches the lock that trusts torn reads")
	}
}
