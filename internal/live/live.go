package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// ErrElectorsDidNotStop is wrapped by the error Run returns when an elector
// had not returned StopTimeout after the run ended. The Result is complete
// all the same: the history was closed at the end of the run.
var ErrElectorsDidNotStop = errors.New("live: electors did not stop")

// Result is a judged live run.
type Result struct {
	// Target names the store the run talked to (never its credentials).
	Target string `json:"target"`
	// Bucket and Key name the lock object.
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
	// Seed seeded the fault draws.
	Seed uint64 `json:"seed"`
	// Faults are the fault probabilities the proxy drew from.
	Faults Faults `json:"faultConfig"`
	// Started is the wall-clock time at which the run's time 0 was taken.
	Started time.Time `json:"started"`

	// History is the run as the simulator's checkers see it, in real
	// time since Started. Encode it with encoding/json for the same
	// document a simulated run's history gives.
	History *sim.History `json:"history"`
	// Size counts the history.
	Size Size `json:"size"`
	// Proxy is what passed through the proxy, and the faults it injected.
	Proxy ProxyStats `json:"proxy"`

	// Checks holds one verdict per checker, in a fixed order:
	// unique-holder, monotonic-tokens, fencing, overlap, s3-linearizable,
	// liveness.
	Checks []Check `json:"checks"`
	// Overlaps are the intervals in which two nodes both led.
	Overlaps []Overlap `json:"overlaps,omitempty"`
	// S3 is the porcupine check of History.S3.
	S3 S3Check `json:"s3"`
	// Verdict sums the checks up as the harness does.
	Verdict Verdict `json:"verdict"`
	// Violations are the violations that decided the verdict.
	Violations []Violation `json:"violations,omitempty"`

	// Restarts is the number of leaders restarted (Config.RestartLeaderEvery).
	// Each appears in History.Faults as a "stop" (the leader released its
	// lease) or a "crash" (it could not), then a "restart".
	Restarts int `json:"restarts,omitempty"`

	// ElectorErrors lists what electors' Run returned other than the
	// cancellation that ends every run.
	ElectorErrors []string `json:"electorErrors,omitempty"`
}

// Size counts a history.
type Size struct {
	// S3Ops is the number of S3 requests (HTTP attempts) recorded;
	// Unanswered how many of them got no answer (their outcome is
	// unknown), Failed how many were answered 409 or 5xx.
	S3Ops      int `json:"s3Ops"`
	Unanswered int `json:"unanswered"`
	Failed     int `json:"failed"`
	// Terms is the number of leadership terms, Tokens the number of
	// distinct tokens among them.
	Terms  int `json:"terms"`
	Tokens int `json:"tokens"`
	// FencedWrites is the number of writes to the fenced resource,
	// Accepted how many it accepted.
	FencedWrites int `json:"fencedWrites"`
	Accepted     int `json:"accepted"`
}

