package epochfile

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// storySeeds, if set, is the number of seeds every story's test sweeps
// (1..N) instead of its own: go test ./designs/epochfile/ -epochfile.seeds=2000.
var storySeeds = flag.Uint64("epochfile.seeds", 0, "seeds of every story's sweep, from 1 (0: each test's own)")

// seedsOr returns the sweep's number of seeds: -epochfile.seeds, or n.
func seedsOr(n uint64) uint64 {
	if *storySeeds > 0 {
		return *storySeeds
	}
	return n
}

// sweep runs seeds 1..n of sc on every core, with traces, and calls check
// on each outcome (under a lock, so check may count). A run that cannot be
// set up, crashes or blocks fails the test, as does every error check
// returns; the first few are reported with their replay.
func sweep(t *testing.T, sc harness.Scenario, n uint64, check func(o *harness.Outcome) error) {
	t.Helper()
	var mu sync.Mutex
	var errs []string
	failed := 0
	err := harness.Work(context.Background(), 0, harness.Count(n), func(k uint64) error {
		o, err := harness.RunSeed(sc, k+1, true)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", sc.Name, k+1, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if o.Verdict == harness.Crashed || o.Verdict == harness.Blocked {
			err = fmt.Errorf("%v: %v", o.Verdict, o.Result.Failure)
		} else {
			err = check(o)
		}
		if err != nil {
			failed++
			errs = append(errs, fmt.Sprintf("seed %d: %v (replay: go test ./designs/epochfile/ -run TestTrace -trace.scenario %s -trace.seed %d -v)",
				o.Seed, err, sc.Name, o.Seed))
		}
		o.Result.Trace = nil // keep the memory of a long sweep flat
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(errs)
	for _, e := range errs[:min(len(errs), 10)] {
		t.Error(e)
	}
	if failed > 0 {
		t.Errorf("%s: %d of %d seeds failed", sc.Name, failed, n)
	}
}

// survives is the Survives expectation of one run: inside the assumptions,
// passed, no overlap.
func survives(o *harness.Outcome) error {
	switch {
	case len(o.Outside) > 0:
		return fmt.Errorf("the plan leaves the assumptions: %v", o.Outside)
	case o.Verdict != harness.Pass || len(o.Overlaps) > 0:
		return fmt.Errorf("verdict %v, violations %v, overlaps %v", o.Verdict, o.Violations, o.Overlaps)
	}
	return nil
}

// call is one S3 request as the trace's typed events show it: its send,
// the instant S3 applied it (nil if it never arrived) and its answer (nil
// if none arrived).
type call struct {
	id                  uint64
	node                int
	op, key, cond       string
	send                sim.Event
	apply, ret, abandon *sim.Event
}

// isCreate reports whether c is a create: PutObject with If-None-Match: *.
func (c *call) isCreate() bool { return c.op == "PutObject" && c.cond == "If-None-Match:*" }

// applied reports whether S3 applied c with status.
func (c *call) applied(status int) bool {
	return c.apply != nil && c.apply.Fault == sim.NoFault && c.apply.Status == status
}

// calls returns the run's S3 requests in the order they were sent.
func calls(o *harness.Outcome) []*call {
	byID := map[uint64]*call{}
	var out []*call
	for _, e := range o.Result.Trace.Events {
		switch e.Kind {
		case sim.EvS3Send:
			c := &call{id: e.Call, node: e.Node, op: e.Op, key: e.Key, cond: e.Cond, send: e}
			byID[e.Call] = c
			out = append(out, c)
		case sim.EvS3Apply, sim.EvS3Return, sim.EvS3Abandon:
			c := byID[e.Call]
			if c == nil {
				continue
			}
			ev := e
			switch e.Kind {
			case sim.EvS3Apply:
				c.apply = &ev
			case sim.EvS3Return:
				c.ret = &ev
			default:
				c.abandon = &ev
			}
		}
	}
	return out
}

// leads returns the run's EvLead events.
func leads(o *harness.Outcome) []sim.Event {
	var out []sim.Event
	for _, e := range o.Result.Trace.Events {
		if e.Kind == sim.EvLead {
			out = append(out, e)
		}
	}
	return out
}

// key1 is the name of epoch 1's lock file in the harness's worlds.
var key1 = newLayout("", harness.World(0).Key).key(1)
