package pgbackend

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/s3lease/s3lease/designs/leadermgr"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Bounds on the waits of the live runs.
const (
	queryTimeout = 10 * time.Second // a statement of the test's own (schema)
	memberStop   = 5 * time.Second  // a manager's Run returning once cancelled
	poolClose    = 5 * time.Second  // a pool closing
	proxyClose   = 5 * time.Second  // a proxy's goroutines returning
)

// liveConfig is the SafeManager's configuration in the live run: a lease of
// 2 s, terms of at most 1 s after the last successful send, renewals and
// retries every 250 ms, statements bounded by 400 ms. Its pause bound,
// about 1 s, is far above what a Go process stalls on this machine.
var liveConfig = leadermgr.SafeConfig{
	Term:           2 * time.Second,
	RenewDeadline:  1 * time.Second,
	Renew:          250 * time.Millisecond,
	Retry:          250 * time.Millisecond,
	RequestTimeout: 400 * time.Millisecond,
	DriftPPM:       1000,
}

// liveFaults are the faults of the live runs' proxies.
var liveFaults = connFaults{
	Delay: 0.2, MaxDelay: 150 * time.Millisecond,
	Stall: 0.03, MaxStall: 1500 * time.Millisecond,
	Cut:  0.05,
	Drop: 0.05,
}

// TestLivePostgres runs the managers for real against a PostgreSQL server
// of the test's own, through fault-injecting proxies, and judges the
// histories with the simulator's checkers.
func TestLivePostgres(t *testing.T) {
	srv := startPostgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn(srv.addr()))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{Schema, NaiveSchema} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = conn.Close(ctx)

	t.Run("statements", func(t *testing.T) {
		t.Parallel()
		testStatementsAgree(t, srv)
	})
	t.Run("safe", func(t *testing.T) {
		t.Parallel()
		testSafe(t, srv)
	})
	t.Run("naive-hang", func(t *testing.T) {
		t.Parallel()
		testNaiveHang(t, srv)
	})
	t.Run("naive-faults", func(t *testing.T) {
		t.Parallel()
		testNaiveFaults(t, srv)
	})
}

// links are one fault proxy and one pool per node.
type links struct {
	proxies []*faultProxy
	pools   []*pgxpool.Pool
}

