package harness_test

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// variant is the zoo variant called name, as a protocol.
func variant(t *testing.T, name string) harness.Protocol {
	t.Helper()
	for _, v := range zoo.Variants() {
		if v.Name == name {
			return v.Protocol()
		}
	}
	t.Fatalf("no zoo variant %q", name)
	return harness.Protocol{}
}

// firstFailure runs p under the swarm campaign from seed 1 and returns the
// first run that does not pass, or nil within budget seeds.
func firstFailure(t *testing.T, p harness.Protocol, budget uint64) *harness.Outcome {
	t.Helper()
	sc := harness.Swarm("tokens-test/"+p.Name, p)
	for seed := uint64(1); seed <= budget; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			return o
		}
	}
	return nil
}

// TestProtocolWithoutFencingTokens: a protocol that declares it hands out
// no fencing tokens is not judged by the token checkers, and is still
// judged by the rest: two leaders at one instant inside its assumptions.
func TestProtocolWithoutFencingTokens(t *testing.T) {
	sameToken := variant(t, "same-token")
	if firstFailure(t, sameToken, 100) == nil {
		t.Fatal("same-token is not caught with tokens checked")
	}
	sameToken.NoFencingTokens = true
	if o := firstFailure(t, sameToken, 100); o != nil {
		for _, v := range o.Violations {
			if v.Checker != "overlap" && v.Checker != "liveness" && v.Checker != "s3-linearizable" {
				t.Fatalf("seed %d: a protocol without tokens judged by %s: %s", o.Seed, v.Checker, v)
			}
		}
	}
	expiry := variant(t, "wall-clock-expiry")
	expiry.NoFencingTokens = true
	o := firstFailure(t, expiry, 100)
	if o == nil || o.Verdict != harness.Unsafe {
		t.Fatalf("a protocol without tokens whose leaders overlap passes: %v", o)
	}
	for _, v := range o.Violations {
		if v.Checker != "overlap" {
			t.Errorf("seed %d: judged by %s: %s", o.Seed, v.Checker, v)
		}
	}
}
