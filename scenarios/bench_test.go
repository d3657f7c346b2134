package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// BenchmarkReference measures the reference scenario (5 nodes, 60 simulated
// seconds, the production elector, all checkers on) on one goroutine and
// reports seeds per second and simulated seconds per wall second.
//
//	go test -run '^$' -bench Reference -benchtime 2000x ./scenarios/
func BenchmarkReference(b *testing.B) {
	simulated := Reference.Build(1).Config.Duration.Seconds()
	seed := uint64(0)
	for b.Loop() {
		seed++
		o, err := harness.RunSeed(Reference, seed, false)
		if err != nil {
			b.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			b.Fatalf("seed %d: %v", seed, o.Verdict)
		}
	}
	perSecond := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(perSecond, "seeds/s")
	b.ReportMetric(perSecond*simulated, "sim-s/s")
}