func newLinks(t *testing.T, srv *pgServer, nodes int, f connFaults, seed uint64) *links {
	t.Helper()
	l := &links{}
	t.Cleanup(func() { l.close(t) })
	for i := range nodes {
		p, err := newFaultProxy(srv.addr(), f, seed+uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		l.proxies = append(l.proxies, p)
		cfg, err := pgxpool.ParseConfig(dsn(p.addr()))
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = 4
		cfg.ConnConfig.ConnectTimeout = time.Second
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		l.pools = append(l.pools, pool)
	}
	return l
}

// close closes the pools, then the proxies, each within its bound.
func (l *links) close(t *testing.T) {
	for _, pool := range l.pools {
		done := make(chan struct{})
		go func() { pool.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(poolClose):
			t.Errorf("a pool did not close within %v", poolClose)
		}
	}
	for _, p := range l.proxies {
		p.hang.Store(false)
		if err := p.close(proxyClose); err != nil {
			t.Error(err)
		}
	}
	l.pools, l.proxies = nil, nil
}

func (l *links) stats() proxyCounts {
	var s proxyCounts
	for _, p := range l.proxies {
		c := p.stats()
		s.Conns += c.Conns
		s.Chunks += c.Chunks
		s.Delayed += c.Delayed
		s.Stalled += c.Stalled
		s.Cut += c.Cut
		s.Dropped += c.Dropped
		s.Severed += c.Severed
		s.Held += c.Held
	}
	return s
}

// member is one incarnation of a SafeManager.
type member struct {
	node, incarnation int
	cancel            context.CancelFunc
	done              chan error
}

// testSafe runs three SafeManagers on Store for a few seconds through
// faulty links: random delays, stalls, cut queries and lost answers on
// every link; the leader's connections severed once; the leader's link
// hung for longer than the lease once; and the leader stopped (it releases
// the lease) and restarted as a new incarnation once. Every checker must
// pass, and the hung leader must have been replaced (a higher token).
func testSafe(t *testing.T, srv *pgServer) {
	const nodes = 3
	const runFor = 6500 * time.Millisecond
	l := newLinks(t, srv, nodes, liveFaults, 1)
	rec := newRecorder(nodes)
	lease := "safe-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	var errMu sync.Mutex
	storeErrors := 0
	var firstErrors []string

	start := func(i, inc int) *member {
		ctx, cancel := context.WithCancel(context.Background())
		mb := &member{node: i, incarnation: inc, cancel: cancel, done: make(chan error, 1)}
		cfg := liveConfig
		cfg.Store = NewStore(l.pools[i], lease)
		cfg.Identity = "pg-n" + strconv.Itoa(i)
		cfg.OnElected = func(ctx context.Context, ls leadermgr.Lease) {
			k := rec.termStart(i, inc, ls.Identity, ls.Token)
			defer rec.termEnd(k)
			for ctx.Err() == nil {
				rec.write(i, ls.Token)
				select {
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
		cfg.OnError = func(err error) {
			errMu.Lock()
			storeErrors++
			if len(firstErrors) < 3 {
				firstErrors = append(firstErrors, err.Error())
			}
			errMu.Unlock()
		}
		m, err := leadermgr.NewSafeManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		go func() { mb.done <- m.Run(ctx) }()
		return mb
	}
	stop := func(mb *member) {
		mb.cancel()
		select {
		case err := <-mb.done:
			if err != nil {
				t.Errorf("node %d incarnation %d: Run: %v", mb.node, mb.incarnation, err)
			}
		case <-time.After(memberStop):
			t.Errorf("node %d incarnation %d did not stop within %v", mb.node, mb.incarnation, memberStop)
		}
	}

	members := make([]*member, nodes)
	for i := range members {
		members[i] = start(i, 0)
	}
	began := time.Now()
	at := func(d time.Duration) { time.Sleep(d - time.Since(began)) }
	at(1200 * time.Millisecond)
	if ld := rec.leader(); ld >= 0 {
		rec.fault("sever", ld)
		l.proxies[ld].sever()
	}
	at(2 * time.Second)
	if ld := rec.leader(); ld >= 0 {
		// The fault the document's manager does not survive (testNaiveHang):
		// the leader's link hangs for longer than the lease. Its term must
		// end at its local deadline, before the server lets another take
		// over; the statements held meanwhile arrive late, and fail their
		// condition.
		rec.fault("hang", ld)
		l.proxies[ld].hang.Store(true)
		at(4500 * time.Millisecond)
		l.proxies[ld].hang.Store(false)
	}
	at(5 * time.Second)
	if ld := rec.leader(); ld >= 0 {
		rec.fault("stop", ld)
		stop(members[ld])
		rec.fault("restart", ld)
		members[ld] = start(ld, members[ld].incarnation+1)
	}
	at(runFor)
	h := rec.stop()
	for _, mb := range members {
		stop(mb)
	}

	ps := l.stats()
	t.Logf("safe managers on PostgreSQL: %s", summary(h))
	errMu.Lock()
	t.Logf("proxy: %s; %d store errors reported to OnError, the first: %q", ps, storeErrors, firstErrors)
	errMu.Unlock()
	for _, v := range judge(h, true) {
		t.Logf("  %s", v)
		if len(v.violations) > 0 {
			t.Errorf("%s", v)
		}
	}
	tokens := map[uint64]bool{}
	for _, tm := range h.Terms {
		tokens[tm.Token] = true
	}
	if len(tokens) < 2 || len(h.Writes) == 0 {
		t.Errorf("%d terms, %d tokens and %d fenced writes: the run elected too little to show anything", len(h.Terms), len(tokens), len(h.Writes))
	}
	if ps.Cut+ps.Dropped+ps.Stalled+ps.Delayed+ps.Severed == 0 {
		t.Error("the proxy injected no fault")
	}
}

// naiveConfig is the document's manager in the live runs: its demo's
// intervals halved and quartered (the backend converts the term to whole
// seconds, as the document does).
var naiveConfig = leadermgr.Config{Term: 2 * time.Second, Renew: 1 * time.Second, Retry: 500 * time.Millisecond}

// naiveRun runs three document managers on PostgresqlBackend.
type naiveRun struct {
	rec     *recorder
	l       *links
	cancels []context.CancelFunc
	errs    int
	mu      sync.Mutex
}

func startNaive(t *testing.T, srv *pgServer, f connFaults, seed uint64) *naiveRun {
	const nodes = 3
	r := &naiveRun{rec: newRecorder(nodes), l: newLinks(t, srv, nodes, f, seed)}
	key := "naive-" + strconv.FormatUint(seed, 10) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for i := range nodes {
		cfg := naiveConfig
		cfg.Identity = "naive-n" + strconv.Itoa(i)
		m, err := leadermgr.NewLeaderManager(NewPostgresqlBackend(r.l.pools[i], key), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		r.cancels = append(r.cancels, cancel)
		var stopApp context.CancelFunc
		var appDone chan struct{}
		m.OnElected = func(id string, _ context.CancelFunc) {
			actx, c := context.WithCancel(ctx)
			stopApp, appDone = c, make(chan struct{})
			done := appDone
			go func() {
				defer close(done)
				k := r.rec.termStart(i, 0, id, 0)
				defer r.rec.termEnd(k)
				<-actx.Done()
			}()
		}
		m.OnOusting = func(string, context.CancelFunc) {
			if stopApp != nil {
				stopApp()
				<-appDone
				stopApp = nil
			}
		}
		m.OnError = func(string, error, context.CancelFunc) { r.mu.Lock(); r.errs++; r.mu.Unlock() }
		m.Start(ctx)
	}
	return r
}

// finish ends the run and returns its history. The document's manager
// offers no way to wait for it: its in-flight statement ends with the
// context, its goroutine within a Retry; the pools close after that.
func (r *naiveRun) finish() *sim.History {
	h := r.rec.stop()
	for _, c := range r.cancels {
		c()
	}
	time.Sleep(naiveConfig.Retry + 100*time.Millisecond)
	return h
}

// waitLeader waits, up to limit, for a leader and returns its node.
func (r *naiveRun) waitLeader(limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if ld := r.rec.leader(); ld >= 0 {
			return ld
		}
		time.Sleep(10 * time.Millisecond)
	}
	return -1
}

// testNaiveHang shows the document's missing local deadline in real time:
// once a manager leads, its link hangs (every byte held, as a partition
// that drops packets) for twice the term. Its renewal hangs with it (the
// document passes WriteEntry a context without timeout, and nothing else
// ends a term), so it goes on leading while the server's clock expires its
// row and another manager is elected: two leaders at once, until the link
// comes back and the renewal returns false. The structure forces it (a
// hang of 4 s against a 2 s term and 0.5 s retries), so it is asserted.
func testNaiveHang(t *testing.T, srv *pgServer) {
	const hang = 4 * time.Second
	r := startNaive(t, srv, connFaults{}, 100)
	ld := r.waitLeader(10 * time.Second)
	if ld < 0 {
		r.finish()
		t.Fatal("no leader within 10s")
	}
	time.Sleep(200 * time.Millisecond)
	r.rec.fault("hang", ld)
	r.l.proxies[ld].hang.Store(true)
	time.Sleep(hang)
	r.l.proxies[ld].hang.Store(false)
	time.Sleep(1500 * time.Millisecond)
	h := r.finish()
	ovs := linearizability.Overlaps(h)
	t.Logf("document's manager on PostgreSQL, n%d's link hung for %v: %s", ld, hang, summary(h))
	for _, v := range judge(h, false) {
		t.Logf("  %s", v)
	}
	found := false
	for _, ov := range ovs {
		if ov.Nodes[0] == ld || ov.Nodes[1] == ld {
			found = true
		}
	}
	if !found {
		t.Errorf("no overlap involving n%d, whose renewal hung: %v", ld, ovs)
	}
}

// testNaiveFaults runs the document's manager briefly under the random
// faults of the safe run and reports what the checkers see. Whether two
// leaders overlap depends on whether a stall outlasts a term while the
// stalled manager leads, which is timing: nothing is asserted.
func testNaiveFaults(t *testing.T, srv *pgServer) {
	r := startNaive(t, srv, liveFaults, 200)
	time.Sleep(4 * time.Second)
	h := r.finish()
	t.Logf("document's manager on PostgreSQL under random link faults: %s; proxy: %s; %d errors", summary(h), r.l.stats(), r.errs)
	for _, v := range judge(h, false) {
		t.Logf("  %s", v)
	}
}
