package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Candidate runs one node's election protocol until ctx is done. It is the
// unit the harness runs: production code adapted to Env, or any other
// protocol written against the same Clock and S3 calls.
type Candidate func(ctx context.Context, env Env) error

// Env is everything a candidate gets from the simulated world.
type Env struct {
	// Node is the node's index and Incarnation counts its restarts.
	Node, Incarnation int
	// Identity is the candidate's identity for this incarnation.
	Identity string
	// Clock is the node's clock; Store is the node's S3 client.
	Clock protocol.Clock
	Store S3Client
	// Entropy is the node's randomness, seeded from the run's seed.
	Entropy io.Reader
	// Bucket and Key name the lock object.
	Bucket, Key string
	// Lead is the application: the protocol calls it, on a goroutine of its
	// own, when it starts leading with a fencing token. It keeps writing to
	// the fenced resource under that token until ctx is done, then returns.
	Lead func(ctx context.Context, token uint64)
	// Rows is the node's client of the simulated SQL row store
	// (World.RowStore), for a protocol that keeps its lock in a database
	// row rather than in S3.
	Rows *RowClient
	// ReportLease, which a candidate may call once it can answer, tells the
	// application how to ask the protocol whether it still leads
	// (protocol.Elector.Lease): applications of mode AppChecks and AppPolls
	// ask it before each guarded write.
	ReportLease func(LeaseCheck)
	// ReportObserver, which a candidate may call once it can answer, tells
	// the node's callers (Node.AddCaller) how to ask the protocol who
	// leads; NewLeader is for the protocol's OnNewLeader callback, whose
	// every call is recorded (History.Answers).
	ReportObserver func(Observer)
	NewLeader      func(identity string)
	// Coverage is the run's set of coverage points (Config.Coverage), in
	// which the candidate marks those it reaches (Coverage.Hit): every
	// incarnation of every node marks the same set. nil if the protocol
	// declares none; Hit on nil does nothing.
	Coverage *Coverage
	// Report records that the candidate broke a rule that only its own
	// code can observe (a hook in its configuration calls it: the
	// harness's, in the production elector's, an undeclared transition),
	// in Result.Reports, with the node, the incarnation and the true time
	// (see Report). It draws no choice and writes no trace event. Set in
	// every run.
	Report func(checker, message string)
}

// StartLead starts the application's term under token (Lead, on a goroutine
// of the node's) and returns the function that ends it: the term lasts until
// that is called or ctx is done. It is for a protocol that tells when it
// leads by callbacks, elected with a token and then ousted, rather than by
// a call that returns when the term ends.
func (e Env) StartLead(ctx context.Context, token uint64) (stop func()) {
	lead, cancel := context.WithCancel(ctx)
	e.Clock.Go(func() { e.Lead(lead, token) })
	return cancel
}

// Node is one simulated machine: its clocks, its processes over time
// (incarnations), and the simulated goroutines of the current one.
type Node struct {
	// Index is the node's number, from 0.
	Index int
	w     *World
	clock *clockState
	clk   nodeClock
	s3    nodeS3

	incarnation int
	identity    string
	up          bool
	cancel      context.CancelFunc
	tasks       []*task
	pausedUntil time.Duration

	// requests counts S3 requests per operation, for fault triggers.
	requests [landList + 1]int
	// rowRequests counts statements to the SQL row store, writes [0] and
	// reads [1], for fault triggers.
	rowRequests [2]int
	// writes counts fenced writes; pauseBeforeWrite maps a write's number
	// to a pause between the lease check and the write.
	writes           int
	pauseBeforeWrite map[int]time.Duration
	delayWrite       map[int]time.Duration
	// linger is how long the application goes on writing after its leader
	// context ended (an application that ignores cancellation).
	linger time.Duration
	// appMode and appWork shape the application (SetApp); leaseCheck is
	// the current incarnation's lease check (Env.ReportLease).
	appMode    AppMode
	appWork    time.Duration
	leaseCheck LeaseCheck
	// acted is, per term (index in the history) of an application that
	// polls, the last instant it acted as leader.
	acted map[int]time.Duration
	// observer is the current incarnation's (Env.ReportObserver); aimed
	// are the callers with an Aim (AddCaller).
	observer Observer
	aimed    []Caller
}

