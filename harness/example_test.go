package harness_test

import (
	"fmt"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// A protocol under the swarm campaign, seed by seed. In a test, Check does
// this with rapid's random runs and shrinking:
//
//	func TestElector(t *testing.T) {
//		harness.Check(t, elector.Protocol(elector.DefaultSettings))
//	}
func Example() {
	p := elector.Protocol(elector.DefaultSettings)
	sc := harness.Swarm("example-elector", p)
	for seed := uint64(1); seed <= 3; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("seed %d: %s, %d overlaps, trace %016x\n", seed, o.Verdict, len(o.Overlaps), o.Result.Hash())
	}
	// Output:
	// seed 1: pass, 0 overlaps, trace 235a4df946b9b0f8
	// seed 2: pass, 0 overlaps, trace 7248bad0fe5d0d9b
	// seed 3: pass, 0 overlaps, trace 4f074f572cbbb67f
}

// A lock that hands a new holder the token of the term it replaced is
// caught, and the verdict says which properties broke.
func Example_caught() {
	var p harness.Protocol
	for _, v := range zoo.Variants() {
		if v.Name == "same-token" {
			p = v.Protocol()
		}
	}
	sc := harness.Swarm("example-same-token", p)
	for seed := uint64(1); ; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			fmt.Println(err)
			return
		}
		if o.Verdict != harness.Pass {
			fmt.Printf("seed %d: %s (exit status %d)\n", seed, harness.SignatureOf(o), o.Verdict.ExitCode())
			return
		}
	}
	// Output:
	// seed 1: unsafe: fencing/shared-epoch, initial-record/token, monotonic-tokens, unique-holder (exit status 1)
}
