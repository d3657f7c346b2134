package live

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// cluster is the nodes of a live run: an elector per node, each
// incarnation with its own *s3.Client and connections through the proxy,
// run through the run's phases, and the recorder and fenced resource they
// share.
type cluster struct {
	cfg   Config
	log   *slog.Logger
	rec   *recorder
	fence *fencedResource
	tgt   *target
	px    *proxy
	// runCtx is the electors' context; stopAll ends it.
	runCtx  context.Context
	stopAll context.CancelFunc

	// mu guards the fields below while electors are restarted. A member
	// is nil before its node first starts, and once it stopped and will
	// not be restarted.
	mu        sync.Mutex
	members   []*member
	crashed   []*member // crashed incarnations, cut off for good, still returning
	key       string    // the key the electors use now
	creations int       // the creation rounds so far
	runErr    error     // the first error of a restart
	// restarting is closed once the leader restart of a steady phase under
	// way is over; nil when none is.
	restarting chan struct{}
	res        *Result     // Restarts, Keys and Phases are counted here
	phase      *PhaseStats // the phase under way
}

// newCluster returns the nodes of a run of cfg against tgt through px,
// not yet started.
func newCluster(cfg Config, log *slog.Logger, tgt *target, px *proxy) *cluster {
	c := &cluster{cfg: cfg, log: log, rec: newRecorder(cfg.Nodes), tgt: tgt, px: px, key: cfg.Key}
	c.fence = &fencedResource{rec: c.rec}
	c.runCtx, c.stopAll = context.WithCancel(context.Background())
	c.members = make([]*member, cfg.Nodes)
	return c
}

// start takes the run's time 0: no request was made before.
func (c *cluster) start() {
	c.res.Started = time.Now()
	c.rec.start = c.res.Started
}

// launch creates incarnation inc of node i, electing on key; its Run
// starts once gate is closed.
func (c *cluster) launch(i, inc int, key string, gate <-chan struct{}) (*member, error) {
	hc := nodeHTTPClient(c.px.addr())
	m := &member{node: i, incarnation: inc, identity: "live-n" + strconv.Itoa(i), link: hc.Transport.(*viaProxy), done: make(chan error, 1)}
	app := &application{node: i, incarnation: inc, identity: m.identity, rec: c.rec, fence: c.fence,
		every: c.cfg.WriteInterval, clock: protocol.NewRealClock()}
	cfg := c.cfg
	cfg.Key = key
	client := c.tgt.client(cfg, i, hc, c.rec.apiOption(i))
	e, err := protocol.NewElector(cfg.electorConfig(client, m.identity, protocol.LeaderCallbacks{OnStartedLeading: app.lead},
		c.log.With("node", i, "incarnation", inc)))
	if err != nil {
		return nil, fmt.Errorf("live: elector %d: %w", i, err)
	}
	m.elector = e
	ctx, cancel := context.WithCancel(c.runCtx)
	m.cancel = cancel
	go func() {
		select {
		case <-gate:
			m.done <- e.Run(ctx)
		case <-ctx.Done():
			m.done <- nil
		}
	}()
	return m, nil
}

// run runs the phases in order, until the last is over or ctx ends.
func (c *cluster) run(ctx context.Context) {
	for _, p := range c.cfg.Phases {
		if ctx.Err() != nil || c.failed() {
			return
		}
		c.runPhase(ctx, p)
	}
}

// failed reports whether a restart failed: the run cannot go on.
func (c *cluster) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runErr != nil
}

// fail records the first error of the run's restarts.
func (c *cluster) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runErr == nil {
		c.runErr = err
	}
}

// runPhase runs one phase for its duration, or until ctx ends, and adds
// what it exercised to the result (counted from the history once the run
// is over).
func (c *cluster) runPhase(ctx context.Context, p Phase) {
	c.waitRestart()
	end := time.NewTimer(p.Duration)
	defer end.Stop()
	ps := &PhaseStats{Kind: p.Kind, From: c.rec.now()}
	before := c.px.faultCounts()
	var align time.Duration
	if p.Kind.rounds() {
		align = alignWindow
	}
	c.px.inject(p.Kind.faults(), align)
	c.mu.Lock()
	c.phase = ps
	c.mu.Unlock()
	if p.Kind.rounds() {
		c.rounds(ctx, end.C, p.Kind)
	} else {
		c.steady(ctx, end.C, p.Kind)
	}
	faults := c.px.faultCounts().minus(before)
	c.mu.Lock()
	ps.To, ps.Faults = c.rec.now(), faults
	c.phase = nil
	c.res.Phases = append(c.res.Phases, *ps)
	c.mu.Unlock()
}

