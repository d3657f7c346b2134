package leadermgr

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// DocumentConfig is the configuration of the document's demo: an 8 s
// term, renewed every 4 s, acquisition retried every 2 s. The scenario
// "leadermgr/naive-s3" runs the document's manager with it.
var DocumentConfig = Config{Term: 8 * time.Second, Renew: 4 * time.Second, Retry: 2 * time.Second}

// SimSafeConfig is the configuration the scenario "leadermgr/safe-s3" runs
// the SafeManager with: the settings of the swarm campaign's elector (a 6 s
// lease, a 4 s renew deadline, 1 s renewal and retry periods, a 1.5 s
// request timeout, 1000 ppm of drift). Store, Clock, Entropy, Identity and
// the callbacks are the node's.
var SimSafeConfig = SafeConfig{
	Term:           6 * time.Second,
	RenewDeadline:  4 * time.Second,
	Renew:          1 * time.Second,
	Retry:          1 * time.Second,
	RequestTimeout: 1500 * time.Millisecond,
	DriftPPM:       1000,
}

// NaiveS3Protocol is the document's LeaderManager with DocumentConfig on
// an S3Backend, as a harness protocol. The document hands out no fencing
// token (the application is told only its identity), so the token checkers
// do not apply: at most one leader at a time is what is judged. It is
// judged by the claims a manager with these intervals would make: clock
// rates within 1000 ppm, pauses shorter than the slack between a renewal
// tick and the term (Term - Renew, less drift). It promises no liveness
// bound.
func NaiveS3Protocol() harness.Protocol {
	c := DocumentConfig
	return harness.Protocol{
		Name:            "leadermgr/naive-s3",
		Candidate:       naiveCandidate(c, s3Backend),
		Assumptions:     protocol.Assumptions{Lease: c.Term, Term: c.Term, MaxDriftPPM: 1000, MaxPause: protocol.PauseBound(c.Term, c.Renew, 1000)},
		NoFencingTokens: true,
	}
}

// NaiveSQLProtocol is NaiveS3Protocol on an SQLBackend: the document's
// manager, as written, on the document's statement, the simulated SQL
// server's clock deciding validity. Judged alike: no tokens, the claims of
// a manager with these intervals, no liveness bound.
func NaiveSQLProtocol() harness.Protocol {
	p := NaiveS3Protocol()
	p.Name, p.Candidate = "leadermgr/naive-sql", naiveCandidate(DocumentConfig, sqlBackend)
	return p
}

// s3Backend and sqlBackend are the document's backend for a node.
func s3Backend(env sim.Env) Backend  { return NewS3Backend(env.Store, env.Bucket, env.Key, env.Clock) }
func sqlBackend(env sim.Env) Backend { return NewSQLBackend(env.Rows, env.Key) }

// naiveCandidate runs the document's manager on a node: its application is
// the simulator's, started at OnElected and stopped at OnOusting, under
// token 0 (the document has none).
func naiveCandidate(c Config, backend func(sim.Env) Backend) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := c
		cfg.Clock, cfg.Identity = env.Clock, env.Identity
		m, err := NewLeaderManager(backend(env), &cfg)
		if err != nil {
			return err
		}
		var stopApp context.CancelFunc
		m.OnElected = func(string, context.CancelFunc) {
			lctx, cancel := context.WithCancel(ctx)
			stopApp = cancel
			env.Clock.Go(func() { env.Lead(lctx, 0) })
		}
		m.OnOusting = func(string, context.CancelFunc) {
			if stopApp != nil {
				stopApp()
				stopApp = nil
			}
		}
		m.Start(ctx)
		for env.Clock.Sleep(ctx, time.Hour) == nil {
		}
		return nil
	}
}

// SafeS3Protocol is the SafeManager with SimSafeConfig on an S3Store, as a
// harness protocol, judged by the configuration's own assumptions and
// liveness bound.
func SafeS3Protocol() harness.Protocol {
	c := SimSafeConfig
	return harness.Protocol{
		Name:          "leadermgr/safe-s3",
		Candidate:     safeCandidate(c, s3Store),
		Assumptions:   c.Assumptions(),
		LivenessBound: c.LivenessBound(),
	}
}

// SafeSQLProtocol is SafeS3Protocol on an SQLStore: the SafeManager with
// SimSafeConfig on pgbackend.Store's statements, the simulated SQL
// server's clock deciding expiry, judged by the configuration's own
// assumptions and liveness bound.
func SafeSQLProtocol() harness.Protocol {
	p := SafeS3Protocol()
	p.Name, p.Candidate = "leadermgr/safe-sql", safeCandidate(SimSafeConfig, sqlStore)
	return p
}

