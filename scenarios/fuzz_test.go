package scenarios

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// Native Go fuzzing over whole runs. A fuzz input is a simulator seed and a
// string of choice bytes; faults.FromBytes reads the bytes as the first
// choices of the one generator (the one the swarm and rapid drive), the
// seed's own stream after them, so every input is a valid run and the
// empty string is the seed's swarm run. Plain `go test` runs FuzzElector's seed corpus
// (f.Add and testdata/fuzz/FuzzElector) and FuzzZooVariant's. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzElector$' -fuzztime 10m ./scenarios/
//	go test -run '^$' -fuzz '^FuzzZooVariant$' -fuzztime 30s ./scenarios/
//	S3LEASE_FUZZ_VARIANT=same-token go test -run '^$' -fuzz '^FuzzZooVariant$' -fuzztime 30s ./scenarios/
//
// A failure of FuzzElector is a bug: the fuzzer writes the input to
// testdata/fuzz/FuzzElector/, where plain `go test` replays it until it
// passes; commit it once fixed. A failure of FuzzZooVariant is the fuzzer
// doing its job: it writes the run as a reproducer under
// testdata/harness/FuzzZooVariant/ (with the command that replays it) and
// the input to testdata/fuzz/FuzzZooVariant/; delete that input afterwards,
// or plain `go test` fails on it, as Go's fuzzing does for every target.

// fuzzSeeds are inputs every target starts from: swarm seeds 1 to 3.
func fuzzSeeds(f *testing.F) {
	for seed := range uint64(3) {
		f.Add(seed+1, []byte{})
	}
}

// electorOnInput runs the production elector on the run the input draws.
func electorOnInput(seed uint64, choices []byte) (harness.Draw, *harness.Outcome, error) {
	r := drawElector(faults.FromBytes(seed, choices), seed)
	o, err := harness.RunDraw(r)
	return r, o, err
}

// FuzzElector: the production elector passes every run the fuzzer draws.
func FuzzElector(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, seed uint64, choices []byte) {
		r, o, err := electorOnInput(seed, choices)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Fatalf("production elector: %s\n%s", harness.SignatureOf(o), harness.Describe(r, o))
		}
	})
}

// fuzzVariant is the zoo variant FuzzZooVariant runs: $S3LEASE_FUZZ_VARIANT,
// or zooVariantUnderTest.
func fuzzVariant() (string, error) {
	name := os.Getenv("S3LEASE_FUZZ_VARIANT")
	if name == "" {
		name = zooVariantUnderTest
	}
	var names []string
	for _, v := range zoo.Variants() {
		if v.Name == name {
			return name, nil
		}
		names = append(names, v.Name)
	}
	return "", fmt.Errorf("S3LEASE_FUZZ_VARIANT=%q is no zoo variant; one of %v", name, names)
}

// variantOnInput runs zoo variant name on the run the input draws, with
// the zoo's settings.
func variantOnInput(name string, seed uint64, choices []byte) (harness.Draw, *harness.Outcome, error) {
	r := harness.DrawRun(faults.FromBytes(seed, choices), seed, zooProtocol(name))
	o, err := harness.RunDraw(r)
	return r, o, err
}

// FuzzZooVariant: the property of FuzzElector, run by harness.Fuzz against
// a zoo variant (no-watchdog unless $S3LEASE_FUZZ_VARIANT names another). It
// fails when the fuzzer finds an input that shows the variant's bug, which
// is the point: the failure names the reproducer file it wrote and the go
// test command that replays it, and Go's own "To re-run" command fails
// again. Its seeds pass, so plain `go test` passes and a -fuzz run shows
// the fuzzer finding the bug rather than the seeds carrying it;
// TestFuzzFindsZooBug runs the same property over a fixed set of inputs.
func FuzzZooVariant(f *testing.F) {
	name, err := fuzzVariant()
	if err != nil {
		f.Fatal(err)
	}
	harness.Fuzz(f, zooProtocol(name))
}

// fuzzInputs are n deterministic inputs in the fuzzer's shape: seed i and
// 16 to 143 choice bytes from a fixed PCG stream.
func fuzzInputs(n int) []struct {
	seed    uint64
	choices []byte
} {
	rng := rand.New(rand.NewPCG(0x7a6f6f, 0x66757a7a))
	out := make([]struct {
		seed    uint64
		choices []byte
	}, n)
	for i := range out {
		out[i].seed = uint64(i + 1)
		out[i].choices = make([]byte, 16+rng.IntN(128))
		for j := range out[i].choices {
			out[i].choices[j] = byte(rng.Uint32())
		}
	}
	return out
}

// TestFuzzFindsZooBug: FuzzZooVariant's body, over a fixed set of inputs
// in the fuzzer's shape, finds the zoo variant's bug, and the production
// elector passes the run that shows it.
func TestFuzzFindsZooBug(t *testing.T) {
	name, err := fuzzVariant()
	if err != nil {
		t.Fatal(err)
	}
	const budget = 300
	for i, in := range fuzzInputs(budget) {
		r, o, err := variantOnInput(name, in.seed, in.choices)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict == harness.Pass {
			continue
		}
		t.Logf("input %d of %d shows zoo/%s's bug: %s\nfuzz input: uint64(%d) []byte(%q)\n%s",
			i+1, budget, name, harness.SignatureOf(o), in.seed, in.choices, harness.Describe(r, o))
		eo, err := harness.RunDraw(asElector(r))
		if err != nil {
			t.Fatal(err)
		}
		if eo.Verdict != harness.Pass {
			t.Errorf("the production elector fails the same run: %s", harness.SignatureOf(eo))
		}
		return
	}
	t.Errorf("none of %d inputs shows zoo/%s's bug: the byte mapping no longer reaches it", budget, name)
}