// alignWindow is how long the proxy gathers the conditional writes of a
// round before it lets them go on together (proxy.gather). The electors of
// a round send theirs within a few milliseconds of each other (each after
// a read of its own); held for this long, they reach the store together,
// where a store that does not serialize them lets several win.
const alignWindow = 15 * time.Millisecond

// rounds runs rounds of simultaneous starts until end fires or ctx ends.
// A round stops every elector (crashing the leader in a crash takeover),
// starts them all again at one instant, and lets them play for the
// round's length: a retry period, long enough for every elector to have
// read and written, and for a crash takeover a lease more. Two winners of
// a race both lead from the instant they are told: the overlap is in the
// history however soon the round ends. Short rounds make many races.
func (c *cluster) rounds(ctx context.Context, end <-chan time.Time, kind PhaseKind) {
	length := c.cfg.RetryPeriod
	if kind == PhaseCrashTakeovers {
		length += c.cfg.LeaseDuration
	}
	for {
		key := c.cfg.Key
		if kind == PhaseCreationRaces {
			c.mu.Lock()
			c.creations++
			key = c.cfg.Key + ".create-" + strconv.Itoa(c.creations)
			c.mu.Unlock()
		}
		if err := c.restartAll(key, kind == PhaseCrashTakeovers); err != nil {
			c.fail(err)
			return
		}
		c.mu.Lock()
		c.phase.Rounds++
		c.mu.Unlock()
		t := time.NewTimer(length)
		select {
		case <-t.C:
		case <-end:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// steady lets the electors run until end fires or ctx ends, starting them
// if none runs yet; in a PhaseSteady it restarts the leader every
// Config.RestartLeaderEvery.
func (c *cluster) steady(ctx context.Context, end <-chan time.Time, kind PhaseKind) {
	c.mu.Lock()
	started := slices.ContainsFunc(c.members, func(m *member) bool { return m != nil })
	c.mu.Unlock()
	if !started {
		if err := c.restartAll(c.cfg.Key, false); err != nil {
			c.fail(err)
			return
		}
	}
	var tick <-chan time.Time
	if kind == PhaseSteady && c.cfg.RestartLeaderEvery > 0 {
		t := time.NewTicker(c.cfg.RestartLeaderEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-end:
			return
		case <-ctx.Done():
			return
		case <-tick:
			c.stopLeader()
		}
	}
}

// restartAll stops every running elector and starts every node's next
// incarnation at one instant, electing on key. With crash, the leaders are
// cut off from the store for good and crash: the others start without
// waiting for them to return (they will not reach the store again). The
// other electors stop, and a leader among them releases its lease.
func (c *cluster) restartAll(key string, crash bool) error {
	c.mu.Lock()
	old := slices.Clone(c.members)
	c.mu.Unlock()
	var stopping []*member
	for _, m := range old {
		if m == nil {
			continue
		}
		kind := "stop"
		if crash && m.elector.IsLeader() {
			kind = "crash"
			m.link.down.Store(true)
			c.mu.Lock()
			c.phase.Crashes++
			c.crashed = append(c.crashed, m)
			c.mu.Unlock()
		} else {
			stopping = append(stopping, m)
		}
		c.rec.fault(sim.FaultSpan{Kind: kind, Node: m.node})
		m.cancel()
	}
	deadline := time.After(c.cfg.StopTimeout)
	for _, m := range stopping {
		if err := c.stopped(m, deadline); err != nil {
			return err
		}
	}
	gate := make(chan struct{})
	next := make([]*member, len(old))
	for i, m := range old {
		inc := 0
		if m != nil {
			inc = m.incarnation + 1
			c.rec.fault(sim.FaultSpan{Kind: "restart", Node: i})
		}
		n, err := c.launch(i, inc, key, gate)
		if err != nil {
			for _, n := range next {
				if n != nil {
					n.cancel()
				}
			}
			return err
		}
		next[i] = n
	}
	c.mu.Lock()
	c.members, c.key = next, key
	if !slices.Contains(c.res.Keys, key) {
		c.res.Keys = append(c.res.Keys, key)
	}
	for _, m := range old {
		if m != nil {
			c.res.Restarts++
			c.phase.Restarts++
		}
	}
	c.mu.Unlock()
	close(gate)
	return nil
}

// stopLeader stops the current leader, if there is one and no restart is
// under way, and restarts it on a goroutine of its own, so that the run
// ends on time even while an elector takes its time to stop.
func (c *cluster) stopLeader() {
	c.mu.Lock()
	i := slices.IndexFunc(c.members, func(m *member) bool { return m != nil && m.elector.IsLeader() })
	if i < 0 || c.restarting != nil || c.runErr != nil {
		c.mu.Unlock()
		return // no leader to restart now
	}
	done := make(chan struct{})
	c.restarting = done
	old := c.members[i]
	// The first restart stops the leader, which releases its lease; the
	// next crashes it: its connection to the store is severed first, so
	// that it cannot release, and followers must wait the lease out. And
	// so on, alternately.
	kind := "stop"
	if c.phase.Restarts%2 == 1 {
		kind = "crash"
		old.link.down.Store(true)
		c.phase.Crashes++
	}
	c.res.Restarts++
	c.phase.Restarts++
	c.mu.Unlock()
	c.rec.fault(sim.FaultSpan{Kind: kind, Node: i})
	old.cancel()
	go c.restartLeader(old, done)
}

// restartLeader waits for the stopped leader old to return and starts
// its node's next incarnation, unless the run is over; then it closes
// done.
func (c *cluster) restartLeader(old *member, done chan struct{}) {
	defer close(done)
	i := old.node
	err := c.stopped(old, time.After(c.cfg.StopTimeout))
	var m *member
	if err == nil && c.runCtx.Err() == nil {
		c.rec.fault(sim.FaultSpan{Kind: "restart", Node: i})
		gate := make(chan struct{})
		close(gate)
		c.mu.Lock()
		key := c.key
		c.mu.Unlock()
		m, err = c.launch(i, old.incarnation+1, key, gate)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.restarting = nil
	switch {
	case m != nil:
		c.members[i] = m
	case err == nil:
		c.members[i] = nil // it stopped and the run is over: nothing to wait for
	}
	if err != nil && c.runErr == nil {
		c.runErr = err
	}
}

// waitRestart waits for the leader restart under way, if any, to finish;
// it cannot take longer than StopTimeout.
func (c *cluster) waitRestart() {
	c.mu.Lock()
	done := c.restarting
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

// stopped waits for m's Run to return, until deadline fires.
func (c *cluster) stopped(m *member, deadline <-chan time.Time) error {
	select {
	case err := <-m.done:
		if err != nil { // Run returns nil once its context ends
			c.mu.Lock()
			c.res.ElectorErrors = append(c.res.ElectorErrors, fmt.Sprintf("node %d incarnation %d: %v", m.node, m.incarnation, err))
			c.mu.Unlock()
		}
		return nil
	case <-deadline:
		return fmt.Errorf("%w: node %d incarnation %d, within %v", ErrElectorsDidNotStop, m.node, m.incarnation, c.cfg.StopTimeout)
	}
}

// stop ends every elector's context and waits, StopTimeout at most, for
// the restart under way and every elector to return. It returns the
// first error of the run's restarts or of the wait.
func (c *cluster) stop() error {
	c.stopAll()
	deadline := time.NewTimer(c.cfg.StopTimeout)
	defer deadline.Stop()
	c.mu.Lock()
	restarted := c.restarting
	c.mu.Unlock()
	var stopErr error
	if restarted != nil {
		select {
		case <-restarted:
		case <-deadline.C:
			stopErr = fmt.Errorf("%w: a restart did not finish within %v", ErrElectorsDidNotStop, c.cfg.StopTimeout)
		}
	}
	c.mu.Lock()
	final := append(slices.Clone(c.members), c.crashed...)
	if stopErr == nil {
		stopErr = c.runErr
	}
	c.mu.Unlock()
	for _, m := range final {
		if m != nil && stopErr == nil {
			stopErr = c.stopped(m, deadline.C)
		}
	}
	return stopErr
}

// fencedResource is the in-process resource the leaders write to: a
// protocol.Fence judging each write at the instant it arrives, with the
// write recorded in the same critical section, so that the history lists
// writes in the order the fence judged them.
type fencedResource struct {
	mu    sync.Mutex
	fence protocol.Fence
	rec   *recorder
}

// write judges one write sent at sent by node under token.
func (f *fencedResource) write(node int, token uint64, sent time.Duration) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	ok := f.fence.Admit(token) == nil
	f.rec.fencedWrite(node, token, sent, ok)
	return ok
}

// member is one incarnation of a node: an elector and its Run.
type member struct {
	node, incarnation int
	identity          string
	// link is the incarnation's transport: down severs it from the store.
	link    *viaProxy
	elector *protocol.Elector
	cancel  context.CancelFunc
	done    chan error // Run's result
}

// application is what a node does while it leads: it records its term and
// writes to the fenced resource under the term's token every interval
// until its context ends, as the simulator's application does.
type application struct {
	node        int
	incarnation int
	identity    string
	rec         *recorder
	fence       *fencedResource
	every       time.Duration
	clock       protocol.Clock
}

// lead is the elector's OnStartedLeading.
func (a *application) lead(ctx context.Context, lease protocol.Lease) {
	term := a.rec.termStart(a.node, a.incarnation, a.identity, lease.Token)
	defer a.rec.termEnd(term)
	for ctx.Err() == nil {
		a.fence.write(a.node, lease.Token, a.rec.now())
		if a.clock.Sleep(ctx, a.every) != nil {
			return
		}
	}
}
