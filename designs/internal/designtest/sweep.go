package designtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// reported is how many of a sweep's failures it reports one by one.
const reported = 10

// Sweep runs seeds 1..n of sc on every core, with traces, and calls check
// on each outcome (under a lock, so check may count). A run that cannot be
// set up fails the test at once; one that crashes, or blocks twice (see
// the package's doc), fails it, as does every error check returns.
func Sweep(t *testing.T, sc harness.Scenario, n uint64, check func(o *harness.Outcome) error) {
	t.Helper()
	SweepWith(t, sc.Name, n, func(seed uint64) (*harness.Outcome, struct{}, error) {
		o, err := harness.RunSeed(sc, seed, true)
		return o, struct{}{}, err
	}, func(o *harness.Outcome, _ struct{}) error { return check(o) })
}

// SweepWith is Sweep over runs the test makes itself: run makes and runs
// seed's run of the scenario named name, with traces, and returns its
// outcome and what else check needs of it (a recorder, say); check is
// called as Sweep calls it. A run judged blocked is made and run again.
func SweepWith[R any](t *testing.T, name string, n uint64, run func(seed uint64) (*harness.Outcome, R, error), check func(o *harness.Outcome, r R) error) {
	t.Helper()
	var mu sync.Mutex
	var errs []string
	err := harness.Work(context.Background(), 0, harness.Count(n), func(k uint64) error {
		seed := k + 1
		o, r, err := run(seed)
		if err == nil && o.Verdict == harness.Blocked {
			t.Logf("%s seed %d judged blocked; running it again", name, seed)
			o, r, err = run(seed)
		}
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", name, seed, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if o.Verdict == harness.Crashed || o.Verdict == harness.Blocked {
			err = fmt.Errorf("%v: %v", o.Verdict, o.Result.Failure)
		} else {
			err = check(o, r)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("seed %d: %v (replay: %s)", seed, err, harness.Repro{Scenario: name, Seed: seed}.Command()))
		}
		o.Result.Trace = nil // keep the memory of a long sweep flat
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(errs)
	for _, e := range errs[:min(len(errs), reported)] {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.Errorf("%s: %d of %d seeds failed", name, len(errs), n)
	}
}
