package live

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// cluster is the nodes of a live run: an elector per node, each with its
// own *s3.Client through the proxy, the leaders restarted on a schedule,
// and the recorder and fenced resource they share.
type cluster struct {
	cfg     Config
	log     *slog.Logger
	rec     *recorder
	fence   *fencedResource
	clients []*s3.Client
	links   []*viaProxy
	// runCtx is the electors' context; stopAll ends it.
	runCtx  context.Context
	stopAll context.CancelFunc
	// restarts counts the restarts under way (one at a time).
	restarts sync.WaitGroup

	// mu guards members, runErr, restarting and res while leaders are
	// restarted. A member is nil once it stopped and will not be
	// restarted.
	mu         sync.Mutex
	members    []*member
	runErr     error
	restarting bool
	res        *Result
}

// newCluster returns the nodes of a run of cfg against tgt through px,
// not yet started.
func newCluster(cfg Config, log *slog.Logger, tgt *target, px *proxy) *cluster {
	c := &cluster{cfg: cfg, log: log, rec: newRecorder(cfg.Nodes)}
	c.fence = &fencedResource{rec: c.rec}
	c.clients = make([]*s3.Client, cfg.Nodes)
	c.links = make([]*viaProxy, cfg.Nodes)
	for i := range c.clients {
		hc := nodeHTTPClient(px.addr())
		c.links[i] = hc.Transport.(*viaProxy)
		c.clients[i] = tgt.client(cfg, hc, c.rec.apiOption(i))
	}
	c.runCtx, c.stopAll = context.WithCancel(context.Background())
	c.members = make([]*member, cfg.Nodes)
	return c
}

// startAll takes the run's time 0 and starts every node's first
// incarnation.
func (c *cluster) startAll() error {
	c.res.Started = time.Now()
	c.rec.start = c.res.Started // time 0 of the history: no request was made before
	for i := range c.members {
		m, err := c.start(i, 0)
		if err != nil {
			c.stopAll()
			return err
		}
		c.members[i] = m
	}
	return nil
}

// start starts incarnation inc of node i.
func (c *cluster) start(i, inc int) (*member, error) {
	m := &member{node: i, incarnation: inc, identity: "live-n" + strconv.Itoa(i), done: make(chan error, 1)}
	app := &application{node: i, incarnation: inc, identity: m.identity, rec: c.rec, fence: c.fence,
		every: c.cfg.WriteInterval, clock: protocol.NewRealClock()}
	e, err := protocol.NewElector(c.cfg.electorConfig(c.clients[i], m.identity, protocol.LeaderCallbacks{OnStartedLeading: app.lead},
		c.log.With("node", i, "incarnation", inc)))
	if err != nil {
		return nil, fmt.Errorf("live: elector %d: %w", i, err)
	}
	m.elector = e
	ctx, cancel := context.WithCancel(c.runCtx)
	m.cancel = cancel
	go func() { m.done <- e.Run(ctx) }()
	return m, nil
}

// run lets the electors run until the run's duration is over or ctx ends,
// restarting a leader every Config.RestartLeaderEvery.
func (c *cluster) run(ctx context.Context) {
	end := time.NewTimer(c.cfg.Duration)
	defer end.Stop()
	var tick <-chan time.Time
	if c.cfg.RestartLeaderEvery > 0 {
		t := time.NewTicker(c.cfg.RestartLeaderEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-end.C:
			return
		case <-ctx.Done():
			return
		case <-tick:
			c.stopLeader()
		}
	}
}

// stopLeader stops the current leader, if there is one and no restart is
// under way, and restarts it on a goroutine of its own, so that the run
// ends on time even while an elector takes its time to stop.
func (c *cluster) stopLeader() {
	c.mu.Lock()
	i := slices.IndexFunc(c.members, func(m *member) bool { return m != nil && m.elector.IsLeader() })
	if i < 0 || c.restarting || c.runErr != nil {
		c.mu.Unlock()
		return // no leader to restart now
	}
	c.restarting = true
	old := c.members[i]
	// The first restart stops the leader, which releases its lease; the
	// next crashes it: its connection to the store is severed first, so
	// that it cannot release, and followers must wait the lease out. And
	// so on, alternately.
	kind := "stop"
	if c.res.Restarts%2 == 1 {
		kind = "crash"
		c.links[i].down.Store(true)
	}
	c.res.Restarts++
	c.mu.Unlock()
	c.rec.fault(sim.FaultSpan{Kind: kind, Node: i})
	old.cancel()
	c.restarts.Add(1)
	go c.restartLeader(old)
}

// restartLeader waits for the stopped leader old to return and starts
// its node's next incarnation, unless the run is over.
func (c *cluster) restartLeader(old *member) {
	defer c.restarts.Done()
	i := old.node
	err := c.stopped(old, time.After(c.cfg.StopTimeout))
	c.links[i].down.Store(false)
	var m *member
	if err == nil && c.runCtx.Err() == nil {
		c.rec.fault(sim.FaultSpan{Kind: "restart", Node: i})
		m, err = c.start(i, old.incarnation+1)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.restarting = false
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
	restarted := make(chan struct{})
	go func() {
		c.restarts.Wait()
		close(restarted)
	}()
	var stopErr error
	select {
	case <-restarted:
	case <-deadline.C:
		stopErr = fmt.Errorf("%w: a restart did not finish within %v", ErrElectorsDidNotStop, c.cfg.StopTimeout)
	}
	c.mu.Lock()
	final := slices.Clone(c.members)
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
	elector           *protocol.Elector
	cancel            context.CancelFunc
	done              chan error // Run's result
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