// PauseBeforeWrite makes the node's application pause for d after it checked
// that it still leads and before it sends its nth fenced write (counted from
// 1 over the whole run): the window in which a lease can expire between
// check and act.
func (n *Node) PauseBeforeWrite(nth int, d time.Duration) {
	if n.pauseBeforeWrite == nil {
		n.pauseBeforeWrite = map[int]time.Duration{}
	}
	n.pauseBeforeWrite[nth] = d
}

// DelayWrite makes the node's nth fenced write take d longer to reach the
// resource: a write sent under a valid lease that arrives late.
func (n *Node) DelayWrite(nth int, d time.Duration) {
	if n.delayWrite == nil {
		n.delayWrite = map[int]time.Duration{}
	}
	n.delayWrite[nth] = d
}

// ClearWriteFaults calls off every pause and delay planned for fenced writes
// that have not happened yet.
func (n *Node) ClearWriteFaults() {
	n.pauseBeforeWrite, n.delayWrite = nil, nil
}

// SetLinger makes the node's application keep writing under its token for d
// after its leader context ended, as an application that ignores
// cancellation or stops slowly does.
func (n *Node) SetLinger(d time.Duration) { n.linger = d }

// DefaultIdentity is the identity of the node's incarnations that are given
// none: its entry in Config.Identities if that is set, else "n<index>".
func (n *Node) DefaultIdentity() string {
	if ids := n.w.cfg.Identities; n.Index < len(ids) && ids[n.Index] != "" {
		return ids[n.Index]
	}
	return "n" + strconv.Itoa(n.Index)
}

// Identity returns the identity of the node's current incarnation.
func (n *Node) Identity() string { return n.identity }

// Incarnation counts the node's starts: 1 for its first process, one more
// for each restart (the Incarnation of its terms in the History).
func (n *Node) Incarnation() int { return n.incarnation }

// Up reports whether the node's process is running (not crashed).
func (n *Node) Up() bool { return n.up }

// Clock returns the node's clock.
func (n *Node) Clock() protocol.Clock { return &n.clk }

func (n *Node) localWall(t time.Duration) time.Duration { return n.clock.wall(t) }

func (n *Node) event(k EventKind) Event {
	return Event{At: n.w.now, Node: n.Index, Local: n.clock.wall(n.w.now), Kind: k}
}

// start begins a new incarnation running the configured candidate.
func (n *Node) start(identity string) {
	w := n.w
	n.incarnation++
	if identity == "" {
		identity = n.DefaultIdentity()
	}
	n.identity = identity
	n.up = true
	n.leaseCheck, n.observer = nil, Observer{}
	nc := newNodeCtx(w)
	var ctx context.Context = nc
	n.cancel = nc.cancel
	ent := newEntropy(w.chooser.Choose(ChooseEntropy, math.MaxUint64))
	var store S3Client = &n.s3
	if w.cfg.WrapStore != nil {
		store = w.cfg.WrapStore(store)
	}
	if w.cfg.S3Attempts > 1 {
		store = newSDKRetry(store, &n.clk, newEntropy(w.chooser.Choose(ChooseEntropy, math.MaxUint64)), w.cfg.S3Attempts)
	}
	env := Env{
		Node: n.Index, Incarnation: n.incarnation, Identity: identity,
		Clock: &n.clk, Store: store,
		Entropy: ent,
		Bucket:  w.cfg.Bucket, Key: w.cfg.Key,
		Lead: func(ctx context.Context, token uint64) {
			w.enter()
			w.lead(ctx, n, token)
			w.leave()
		},
		Rows:           n.rowClient(),
		ReportLease:    n.reportLease(n.incarnation),
		ReportObserver: n.reportObserver(n.incarnation),
		NewLeader:      n.newLeader(n.incarnation),
		Report:         n.report(n.incarnation),
	}
	if w.coverage.Len() > 0 {
		env.Coverage = &w.coverage
	}
	e := n.event(EvStart)
	e.Detail = identity
	w.trace.add(e)
	inc := n.incarnation
	w.spawn(n, func() {
		if err := w.cfg.Candidate(ctx, env); err != nil && ctx.Err() == nil && n.incarnation == inc {
			w.candidateReturned(n, err)
		}
	})
	w.live.beat()
}

