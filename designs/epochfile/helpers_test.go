package epochfile

import (
	"fmt"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// seedsOr is a sweep's number of seeds: -epochfile.seeds, if set, or the
// test's own: go test ./designs/epochfile/ -epochfile.seeds=2000.
var seedsOr = designtest.SeedsFlag("epochfile.seeds")

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

// isCreate reports whether c is a create: PutObject with If-None-Match: *.
func isCreate(c *designtest.Call) bool { return c.Op == "PutObject" && c.Cond == "If-None-Match:*" }

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
