package comparison

import (
	"flag"
	"runtime"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

var (
	compareSeeds = flag.Int("compare.seeds", 0, "`N` seeds per side for TestCompareRatio (0 skips it)")
	compareBatch = flag.Int("compare.batch", 20, "seeds per turn in TestCompareRatio and BenchmarkCompare")
)

// TestCompareRatio runs the comparison with -compare.seeds seeds per side
// and logs what it measured; it fails if the two sides did different work.
// It is BenchmarkCompare for those who want a fixed number of seeds:
//
//	go test -run TestCompareRatio -v -cpu 1 ./internal/comparison/ -compare.seeds 1000
func TestCompareRatio(t *testing.T) {
	if *compareSeeds <= 0 {
		t.Skip("set -compare.seeds to run the comparison")
	}
	r, err := Compare(t, Reference(), Reference(), *compareSeeds, *compareBatch)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GOMAXPROCS %d, batches of %d\n%v", runtime.GOMAXPROCS(0), *compareBatch, r)
	if err := SameWork(r, Tolerance); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCompare runs b.N seeds on each side, taking turns in batches of
// -compare.batch, and reports the time per seed of each side, their ratio
// and the work per seed of each; it fails if the work differs by more
// than Tolerance or a run is not judged Pass. Run it with one processor:
//
//	go test -run '^$' -bench Compare -cpu 1 ./internal/comparison/
//
// ns/op is suppressed: an op is one seed on each side, and the figures
// that mean something are sim-ns/seed, synctest-ns/seed and ratio.
func BenchmarkCompare(b *testing.B) {
	var r Result
	var err error
	inTest(b, func(t *testing.T) {
		r, err = Compare(t, Reference(), Reference(), b.N, *compareBatch)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(r.Sim.PerSeed().Nanoseconds()), "sim-ns/seed")
	b.ReportMetric(float64(r.Synctest.PerSeed().Nanoseconds()), "synctest-ns/seed")
	b.ReportMetric(r.Ratio(), "ratio")
	for _, s := range []Side{r.Sim, r.Synctest} {
		c, w, t := s.Mean()
		b.ReportMetric(c, s.Name+"-s3calls/seed")
		b.ReportMetric(w, s.Name+"-writes/seed")
		b.ReportMetric(t, s.Name+"-terms/seed")
	}
	if err := SameWork(r, Tolerance); err != nil {
		b.Fatal(err)
	}
}

// inTest runs f with a *testing.T, which synctest.Test needs and a
// benchmark does not have: it runs f as the one test of a
// testing.RunTests call. RunTests runs its tests once per -cpu value and
// -count, each time setting GOMAXPROCS; f runs the first time only, with
// the benchmark's GOMAXPROCS, which is restored afterwards.
func inTest(b *testing.B, f func(t *testing.T)) {
	b.Helper()
	procs := runtime.GOMAXPROCS(0)
	ran := false
	ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: b.Name(), F: func(t *testing.T) {
			if ran {
				t.SkipNow()
			}
			ran = true
			runtime.GOMAXPROCS(procs)
			f(t)
		}}})
	runtime.GOMAXPROCS(procs)
	switch {
	case !ran:
		b.Fatal("the comparison did not run (is -skip set?)")
	case !ok:
		b.Fatal("the comparison's synctest side failed")
	}
}

// BenchmarkSide runs one side alone, b.N seeds, for profiling either:
//
//	go test -run '^$' -bench 'Side/sim' -cpu 1 -cpuprofile sim.prof ./internal/comparison/
//	go tool pprof -top sim.prof
func BenchmarkSide(b *testing.B) {
	w := Reference()
	b.Run("sim", func(b *testing.B) {
		for seed := range uint64(b.N) {
			o, err := RunSim(w, seed+1)
			if err != nil {
				b.Fatal(err)
			}
			if o.Verdict != harness.Pass {
				b.Fatalf("seed %d: %v %v", seed+1, o.Verdict, o.Violations)
			}
		}
	})
	b.Run("synctest", func(b *testing.B) {
		p := w.electorProtocol()
		inTest(b, func(t *testing.T) {
			for seed := range uint64(b.N) {
				h, err := RunSynctest(t, w, seed+1)
				if err != nil {
					t.Fatal(err)
				}
				if j := Judge(h, p); j.Verdict != harness.Pass {
					t.Fatalf("seed %d: %v %v", seed+1, j.Verdict, j.Violations)
				}
			}
		})
	})
}
