package linearizability_test

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/catalog"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sim"
)

// The fast checker on the histories the simulator really produces: every
// scenario of the project (internal/catalog), run by the harness as simrun
// runs it.

// runHistories runs seeds 1..n of sc and returns the S3 histories of the
// runs that finished.
func runHistories(tb testing.TB, sc harness.Scenario, n int) []*sim.History {
	tb.Helper()
	var hs []*sim.History
	for seed := uint64(1); seed <= uint64(n); seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			tb.Fatalf("%s seed %d: %v", sc.Name, seed, err)
		}
		if o.Result.History != nil && o.Result.Failure == nil {
			hs = append(hs, o.Result.History)
		}
	}
	return hs
}

// TestS3FastOnScenarioRuns checks the runs of every scenario of the project
// with both checkers: the fast checker must agree with porcupine whenever
// it decides, and decide every run of the production elector in the
// reference scenario and nearly every one of the swarm but those in which
// someone restores the lock object byte for byte. It logs the share it
// decides per scenario; those it leaves to porcupine write one ETag twice
// on purpose (restored-record, zoo/no-nonce, the swarm's restores) or
// race unconditional puts.
func TestS3FastOnScenarioRuns(t *testing.T) {
	seeds := map[string]int{"reference": 300, "swarm": 300}
	others := 20
	if testing.Short() {
		seeds = map[string]int{"reference": 30, "swarm": 30}
		others = 3
	}
	var total, decided int
	project := catalog.New()
	for _, name := range project.Names() {
		sc, err := project.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := seeds[name]
		if !ok {
			n = others
		}
		var runs, fast, restored int
		var fastTime, porcupineTime time.Duration
		for seed, h := range runHistories(t, sc, n) {
			start := time.Now()
			f := linearizability.CheckS3Fast(h)
			fastTime += time.Since(start)
			p := linearizability.CheckS3PorcupineOnly(h, time.Minute)
			porcupineTime += p.Duration
			runs++
			if f.Verdict == linearizability.FastUndecided && writesAnETagTwice(h) {
				restored++ // left to porcupine on purpose
			}
			if f.Verdict != linearizability.FastUndecided {
				fast++
				if f.Verdict.String() != string(p.Result) {
					t.Errorf("%s seed %d: the fast checker says %s (%s), porcupine %s", name, seed+1, f.Verdict, f.Reason, p.Result)
				}
			}
			if f.Ops != p.Ops {
				t.Errorf("%s seed %d: %d requests checked, porcupine %d", name, seed+1, f.Ops, p.Ops)
			}
		}
		total += runs
		decided += fast
		if runs > 0 {
			t.Logf("%-28s %4d runs, fast checker decided %5.1f%%; %8v vs porcupine %8v per run", name, runs,
				100*float64(fast)/float64(runs), (fastTime / time.Duration(runs)).Round(100*time.Nanosecond),
				(porcupineTime / time.Duration(runs)).Round(100*time.Nanosecond))
		}
		if (name == "reference" && fast != runs) || (name == "swarm" && fast*100 < (runs-restored)*99) {
			t.Errorf("%s: the fast checker decided %d of %d runs (%d of them restore a content byte for byte)", name, fast, runs, restored)
		}
	}
	t.Logf("all scenarios: %d runs, the fast checker decided %d (%.1f%%)", total, decided, 100*float64(decided)/float64(total))
}

// BenchmarkS3Check compares the two checkers on the same histories: runs
// of the reference scenario (5 nodes, 60 simulated seconds, the
// production elector, rolling restarts). fast is CheckS3Fast, porcupine
// the check CheckS3 did before the fast checker, CheckS3 the entry point
// the harness calls.
//
//	go test -run '^$' -bench S3Check ./linearizability/
func BenchmarkS3Check(b *testing.B) {
	hs := runHistories(b, scenarios.Reference, 20)
	checkers := []struct {
		name  string
		check func(*sim.History) bool
	}{
		{"fast", func(h *sim.History) bool { return linearizability.CheckS3Fast(h).Verdict == linearizability.FastOk }},
		{"porcupine", func(h *sim.History) bool {
			return linearizability.CheckS3PorcupineOnly(h, time.Minute).Result == porcupine.Ok
		}},
		{"CheckS3", func(h *sim.History) bool { return linearizability.CheckS3(h, time.Minute).Result == porcupine.Ok }},
	}
	for _, c := range checkers {
		b.Run(c.name, func(b *testing.B) {
			ops, i := 0, 0
			for b.Loop() {
				h := hs[i%len(hs)]
				if !c.check(h) {
					b.Fatalf("%s: not Ok", c.name)
				}
				ops += len(h.S3)
				i++
			}
			b.ReportMetric(float64(ops)/float64(i), "reqs/history")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/req")
		})
	}
}

// BenchmarkReferenceRunS3Share runs the reference scenario as simrun
// bench does, one seed per iteration with every checker on, and reports
// the share of the run's time that CheckS3 took (check-%), and the share
// porcupine alone would have taken on the same history (porcupine-%).
//
//	go test -run '^$' -bench ReferenceRunS3Share -benchtime 500x ./linearizability/
func BenchmarkReferenceRunS3Share(b *testing.B) {
	var check, porcupineOnly time.Duration
	seed, fastRuns := uint64(0), 0
	for b.Loop() {
		seed++
		o, err := harness.RunSeed(scenarios.Reference, seed, false)
		if err != nil {
			b.Fatal(err)
		}
		check += o.S3.Duration
		if o.S3.Checker == linearizability.CheckerFast {
			fastRuns++
		}
		b.StopTimer()
		porcupineOnly += linearizability.CheckS3PorcupineOnly(o.Result.History, time.Minute).Duration
		b.StartTimer()
	}
	wall := b.Elapsed()
	b.ReportMetric(100*check.Seconds()/wall.Seconds(), "check-%")
	// Before the fast checker the run took wall - check + porcupine.
	b.ReportMetric(100*porcupineOnly.Seconds()/(wall-check+porcupineOnly).Seconds(), "porcupine-%")
	b.ReportMetric(100*float64(fastRuns)/float64(b.N), "fast-decided-%")
}

// writesAnETagTwice reports a run in which someone restored the lock
// object byte for byte (a restore fault) or wrote back a leader's own
// write (restore-own), so one ETag was written twice.
func writesAnETagTwice(h *sim.History) bool {
	for _, f := range h.Faults {
		if f.Kind == "restore" || f.Kind == "restore-own" {
			return true
		}
	}
	return false
}
