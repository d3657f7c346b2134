package harness_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// sluggishStore makes the elector wait a whole RetryPeriod after a write
// that failed before it can act on the answer: the back-off of an elector
// that polls instead.
type sluggishStore struct {
	protocol.ObjectStore
	clock protocol.Clock
	wait  func() // sleeps
}

func (s sluggishStore) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	out, err := s.ObjectStore.PutObject(ctx, in, opts...)
	if err != nil {
		s.wait()
	}
	return out, err
}

// ownNonceHider hands the elector every record it reads with another
// nonce: an elector that cannot recognise its own records, which times an
// acquisition of its own whose answer was lost as someone else's lease.
type ownNonceHider struct{ protocol.ObjectStore }

func (s ownNonceHider) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.ObjectStore.GetObject(ctx, in, opts...)
	if err != nil || out.Body == nil {
		return out, err
	}
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	if i := bytes.Index(body, []byte(`"nonce":"`)); i >= 0 && i+9+protocol.NonceLen <= len(body) {
		body = bytes.Clone(body)
		copy(body[i+9:], strings.Repeat("0", protocol.NonceLen))
	}
	cp := *out
	cp.Body = io.NopCloser(bytes.NewReader(body))
	n := int64(len(body))
	cp.ContentLength = &n
	return &cp, nil
}

// TestPaceCatchesSlowElectors: an elector that waits a RetryPeriod after a
// failed write instead of backing off, and one that does not recognise its
// own acquisition when a read shows it, are judged Liveness by the pace
// checker with the rule they break, within the swarm's first 40 seeds;
// the production elector as it is passes seeds 1..300, among which the
// checker judged an applied acquisition whose answer was lost on at least
// ten.
func TestPaceCatchesSlowElectors(t *testing.T) {
	s := harness.DefaultElectorSettings
	for _, c := range []struct {
		name string
		wrap func(env sim.Env) protocol.ObjectStore
		rule string
	}{
		{"as it is", func(env sim.Env) protocol.ObjectStore { return env.Store }, ""},
		{"a poll for a back-off", func(env sim.Env) protocol.ObjectStore {
			return sluggishStore{env.Store, env.Clock, func() { _ = env.Clock.Sleep(context.Background(), s.RetryPeriod) }}
		}, harness.RulePaceRetry},
		{"its own acquisition not recognised", func(env sim.Env) protocol.ObjectStore { return ownNonceHider{env.Store} }, harness.RulePaceResume},
	} {
		p := harness.Elector(s)
		p.Configure = nil   // every node with the settings above
		p.AuditWrites = nil // the hider's links are wrong too; judge the pace alone
		p.Candidate = func(ctx context.Context, env sim.Env) error {
			env.Store = c.wrap(env)
			return harness.ProductionElector(s)(ctx, env)
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
				if v.Checker == harness.PaceCheck {
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
