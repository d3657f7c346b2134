package simrun

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// seedResult is what a campaign keeps of one run.
type seedResult struct {
	schema.SeedResult
	verdict harness.Verdict
	counts  schema.Counts
}

// campaign runs count seeds starting at first on workers goroutines
// (harness.Work), or, with untilFailure, until a seed fails, or until ctx
// ends (the seeds already running finish). Results come back in seed
// order, one for each seed run, with what they reached of their coverage
// points; prog, if not nil, counts them as they come.
func (cli *program) campaign(ctx context.Context, sc harness.Scenario, first uint64, count uint64, workers int, untilFailure bool, prog *runProgress, path3 s3Path) ([]seedResult, *schema.Coverage, time.Duration, error) {
	var (
		mu      sync.Mutex
		results []seedResult
		cov     = &schema.Coverage{}
		covErr  error
		failed  atomic.Bool
	)
	seeds := harness.Count(count)
	next := func() (uint64, bool) {
		if untilFailure && failed.Load() {
			return 0, false
		}
		return seeds()
	}
	start := time.Now()
	err := harness.Work(ctx, workers, next, func(i uint64) error {
		o, err := harness.RunSeed(sc, first+i, false)
		if err != nil {
			return err
		}
		r := cli.summarize(o, path3)
		o.Result.Release() // summarized: later seeds reuse its buffers (the coverage is not among them)
		if r.verdict != harness.Pass {
			failed.Store(true)
		}
		prog.add(r.verdict != harness.Pass)
		mu.Lock()
		results = append(results, r)
		if covErr == nil {
			covErr = cov.Add(o.Coverage, o.Reached, o.Seed)
		}
		mu.Unlock()
		return nil
	})
	if err == nil {
		err = covErr
	}
	slices.SortFunc(results, func(a, b seedResult) int { return cmp.Compare(a.Seed, b.Seed) })
	return results, cov, time.Since(start), err
}

// summarize is a seed's result, with the command that replays it over
// path3.
func (cli *program) summarize(o *harness.Outcome, path3 s3Path) seedResult {
	r := seedResult{
		SeedResult: schema.SeedResult{
			Seed:       o.Seed,
			Verdict:    o.Verdict.String(),
			Hash:       hashString(o.Result.Hash()),
			Violations: o.Violations,
			Replay:     cli.repro(harness.Repro{Scenario: o.Scenario, Seed: o.Seed, Flags: append(path3.flags(), outsideFlags(o)...)}),
		},
		verdict: o.Verdict,
		counts:  schema.CountsOf(o),
	}
	if o.Result.Failure != nil {
		r.Failure = o.Result.Failure.Error()
	}
	return r
}