// Run runs cfg.Nodes production electors (protocol.NewElector with
// protocol.RealClock and a real *s3.Client each) against the store for
// cfg.Duration, through the fault-injecting proxy, records the history and
// judges it. If ctx ends first, the run ends then, and Run returns the
// judged result together with ctx's error. A Config it cannot run is an
// error wrapping ErrInvalidConfig; a failure to set up the store or the
// proxy is returned without a result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tgt, err := startTarget(cfg)
	if err != nil {
		return nil, err
	}
	defer tgt.close()
	direct := tgt.client(cfg, nil)
	if tgt.embedded || cfg.CreateBucket {
		if err := tgt.createBucket(ctx, direct, cfg.Bucket); err != nil {
			return nil, err
		}
	}
	px, err := startProxy(tgt.url, cfg.Faults, cfg.Seed, log)
	if err != nil {
		return nil, err
	}
	defer px.close()

	rec := newRecorder(cfg.Nodes)
	fence := &fencedResource{rec: rec}
	clients := make([]*s3.Client, cfg.Nodes)
	links := make([]*viaProxy, cfg.Nodes)
	for i := range clients {
		hc := nodeHTTPClient(px.addr())
		links[i] = hc.Transport.(*viaProxy)
		clients[i] = tgt.client(cfg, hc, rec.apiOption(i))
	}
	runCtx, stopAll := context.WithCancel(context.Background())
	defer stopAll()
	// start starts incarnation inc of node i.
	start := func(i, inc int) (*member, error) {
		m := &member{node: i, incarnation: inc, identity: "live-n" + strconv.Itoa(i), done: make(chan error, 1)}
		app := &application{node: i, incarnation: inc, identity: m.identity, rec: rec, fence: fence,
			every: cfg.WriteInterval, clock: protocol.NewRealClock()}
		e, err := protocol.NewElector(cfg.electorConfig(clients[i], m.identity, protocol.LeaderCallbacks{OnStartedLeading: app.lead},
			log.With("node", i, "incarnation", inc)))
		if err != nil {
			return nil, fmt.Errorf("live: elector %d: %w", i, err)
		}
		m.elector = e
		ctx, cancel := context.WithCancel(runCtx)
		m.cancel = cancel
		go func() { m.done <- e.Run(ctx) }()
		return m, nil
	}

	res := &Result{Target: tgt.desc, Bucket: cfg.Bucket, Key: cfg.Key, Seed: cfg.Seed, Faults: cfg.Faults}
	members := make([]*member, cfg.Nodes)
	res.Started = time.Now()
	rec.start = res.Started // time 0 of the history: no request was made before
	for i := range members {
		if members[i], err = start(i, 0); err != nil {
			stopAll()
			return nil, err
		}
	}
	// mu guards members, runErr and res while leaders are restarted. A
	// member is nil once it stopped and will not be restarted.
	var mu sync.Mutex
	var runErr error
	// stopped waits for m's Run to return, until deadline fires.
	stopped := func(m *member, deadline <-chan time.Time) error {
		select {
		case err := <-m.done:
			if err != nil { // Run returns nil once its context ends
				mu.Lock()
				res.ElectorErrors = append(res.ElectorErrors, fmt.Sprintf("node %d incarnation %d: %v", m.node, m.incarnation, err))
				mu.Unlock()
			}
			return nil
		case <-deadline:
			return fmt.Errorf("%w: node %d incarnation %d, within %v", ErrElectorsDidNotStop, m.node, m.incarnation, cfg.StopTimeout)
		}
	}
	// A restart runs on a goroutine of its own, so that the run ends on
	// time even while an elector takes its time to stop; one at a time.
	var restarts sync.WaitGroup
	restarting := false
	restartLeader := func(old *member) {
		defer restarts.Done()
		i := old.node
		err := stopped(old, time.After(cfg.StopTimeout))
		links[i].down.Store(false)
		var m *member
		if err == nil && runCtx.Err() == nil {
			rec.fault(sim.FaultSpan{Kind: "restart", Node: i})
			m, err = start(i, old.incarnation+1)
		}
		mu.Lock()
		defer mu.Unlock()
		restarting = false
		switch {
		case m != nil:
			members[i] = m
		case err == nil:
			members[i] = nil // it stopped and the run is over: nothing to wait for
		}
		if err != nil && runErr == nil {
			runErr = err
		}
	}

	end := time.NewTimer(cfg.Duration)
	defer end.Stop()
	var tick <-chan time.Time
	if cfg.RestartLeaderEvery > 0 {
		t := time.NewTicker(cfg.RestartLeaderEvery)
		defer t.Stop()
		tick = t.C
	}
run:
	for {
		select {
		case <-end.C:
			break run
		case <-ctx.Done():
			break run
		case <-tick:
			mu.Lock()
			i := slices.IndexFunc(members, func(m *member) bool { return m != nil && m.elector.IsLeader() })
			if i < 0 || restarting || runErr != nil {
				mu.Unlock()
				continue // no leader to restart now
			}
			restarting = true
			old := members[i]
			// The first restart stops the leader, which releases its
			// lease; the next crashes it: its connection to the store is
			// severed first, so that it cannot release, and followers
			// must wait the lease out. And so on, alternately.
			kind := "stop"
			if res.Restarts%2 == 1 {
				kind = "crash"
				links[i].down.Store(true)
			}
			res.Restarts++
			mu.Unlock()
			rec.fault(sim.FaultSpan{Kind: kind, Node: i})
			old.cancel()
			restarts.Add(1)
			go restartLeader(old)
		}
	}
	h := rec.stop()
	res.History = h
	res.Proxy = px.freeze(h.End)
	stopAll()
	deadline := time.NewTimer(cfg.StopTimeout)
	defer deadline.Stop()
	restarted := make(chan struct{})
	go func() {
		restarts.Wait()
		close(restarted)
	}()
	var stopErr error
	select {
	case <-restarted:
	case <-deadline.C:
		stopErr = fmt.Errorf("%w: a restart did not finish within %v", ErrElectorsDidNotStop, cfg.StopTimeout)
	}
	mu.Lock()
	final := slices.Clone(members)
	if stopErr == nil {
		stopErr = runErr
	}
	mu.Unlock()
	for _, m := range final {
		if m != nil && stopErr == nil {
			stopErr = stopped(m, deadline.C)
		}
	}
	if !tgt.embedded && !cfg.KeepObject && stopErr == nil {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := direct.DeleteObject(dctx, &s3.DeleteObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(cfg.Key)}); err != nil {
			log.Warn("live: could not delete the lock object after the run", "bucket", cfg.Bucket, "key", cfg.Key, "err", err)
		}
		cancel()
	}
	judge(res, cfg)
	if stopErr == nil {
		stopErr = ctx.Err()
	}
	return res, stopErr
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
