package elector_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// stepHistory is a term of node 0 with token 5 (term length 4 s): an
// acquisition at 0, renewals answered with success every 100 ms up to
// 1.6 s (16 writes in all, the acquisition's included), a renewal at
// 1.7 s whose answer was lost though S3 applied it, a renewal at 3.3 s
// If-Match the record before it, answered 412, and then the check read
// read. The term ends at end.
func stepHistory(read sim.S3Op, end time.Duration, faults ...sim.FaultSpan) *sim.History {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	etag := func(i int) string { return fmt.Sprintf(`"e%d"`, i) }
	body := func(i int) string {
		return fmt.Sprintf(`{"holder":"n0","token":5,"leaseDurationMs":6000,"nonce":"%02d"}`, i)
	}
	h := &sim.History{Nodes: 1, End: 60 * time.Second, Faults: faults}
	h.S3 = append(h.S3, sim.S3Op{Node: 0, Op: "PutObject", IfNoneMatch: "*", BodyETag: etag(0), Body: body(0), Call: 0, Return: ms(20), Status: 200, ETag: etag(0)})
	for i := 1; i <= 15; i++ {
		h.S3 = append(h.S3, sim.S3Op{Node: 0, Op: "PutObject", IfMatch: etag(i - 1), BodyETag: etag(i), Body: body(i), Call: ms(100 * i), Return: ms(100*i + 20), Status: 200, ETag: etag(i)})
	}
	h.S3 = append(h.S3,
		sim.S3Op{Node: 0, Op: "PutObject", IfMatch: etag(15), BodyETag: etag(16), Body: body(16), Call: ms(1700), Return: -1},
		sim.S3Op{Node: 0, Op: "PutObject", IfMatch: etag(15), BodyETag: etag(17), Call: ms(3300), Return: ms(3320), Status: 412, Code: "PreconditionFailed"},
		read)
	h.Terms = []sim.Term{{Node: 0, Token: 5, Start: ms(20), End: end}}
	return h
}

// TestPaceStepDownRule: a term that ends on a check read that failed, or
// that showed the record the renewal was to replace, or one of the node's
// own last 16 writes of the term (here the second newest, which an
// elector that forgets its newest write but one takes for foreign), breaks
// RulePaceStepDown; one that ends on a read showing the object missing, a
// foreign record, or an own write older than the last 16, or that ends
// after its local deadline, or in a Run that was stopped, does not.
func TestPaceStepDownRule(t *testing.T) {
	s := elector.DefaultSettings // term 4 s: deadline at 1.5 s + 4 s
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	get := func(status int, etag string) sim.S3Op {
		op := sim.S3Op{Node: 0, Op: "GetObject", Call: ms(3330), Return: ms(3350), Status: status, ETag: etag}
		if status == 0 {
			op.Return = -1
		}
		return op
	}
	for _, c := range []struct {
		name   string
		h      *sim.History
		broken bool
	}{
		{"a failed check read", stepHistory(get(503, ""), ms(3350)), true},
		{"a check read whose answer was lost", stepHistory(get(0, ""), ms(4830)), true},
		{"the record to replace, unchanged", stepHistory(get(200, `"e15"`), ms(3350)), true},
		{"its own second newest write", stepHistory(get(200, `"e16"`), ms(3350)), true},
		{"its own write, 16th newest", stepHistory(get(200, `"e2"`), ms(3350)), true},
		{"its own write, 17th newest", stepHistory(get(200, `"e1"`), ms(3350)), false},
		{"the object missing", stepHistory(get(404, ""), ms(3350)), false},
		{"a foreign record", stepHistory(get(200, `"x"`), ms(3350)), false},
		{"a failed check read, after the deadline", stepHistory(get(503, ""), ms(5520)), false},
		{"a failed check read, the Run stopped", stepHistory(get(503, ""), ms(3350), sim.FaultSpan{Kind: "stop", Node: 0, From: ms(3340), To: ms(3340)}), false},
	} {
		vs := s.Pace(c.h, 0, sim.ClockModel{})
		if got := hasRule(vs, elector.RulePaceStepDown); got != c.broken {
			t.Errorf("%s: violations %v; want a stepdown violation: %v", c.name, vs, c.broken)
		}
	}
	// On a clock that runs fast, the deadline comes sooner in true time.
	h := stepHistory(get(503, ""), ms(5400))
	if vs := s.Pace(h, 0, sim.ClockModel{DriftPPM: 0}); !hasRule(vs, elector.RulePaceStepDown) {
		t.Errorf("an end at 5.4 s on a true clock: violations %v; want stepdown", vs)
	}
	if vs := s.Pace(h, 0, sim.ClockModel{DriftPPM: 50000}); hasRule(vs, elector.RulePaceStepDown) {
		t.Errorf("an end at 5.4 s on a clock 5%% fast: violations %v; want none", vs)
	}
}

// hasRule reports whether vs hold a pace violation of rule.
func hasRule(vs []linearizability.Violation, rule string) bool {
	for _, v := range vs {
		if v.Checker == elector.PaceCheck && v.Rule == rule {
			return true
		}
	}
	return false
}
