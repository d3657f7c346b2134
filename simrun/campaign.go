package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/scenarios"
)

// seedResult is what a campaign keeps of one run.
type seedResult struct {
	Seed       uint64                      `json:"seed"`
	Verdict    string                      `json:"verdict"`
	Hash       string                      `json:"hash"`
	Violations []linearizability.Violation `json:"violations,omitempty"`
	Failure    string                      `json:"failure,omitempty"`
	Replay     string                      `json:"replay"`
	verdict    scenarios.Verdict
	steps      int
	outside    bool
	overlaps   int
	refused    int
}

// campaign runs count seeds starting at first on workers goroutines. Each run
// is an independent world driven by one goroutine, so runs in parallel do not
// disturb each other's determinism. Results come back in seed order.
func campaign(sc scenarios.Scenario, first uint64, count, workers int) ([]seedResult, time.Duration, error) {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]seedResult, count)
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				seed := first + uint64(i)
				o, err := scenarios.RunSeed(sc, seed, false)
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				results[i] = summarize(o)
			}
		}()
	}
	wg.Wait()
	return results, time.Since(start), firstErr
}

func summarize(o *scenarios.Outcome) seedResult {
	r := seedResult{
		Seed:       o.Seed,
		Verdict:    o.Verdict.String(),
		Hash:       hashString(o.Result.Hash()),
		Violations: o.Violations,
		Replay:     scenarios.ReplayCommand(o.Scenario, o.Seed),
		verdict:    o.Verdict,
		steps:      o.Result.Steps,
	}
	if o.Result.Failure != nil {
		r.Failure = o.Result.Failure.Error()
	}
	r.outside = len(o.Outside) > 0
	r.overlaps = len(o.Overlaps)
	for _, w := range o.Result.History.Writes {
		if !w.Accepted {
			r.refused++
		}
	}
	return r
}
