package elector_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// answering is a candidate that runs the elector with settings s and
// tells its callers what it answers: broken, called for each incarnation,
// may change the configuration (its hooks, its store) and returns what
// the callers are told of the elector (nil: the elector's own answers).
func answering(s elector.Settings, broken func(env sim.Env, cfg *protocol.Config) func(*protocol.Elector) sim.Observer) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := s.Config(env)
		answer := broken(env, &cfg)
		e, err := protocol.NewElector(cfg)
		if err != nil {
			return err
		}
		elector.ReportLease(env, e)
		if answer != nil {
			env.ReportObserver(answer(e))
		}
		return e.Run(ctx)
	}
}

// trustsTheWatchdog answers IsLeader and Lease yes while the term's
// leader context is not done: until the watchdog ends the term, which it
// does at the deadline, but a question asked at that very instant, before
// the watchdog runs, is answered yes past the deadline.
func trustsTheWatchdog(s elector.Settings) sim.Candidate {
	return answering(s, func(env sim.Env, cfg *protocol.Config) func(*protocol.Elector) sim.Observer {
		var leader context.Context
		var token uint64
		start := cfg.Callbacks.OnStartedLeading
		cfg.Callbacks.OnStartedLeading = func(ctx context.Context, l protocol.Lease) {
			leader, token = ctx, l.Token
			start(ctx, l)
		}
		return func(e *protocol.Elector) sim.Observer {
			o := elector.Observer(e)
			leads := func() bool { return leader != nil && leader.Err() == nil }
			o.IsLeader = leads
			o.Lease = func() (uint64, bool) { return token, leads() }
			return o
		}
	})
}

// namesReleased names the holder of a released record as the leader: its
// Leader() takes the last record it read, released or not.
func namesReleased(s elector.Settings) sim.Candidate {
	return answering(s, func(env sim.Env, cfg *protocol.Config) func(*protocol.Elector) sim.Observer {
		var last protocol.Record
		var sent time.Duration
		cfg.Store = peekingStore{cfg.Store, env.Clock, func(at time.Duration, body []byte) {
			if r, err := protocol.DecodeRecord(body); err == nil {
				last, sent = r, at
			}
		}}
		return func(e *protocol.Elector) sim.Observer {
			o := elector.Observer(e)
			own := o.Leader
			o.Leader = func() sim.LeaderView {
				v := own()
				if age := env.Clock.Monotonic() - sent; last.Released && v.Identity == "" && v.Observed && age >= v.Age {
					v.Identity, v.Token = last.Holder, last.Token
				}
				return v
			}
			return o
		}
	})
}

// peekingStore shows seen every body the elector reads, with the
// monotonic reading at the read's send.
type peekingStore struct {
	protocol.ObjectStore
	clock protocol.Clock
	seen  func(sent time.Duration, body []byte)
}

func (s peekingStore) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	sent := s.clock.Monotonic()
	out, err := s.ObjectStore.GetObject(ctx, in, opts...)
	if err != nil || out.Body == nil {
		return out, err
	}
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	s.seen(sent, body)
	cp := *out
	cp.Body = io.NopCloser(bytes.NewReader(body))
	return &cp, nil
}

// announcesLate tells its application of each new leader one change
// late: at every change it delivers the holder before.
func announcesLate(s elector.Settings) sim.Candidate {
	return answering(s, func(env sim.Env, cfg *protocol.Config) func(*protocol.Elector) sim.Observer {
		held := ""
		cfg.Callbacks.OnNewLeader = func(id string) {
			if held != "" {
				env.NewLeader(held)
			}
			held = id
		}
		return nil
	})
}

// alwaysHealthy reports healthy whatever happens.
func alwaysHealthy(s elector.Settings) sim.Candidate {
	return answering(s, func(sim.Env, *protocol.Config) func(*protocol.Elector) sim.Observer {
		return func(e *protocol.Elector) sim.Observer {
			o := elector.Observer(e)
			o.Healthy = func(time.Duration) error { return nil }
			return o
		}
	})
}

// TestAnswersCatchBrokenElectors: the swarm catches, each with its rule,
// an elector whose IsLeader answers yes past the local deadline when
// asked at the instant the watchdog ends the term, one whose Leader()
// names a released holder, one whose OnNewLeader runs one change late, and
// one that reports healthy while its application lingers past its term;
// the elector as it is gives no wrong answer on seeds 1..200, among which
// questions aimed at a deadline were answered no, nor on seed 235, where
// a restore of its own renewal, landing just before it, makes it take
// the renewal for applied.
func TestAnswersCatchBrokenElectors(t *testing.T) {
	s := elector.DefaultSettings
	for _, c := range []struct {
		name    string
		run     func(elector.Settings) sim.Candidate
		rule    string
		verdict harness.Verdict
		seeds   uint64
		also    []uint64
	}{
		{"as it is", elector.Candidate, "", harness.Pass, 200, []uint64{235}},
		{"yes past the deadline", trustsTheWatchdog, elector.RuleAnswerLease, harness.Unsafe, 200, nil},
		{"a released holder", namesReleased, elector.RuleAnswerLeader, harness.Unsafe, 400, nil},
		{"new leaders late", announcesLate, elector.RuleAnswerNewLeader, harness.Unsafe, 200, nil},
		{"healthy while stuck", alwaysHealthy, elector.RuleAnswerHealthy, harness.Liveness, 2000, nil},
	} {
		p := elector.Protocol(s)
		p.Configure = nil // every node runs the candidate with the settings above
		p.Candidate = c.run(s)
		sc := harness.Swarm("answers-test", p)
		caught, aimedNo := "", 0
		seeds := c.also
		for seed := uint64(1); seed <= c.seeds; seed++ {
			seeds = append(seeds, seed)
		}
		for _, seed := range seeds {
			if caught != "" {
				break
			}
			o, err := harness.RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range o.Result.History.Answers {
				if a.Aimed && !a.Yes {
					aimedNo++
				}
			}
			for _, v := range o.Violations {
				if v.Checker == elector.AnswerCheck {
					if o.Verdict != c.verdict {
						t.Errorf("%s: seed %d judged %s with %v", c.name, seed, o.Verdict, v)
					}
					caught = v.Rule
					t.Logf("%s: seed %d: %v", c.name, seed, v)
					break
				}
			}
		}
		if caught != c.rule {
			t.Errorf("%s: answer rule %q within seeds 1..%d; want %q", c.name, caught, c.seeds, c.rule)
		}
		if c.rule == "" && aimedNo < 20 {
			t.Errorf("only %d questions aimed at a deadline were answered no on seeds 1..%d: the deadline was hardly judged", aimedNo, c.seeds)
		}
	}
}