// SetClock replaces the node's clock model. It may only be called from
// Config.Setup, before the run starts; later it returns an error.
func (n *Node) SetClock(m ClockModel) error {
	if n.w.started {
		return fmt.Errorf("sim: SetClock on n%d after the run started", n.Index)
	}
	n.clock = newClockState(m, n.clock.base)
	return nil
}

// Pause stops the node's process for d of true time starting now: none of
// its goroutines runs and its timers do not fire until the pause ends. The
// node's clocks keep running.
func (n *Node) Pause(d time.Duration) { n.PauseFor(FaultPause, d) }

// PauseFor is Pause for a cause: the kind of fault that stops the process
// (FaultPause, FaultClockStall, FaultAnswerPause, FaultPauseBeforeWrite).
// The pause is recorded in the history, so that the checkers see how long
// the node really did not run, overlapping pauses together.
func (n *Node) PauseFor(kind FaultKind, d time.Duration) {
	if d <= 0 {
		return
	}
	w := n.w
	w.RecordFault(FaultSpan{Kind: kind.String(), Node: n.Index, From: w.now, To: w.now + d})
	until := w.now + d
	if until > n.pausedUntil {
		n.pausedUntil = until
		w.pausedUntil[n.Index] = until
	}
	e := n.event(EvPause)
	e.Detail, e.Fault, e.For = "for "+d.String(), kind, d
	w.trace.add(e)
	w.At(until, -1, func() {
		if n.pausedUntil == w.now {
			w.trace.add(n.event(EvResume))
		}
	})
	w.live.beat()
}

// Crash kills the node's process now: every goroutine stops where it is,
// without running anything more.
func (n *Node) Crash() {
	if !n.up {
		return
	}
	w := n.w
	w.trace.add(n.event(EvCrash))
	n.up = false
	n.cancel()
	w.closeTerms(n)
	tasks := n.tasks
	n.tasks = nil
	for _, t := range tasks {
		w.kill(t)
	}
	w.live.beat()
}

// Restart starts a fresh process on a crashed node, with the given identity
// (empty: the node's default identity).
func (n *Node) Restart(identity string) {
	if n.up {
		n.Crash()
	}
	n.start(identity)
}

// Stop asks the node's candidate to stop, by cancelling its context; a
// protocol that releases its lease on cancellation does so now.
func (n *Node) Stop() {
	if !n.up {
		return
	}
	n.w.trace.add(n.event(EvStop))
	n.cancel()
	n.w.live.beat()
}

// entropy is a node's randomness source: a PCG stream seeded by the run's
// chooser.
type entropy struct {
	src rand.PCG
}

func newEntropy(seed uint64) *entropy {
	e := &entropy{}
	e.src.Seed(seed, seed^0xda3e39cb94b95bdb)
	return e
}

func (e *entropy) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		v := e.src.Uint64()
		for j := i; j < len(p) && j < i+8; j++ {
			p[j] = byte(v)
			v >>= 8
		}
	}
	return len(p), nil
}

// ClockModel returns the node's clock model.
func (n *Node) ClockModel() ClockModel { return n.clock.m }
