package epochfile

import (
	"flag"
	"os"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

var (
	traceScenario = flag.String("trace.scenario", "", "TestTrace: the scenario whose run to print")
	traceSeed     = flag.Uint64("trace.seed", 1, "TestTrace: the seed of the run to print")
)

// TestTrace prints one run of a scenario with its trace from the package's
// own tests, as the simrun replay that failure messages name does. It is
// skipped unless -trace.scenario is set.
func TestTrace(t *testing.T) {
	if *traceScenario == "" {
		t.Skip("set -trace.scenario (and -trace.seed) to print a run")
	}
	c, err := harness.NewCatalog(Scenarios()...)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.Lookup(*traceScenario)
	if err != nil {
		t.Fatal(err)
	}
	o, err := harness.RunSeed(sc, *traceSeed, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.WriteTrace(os.Stdout, o); err != nil {
		t.Fatal(err)
	}
}
