package sdkhttp_test

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sdkhttp"
)

// BenchmarkReference runs seeds of the reference scenario, judged, one at a
// time on one goroutine: on the fast path (the simulated store directly)
// and through the real SDK. seeds/s is the figure to compare.
//
//	go test -run '^$' -bench Reference ./sdkhttp/
func BenchmarkReference(b *testing.B) {
	for _, sdk := range []bool{false, true} {
		name := "fast"
		if sdk {
			name = "sdk"
		}
		b.Run(name, func(b *testing.B) {
			seed, calls := uint64(0), 0
			for b.Loop() {
				seed++
				s := scenarios.Reference.Build(seed)
				if sdk {
					s.Config.WrapStore = sdkhttp.Beneath(s.Config.WrapStore)
				}
				o, err := harness.RunSetup(s, false)
				if err != nil {
					b.Fatal(err)
				}
				if o.Verdict != harness.Pass {
					b.Fatalf("seed %d: %v", seed, o.Verdict)
				}
				calls += len(o.Result.History.S3)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(calls)/float64(b.N), "S3calls/seed")
		})
	}
}
