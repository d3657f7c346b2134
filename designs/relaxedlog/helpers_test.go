package relaxedlog

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

// storySeeds, if set, is the number of seeds every sweep runs (1..N)
// instead of its own: go test ./designs/relaxedlog/ -relaxedlog.seeds=2000.
var storySeeds = flag.Uint64("relaxedlog.seeds", 0, "seeds of every sweep, from 1 (0: each test's own)")

// seedsOr returns a sweep's number of seeds: -relaxedlog.seeds, or n.
func seedsOr(n uint64) uint64 {
	if *storySeeds > 0 {
		return *storySeeds
	}
	return n
}

// judged is one judged run of a story, with its log and its S3 requests as
// the trace's typed events show them.
type judged struct {
	*harness.Outcome
	log   *Log
	calls []*call
	cfg   Config
}

// sweep runs seeds 1..n of s on every core, with traces, and calls check
// on each run (under a lock, so check may count). A run that cannot be set
// up, crashes or blocks fails the test, as does every error check returns;
// the first few are reported with their replay.
func sweep(t *testing.T, s story, n uint64, check func(r judged) error) {
	t.Helper()
	var mu sync.Mutex
	var errs []string
	err := harness.Work(context.Background(), 0, harness.Count(n), func(k uint64) error {
		setup, rec := s.run(k + 1)
		o, err := harness.RunSetup(setup, true)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", s.name, k+1, err)
		}
		o.Scenario, o.Seed = s.name, k+1
		mu.Lock()
		defer mu.Unlock()
		if o.Verdict == harness.Crashed || o.Verdict == harness.Blocked {
			err = fmt.Errorf("%v: %v", o.Verdict, o.Result.Failure)
		} else {
			err = check(judged{Outcome: o, log: rec.Log(), calls: calls(o), cfg: s.cfg})
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("seed %d: %v (replay: go run ./cmd/simrun replay -scenario %s -seed %d)", o.Seed, err, s.name, o.Seed))
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
	if len(errs) > 0 {
		t.Errorf("%s: %d of %d seeds failed", s.name, len(errs), n)
	}
}

// passes is a run that the harness passed; inside, if inside is set, its
// plan inside the assumptions with no overlap.
func passes(r judged, inside bool) error {
	switch {
	case r.Verdict != harness.Pass:
		return fmt.Errorf("verdict %v: %v", r.Verdict, harness.Explain(r.Outcome))
	case inside && (len(r.Outside) > 0 || len(r.Overlaps) > 0):
		return fmt.Errorf("left the assumptions (%v) or overlapped (%v)", r.Outside, r.Overlaps)
	}
	return nil
}

// caught reports whether the run was judged unsafe by checker (and rule,
// if not empty).
func caught(r judged, checker, rule string) bool {
	for _, v := range r.Violations {
		if v.Checker == checker && (rule == "" || v.Rule == rule) {
			return true
		}
	}
	return false
}

// call is one S3 request as the trace's typed events show it: its send,
// the instant S3 applied it (nil if it never arrived) and its answer.
type call struct {
	node          int
	op, key, cond string
	send          sim.Event
	apply, ret    *sim.Event
}

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
			c := &call{node: e.Node, op: e.Op, key: e.Key, cond: e.Cond, send: e}
			byID[e.Call] = c
			out = append(out, c)
		case sim.EvS3Apply, sim.EvS3Return:
			c := byID[e.Call]
			if c == nil {
				continue
			}
			ev := e
			if e.Kind == sim.EvS3Apply {
				c.apply = &ev
			} else {
				c.ret = &ev
			}
		}
	}
	return out
}

// on returns the calls of op on key, in the order sent.
func on(cs []*call, op, key string) []*call {
	var out []*call
	for _, c := range cs {
		if c.op == op && c.key == key {
			out = append(out, c)
		}
	}
	return out
}

// firstApplied is the call of cs S3 applied first with status, or nil.
func firstApplied(cs []*call, status int) *call {
	var first *call
	for _, c := range cs {
		if c.applied(status) && (first == nil || c.apply.At < first.apply.At) {
			first = c
		}
	}
	return first
}

// heldStamp is the first message node stamped at or after true time from
// (the one a story's stall holds).
func heldStamp(l *Log, node int, from int64) (LoggedStamp, bool) {
	for _, s := range l.Stamps {
		if s.Node == node && int64(s.At) >= from {
			return s, true
		}
	}
	return LoggedStamp{}, false
}

// verdictOf is the writer's verdict on key, and whether it gave one.
func verdictOf(l *Log, key string) (committed, ok bool) {
	for _, v := range l.Settled {
		if v.Key == key {
			return v.Committed, true
		}
	}
	return false, false
}
