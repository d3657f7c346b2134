package relaxedlog

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
)

// seedsOr is a sweep's number of seeds: -relaxedlog.seeds, if set, or the
// test's own: go test ./designs/relaxedlog/ -relaxedlog.seeds=2000.
var seedsOr = designtest.SeedsFlag("relaxedlog.seeds")

// judged is one judged run of a story, with its log and its S3 requests as
// the trace's typed events show them.
type judged struct {
	*harness.Outcome
	log   *Log
	calls []*designtest.Call
	cfg   Config
}

// sweep runs seeds 1..n of s as designtest.SweepWith does, and calls
// check on each run with its log and S3 requests.
func sweep(t *testing.T, s story, n uint64, check func(r judged) error) {
	t.Helper()
	designtest.SweepWith(t, s.name, n, func(seed uint64) (*harness.Outcome, *Recorder, error) {
		setup, rec := s.run(seed)
		o, err := harness.RunSetup(setup, true)
		if o != nil {
			o.Scenario, o.Seed = s.name, seed
		}
		return o, rec, err
	}, func(o *harness.Outcome, rec *Recorder) error {
		return check(judged{Outcome: o, log: rec.Log(), calls: designtest.Calls(o.Result.Trace), cfg: s.cfg})
	})
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

// on returns the calls of op on key, in the order sent.
func on(cs []*designtest.Call, op, key string) []*designtest.Call {
	var out []*designtest.Call
	for _, c := range cs {
		if c.Op == op && c.Key == key {
			out = append(out, c)
		}
	}
	return out
}

// firstApplied is the call of cs S3 applied first with status, or nil.
func firstApplied(cs []*designtest.Call, status int) *designtest.Call {
	var first *designtest.Call
	for _, c := range cs {
		if c.Applied(status) && (first == nil || c.Apply.At < first.Apply.At) {
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
