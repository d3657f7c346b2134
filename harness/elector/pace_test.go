package elector_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// sluggishStore makes the elector wait a whole RetryPeriod after a write
// that failed before it can act on the answer: the back-off of an elector
// that polls instead.
type sluggishStore struct {
	sim.S3Client
	clock protocol.Clock
	wait  func() // sleeps
}

func (s sluggishStore) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	out, err := s.S3Client.PutObject(ctx, in, opts...)
	if err != nil {
		s.wait()
	}
	return out, err
}

// hideNonce gives every record the elector reads another nonce: an
// elector that cannot recognise its own records, which times an
// acquisition of its own whose answer was lost as someone else's lease.
func hideNonce(body []byte) []byte {
	if i := bytes.Index(body, []byte(`"nonce":"`)); i >= 0 && i+9+protocol.NonceLen <= len(body) {
		body = bytes.Clone(body)
		copy(body[i+9:], strings.Repeat("0", protocol.NonceLen))
	}
	return body
}

// TestPaceCatchesSlowElectors: an elector that waits a RetryPeriod after a
// failed write instead of backing off, and one that does not recognise its
// own acquisition when a read shows it, are judged Liveness by the pace
// checker with the rule they break, within the swarm's first 40 seeds;
// the production elector as it is passes seeds 1..300, among which the
// checker judged an applied acquisition whose answer was lost on at least
// ten.
func TestPaceCatchesSlowElectors(t *testing.T) {
	s := elector.DefaultSettings
	for _, c := range []struct {
		name string
		wrap func(env sim.Env) sim.S3Client
		rule string
	}{
		{"as it is", func(env sim.Env) sim.S3Client { return env.Store }, ""},
		{"a poll for a back-off", func(env sim.Env) sim.S3Client {
			return sluggishStore{env.Store, env.Clock, func() { _ = env.Clock.Sleep(context.Background(), s.RetryPeriod) }}
		}, elector.RulePaceRetry},
		{"its own acquisition not recognised", func(env sim.Env) sim.S3Client { return misreadingStore{env.Store, hideNonce} }, elector.RulePaceResume},
	} {
		p := elector.Protocol(s)
		p.Configure = nil   // every node with the settings above
		p.AuditWrites = nil // the hider's links are wrong too; judge the pace alone
		p.Candidate = func(ctx context.Context, env sim.Env) error {
			env.Store = c.wrap(env)
			return elector.Candidate(s)(ctx, env)
		}
		sc := harness.Swarm("pace-test", p)
		seeds := uint64(40)
		if c.rule == "" {
			seeds = 300
		}
		caught, judged := "", 0
		for seed := uint64(1); seed <= seeds && caught == ""; seed++ {
			o, err := harness.RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			if lostAcquisition(o.Result.History) {
				judged++
			}
			for _, v := range o.Violations {
				// The rules of a term's end are TestPaceCatchesStepDownsAndReleases's
				// (the nonce hider breaks RulePaceStepDown too).
				if v.Checker == elector.PaceCheck && v.Rule != elector.RulePaceStepDown && v.Rule != elector.RulePaceRelease {
					if o.Verdict != harness.Liveness {
						t.Errorf("%s: seed %d judged %s with %v", c.name, seed, o.Verdict, v)
					}
					caught = v.Rule
					t.Logf("%s: seed %d: %v", c.name, seed, v)
					break
				}
			}
		}
		if caught != c.rule {
			t.Errorf("%s: pace rule %q within seeds 1..%d; want %q", c.name, caught, seeds, c.rule)
		}
		if c.rule == "" && judged < 10 {
			t.Errorf("only %d of seeds 1..%d have an applied acquisition whose answer was lost: the rules were hardly judged", judged, seeds)
		}
	}
}

// lostAcquisition reports whether a node's write was applied and its
// answer lost, where the write took over or created the lock object.
func lostAcquisition(h *sim.History) bool {
	for _, op := range h.S3 {
		if op.Op == "PutObject" && op.Body != "" && op.Return < 0 && op.Node >= 0 && strings.Contains(op.Body, `"acquireTime"`) {
			return true
		}
	}
	return false
}

// TestPaceRenewalRule: a renewal sent sooner than the renew interval
// after the send of the record it renews breaks RulePaceRenewal, on a
// clock that runs fast too; one a renew interval later, a release, and a
// takeover with a new token do not. The renew interval is the RetryPeriod,
// or less where a RetryPeriod would leave the renewal less than
// RequestTimeout before the term's deadline.
func TestPaceRenewalRule(t *testing.T) {
	// Renew interval: RetryPeriod, 1 s.
	s := elector.DefaultSettings
	// Renew interval: RenewDeadline - RequestTimeout = 208 ms, below the
	// 300 ms RetryPeriod.
	tight := elector.Settings{LeaseDuration: 1011 * time.Millisecond, RenewDeadline: 367 * time.Millisecond,
		RetryPeriod: 300 * time.Millisecond, RequestTimeout: 159 * time.Millisecond, ClockDriftPPM: 1117}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	put := func(ifMatch, etag, body string, call int) sim.S3Op {
		op := sim.S3Op{Node: 0, Identity: "n0", Op: "PutObject", IfMatch: ifMatch, BodyETag: etag, Body: body, Call: ms(call), Return: ms(call + 20), Status: 200, ETag: etag}
		if ifMatch == "" {
			op.IfNoneMatch = "*"
		}
		return op
	}
	rec := func(token int, released bool) string {
		b := fmt.Sprintf(`{"holder":"n0","token":%d,"leaseDurationMs":6000,"nonce":"00"`, token)
		if released {
			b += `,"released":true`
		}
		return b + "}"
	}
	for _, c := range []struct {
		name     string
		settings elector.Settings
		second   sim.S3Op
		drift    int64
		broken   bool
	}{
		{"a renewal after half a RetryPeriod", s, put(`"e1"`, `"e2"`, rec(5, false), 500), 0, true},
		{"a renewal a RetryPeriod after", s, put(`"e1"`, `"e2"`, rec(5, false), 1000), 0, false},
		{"a renewal a RetryPeriod of a fast clock after", s, put(`"e1"`, `"e2"`, rec(5, false), 996), 5000, false},
		{"a renewal a little sooner than that", s, put(`"e1"`, `"e2"`, rec(5, false), 994), 5000, true},
		{"a release", s, put(`"e1"`, `"e2"`, rec(5, true), 500), 0, false},
		{"a takeover with a new token", s, put(`"e1"`, `"e2"`, rec(6, false), 500), 0, false},
		{"a renewal RequestTimeout before the deadline", tight, put(`"e1"`, `"e2"`, rec(5, false), 208), 0, false},
		{"a renewal sooner than that", tight, put(`"e1"`, `"e2"`, rec(5, false), 207), 0, true},
	} {
		h := &sim.History{Nodes: 1, End: 60 * time.Second, S3: []sim.S3Op{put("", `"e1"`, rec(5, false), 0), c.second}}
		vs := c.settings.Pace(h, 0, sim.ClockModel{DriftPPM: c.drift})
		if got := len(vs) > 0 && vs[0].Rule == elector.RulePaceRenewal; got != c.broken {
			t.Errorf("%s: violations %v; want a renewal violation: %v", c.name, vs, c.broken)
		}
	}
}
