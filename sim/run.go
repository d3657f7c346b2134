package sim

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Result is what a run leaves behind.
type Result struct {
	// Seed is the run's seed.
	Seed uint64
	// History is what the checkers judge.
	History *History
	// Trace holds the events (if Config.KeepTrace) and always the hash.
	Trace *Trace
	// Steps is the number of scheduler steps taken.
	Steps int
	// Coverage holds the coverage points the run reached, of the
	// Config.Coverage its protocol declares.
	Coverage Coverage
	// Reports are the rules the nodes' own code reported broken
	// (Env.Report), in the order reported; nil if none.
	Reports []Report
	// Failure is set if the run stopped abnormally (a panic in protocol
	// code, the step budget exceeded, code blocked outside the simulator);
	// the history is then incomplete.
	Failure *Failure
}

// Hash returns the hash of the run's trace.
func (r *Result) Hash() uint64 { return r.Trace.Hash() }

// Run runs one simulation to its end and returns what happened. The only
// error is an invalid Config; everything that goes wrong inside the run is
// reported in the Result.
//
// The run goes on a goroutine of its own, watched from the caller's: if it
// makes no progress for Config.BlockedAfter of real time, Run returns a
// FailureBlocked (see Config.BlockedAfter). A panic that is not protocol
// code's (a scenario's action, for instance) is raised again on the caller's
// goroutine, and a runtime.Goexit (t.FailNow in a candidate) ends it.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p := cfg.Phases; p != nil {
		begun := p.Since()
		p.start()
		defer p.stop(begun)
	}
	w := newWorld(&cfg)
	if after := cfg.blockedAfter(); after > 0 {
		return w.runWatched(after), nil
	}
	w.pool = &workerPool{}
	defer w.pool.close()
	w.run()
	return w.result(), nil
}

// run runs the world from its setup to its end.
func (w *World) run() {
	cfg := w.cfg
	end := cfg.Duration
	w.adopt()
	if cfg.Setup != nil {
		cfg.Setup(w)
	}
	w.started = true
	for _, n := range w.nodes {
		n.start("") // its DefaultIdentity
	}
	w.loop(end)
	if w.live.abandoned() {
		return
	}
	if w.failure != nil {
		end = w.now
	}
	w.finish(end)
	if !w.live.abandoned() {
		w.handBack()
	}
}

// result is the Result of a run that ended.
func (w *World) result() *Result {
	return &Result{Seed: w.cfg.Seed, History: &w.history, Trace: w.trace, Steps: w.steps, Coverage: w.coverage, Reports: w.reports, Failure: w.failure}
}

func newWorld(cfg *Config) *World {
	w := &World{cfg: cfg, chooser: cfg.Chooser, trace: newTrace(cfg.KeepTrace), phases: cfg.Phases}
	w.trace.live = &w.live
	if w.chooser == nil {
		w.chooser = NewRandomChooser(cfg.Seed)
	}
	if ex, ok := w.chooser.(*Explorer); ok && ex.por != nil {
		w.por = ex
	}
	w.store = NewStore(cfg.Dialect)
	w.store.opaqueETags = cfg.OpaqueETags
	w.store.CreateBucket(cfg.Bucket)
	w.s3 = s3Side{request: cfg.S3Request, response: cfg.S3Response, clock: cfg.S3ClockOffset}
	var judge Fence
	if cfg.NewFence != nil {
		judge = cfg.NewFence()
	} else {
		judge = new(protocol.Fence)
	}
	w.fence = fenceSide{request: cfg.FenceRequest, response: cfg.FenceResponse, judge: judge}
	w.reuseHistory()
	w.coverage = NewCoverage(cfg.Coverage)
	w.history.Nodes = cfg.Nodes
	w.nodes = make([]*Node, cfg.Nodes)
	w.pausedUntil = make([]time.Duration, cfg.Nodes)
	w.maxSteps = cfg.MaxSteps
	for i := range w.nodes {
		var m ClockModel
		if cfg.Clocks != nil {
			m = cfg.Clocks[i]
		}
		// Each node's monotonic clock starts at an unrelated reading, as
		// uptimes of real machines do.
		base := time.Duration(w.chooser.Choose(ChooseSetup, uint64(1000*time.Hour)))
		n := &Node{Index: i, w: w, clock: newClockState(m, base)}
		n.clk = nodeClock{w: w, n: n}
		n.s3 = nodeS3{w: w, n: n}
		w.nodes[i] = n
	}
	return w
}

// finish ends the run at true time end: open terms stay open, and every
// simulated goroutine is unwound so that nothing outlives the run.
func (w *World) finish(end time.Duration) {
	w.stopping = true
	if w.now < end {
		w.now = end
	}
	w.history.End = end
	w.history.dropEmpty()
	for i := range w.history.Terms {
		if term := &w.history.Terms[i]; term.Open {
			term.End = w.actedUntil(w.nodes[term.Node], i, end)
		}
	}
	for _, n := range w.nodes {
		tasks := n.tasks
		n.tasks = nil
		for _, t := range tasks {
			w.kill(t)
		}
	}
}

// candidateReturned notes a candidate that gave up with an error before it
// was asked to stop.
func (w *World) candidateReturned(n *Node, err error) {
	e := n.event(EvStop)
	e.Detail = fmt.Sprintf("candidate returned: %v", err)
	w.trace.add(e)
}
