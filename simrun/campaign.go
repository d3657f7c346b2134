package simrun

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
)

// seedResult is what a campaign keeps of one run.
type seedResult struct {
	Seed       uint64                      `json:"seed"`
	Verdict    string                      `json:"verdict"`
	Hash       string                      `json:"hash"`
	Violations []linearizability.Violation `json:"violations,omitempty"`
	Failure    string                      `json:"failure,omitempty"`
	Replay     string                      `json:"replay"`
	verdict    harness.Verdict
	steps      int
	outside    bool
	overlaps   int
	refused    int
	excused    int
}

// campaign runs count seeds starting at first on workers goroutines
// (harness.Work). Results come back in seed order.
func campaign(sc harness.Scenario, first uint64, count, workers int) ([]seedResult, time.Duration, error) {
	results := make([]seedResult, count)
	start := time.Now()
	err := harness.Work(context.Background(), workers, harness.Count(uint64(count)), func(i uint64) error {
		o, err := harness.RunSeed(sc, first+i, false)
		if err != nil {
			return err
		}
		results[i] = summarize(o)
		return nil
	})
	return results, time.Since(start), err
}

func summarize(o *harness.Outcome) seedResult {
	r := seedResult{
		Seed:       o.Seed,
		Verdict:    o.Verdict.String(),
		Hash:       hashString(o.Result.Hash()),
		Violations: o.Violations,
		Replay:     harness.ReplayCommand(o.Scenario, o.Seed),
		verdict:    o.Verdict,
		steps:      o.Result.Steps,
	}
	if o.Result.Failure != nil {
		r.Failure = o.Result.Failure.Error()
	}
	r.outside = len(o.Outside) > 0
	r.overlaps = len(o.Overlaps)
	r.excused = len(o.Excused)
	for _, w := range o.Result.History.Writes {
		if !w.Accepted {
			r.refused++
		}
	}
	return r
}