// s3Store and sqlStore are the SafeManager's store for a node.
func s3Store(env sim.Env) LeaseStore  { return NewS3Store(env.Store, env.Bucket, env.Key, env.Clock) }
func sqlStore(env sim.Env) LeaseStore { return NewSQLStore(env.Rows, env.Key) }

// safeCandidate runs a SafeManager on a node, leading the simulator's
// application.
func safeCandidate(c SafeConfig, store func(sim.Env) LeaseStore) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := c
		cfg.Store = store(env)
		cfg.Clock, cfg.Entropy, cfg.Identity = env.Clock, env.Entropy, env.Identity
		cfg.OnElected = func(ctx context.Context, l Lease) { env.Lead(ctx, l.Token) }
		m, err := NewSafeManager(cfg)
		if err != nil {
			return err
		}
		return m.Run(ctx)
	}
}

// The swarm scenarios of this package: the document's manager, expected to
// be caught, and the safe manager, judged as the production elector is.
var (
	NaiveS3Scenario = scenario(NaiveS3Protocol(), harness.Caught,
		"the Go leader manager of docs/sources.md#a-go-leader-manager as written (term ends only when a renewal fails or returns false, no local deadline, no request timeout, renewal by identity alone) on an S3 backend, under swarm plans: two leaders at once")
	SafeS3Scenario = scenario(SafeS3Protocol(), harness.Either,
		"the leader manager made safe (local deadline from the send of the last successful write, fencing token in the entry, ambiguous writes resolved by nonce) on an S3 backend, under swarm plans")
	NaiveSQLScenario = sqlScenario(NaiveSQLProtocol(), harness.Caught,
		"the Go leader manager of docs/sources.md#a-go-leader-manager as written on the document's SQL statement (INSERT ... ON CONFLICT ... WHERE valid_until < now() OR leader_id = $2), on the simulator's SQL row store, whose clock decides validity, under swarm plans: two leaders at once")
	SafeSQLScenario = sqlScenario(SafeSQLProtocol(), harness.Either,
		"the leader manager made safe on pgbackend.Store's statements (conditional on the nonce last seen, token incremented by the acquiring statement, expiry by the server's clock), on the simulator's SQL row store, under swarm plans")
)

// Scenarios is every scenario of the design, for a program's simrun.Main:
// the manager as written and made safe, on S3 and on SQL, then the SQL
// stories.
func Scenarios() []harness.Scenario {
	return []harness.Scenario{NaiveS3Scenario, SafeS3Scenario, NaiveSQLScenario, SafeSQLScenario,
		NaiveSQLHungRenewal, NaiveSQLSameIdentity, SafeSQLSameIdentity}
}

func scenario(p harness.Protocol, e harness.Expectation, doc string) harness.Scenario {
	sc := harness.Swarm(p.Name, p)
	sc.Doc, sc.Expect = doc, e
	return sc
}

// sqlScenario is scenario with swarm plans made for the row store
// (SQLPlan), drawn from the same choices.
func sqlScenario(p harness.Protocol, e harness.Expectation, doc string) harness.Scenario {
	sc := scenario(p, e, doc)
	draw := sc.Draw
	sc.Draw = func(seed uint64, src *faults.Source) harness.Setup {
		s := draw(seed, src)
		s.Plan = SQLPlan(s.Plan)
		return s
	}
	return harness.Drawn(sc)
}

// SQLPlan is a fault plan drawn for S3 (faults.Draw) made to bear on the
// row store instead, for a protocol that keeps its lock there: faults aimed
// at a node's Nth PutObject or GetObject are aimed at its Nth statement
// that writes (sim.RowWrite) or reads (sim.RowRead); writes of the S3 lock
// object by someone else, which no one reads, and the SDK's retries, which
// a database client does not make, are left out. Everything else bears on
// the row store as on S3 (partitions cut the node off from it, slow
// windows and the knobs' latencies, 5xx and lost answers reach its
// statements) or does not depend on the service (clocks, pauses, crashes,
// restarts, lingering applications). p is not modified.
func SQLPlan(p *faults.Plan) *faults.Plan {
	q := *p
	q.SDKAttempts = 0
	q.Events = nil
	for _, e := range p.Events {
		switch e.Kind {
		case faults.DeleteLock, faults.Overwrite:
			continue
		}
		switch e.Op {
		case sim.OpPutObject:
			e.Op = sim.RowWrite
		case sim.OpGetObject:
			e.Op = sim.RowRead
		}
		q.Events = append(q.Events, e)
	}
	return &q
}
