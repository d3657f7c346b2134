package sim

import (
	"context"
	"sort"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Epoch is the wall-clock instant at which every run's true time starts.
// It is fixed so that traces do not depend on when a run happened.
var Epoch = time.Date(2030, time.January, 1, 0, 0, 0, 0, time.UTC)

// ClockModel describes how one node's clocks relate to true time.
//
// The monotonic clock runs at rate 1+DriftPPM/1e6 relative to true time and
// stands still during every stall. The wall clock is the monotonic clock's
// progress plus Offset plus every jump that has happened so far. A positive
// DriftPPM is a clock that runs fast.
type ClockModel struct {
	// Offset is how far the node's wall clock is ahead of true time at the
	// start of the run (negative: behind).
	Offset time.Duration `json:"offset"`
	// DriftPPM is the rate error of both clocks in parts per million.
	DriftPPM int64 `json:"driftPPM"`
	// DriftUntil, if positive, is the true time at which the drift ends
	// (the clock is disciplined again): from then on both clocks run at the
	// rate of true time. 0 means the drift lasts the whole run.
	DriftUntil time.Duration `json:"driftUntil,omitempty"`
	// Jumps are steps of the wall clock (an NTP step or a manual change):
	// at true time At the wall clock moves by By. The monotonic clock is not
	// affected.
	Jumps []ClockJump `json:"jumps,omitempty"`
	// Stalls are intervals of true time during which the monotonic clock
	// does not advance (a suspended VM). The node's tasks cannot run during
	// a stall either; the fault layer pauses the node for the same interval.
	Stalls []ClockStall `json:"stalls,omitempty"`
}

// ClockJump is a step of a node's wall clock.
type ClockJump struct {
	At time.Duration `json:"at"`
	By time.Duration `json:"by"`
}

// ClockStall is an interval [At, At+For) of true time during which a node's
// monotonic clock stands still.
type ClockStall struct {
	At  time.Duration `json:"at"`
	For time.Duration `json:"for"`
}

// clockState is a ClockModel prepared for fast evaluation.
type clockState struct {
	m ClockModel
	// base is the monotonic reading at true time zero: nodes' monotonic
	// clocks have unrelated origins, as on real machines.
	base time.Duration
	// driftRun is how much running time the drift lasts (the running time
	// at DriftUntil), or -1 for the whole run.
	driftRun time.Duration
}

func newClockState(m ClockModel, base time.Duration) *clockState {
	m.Jumps = append([]ClockJump(nil), m.Jumps...)
	m.Stalls = append([]ClockStall(nil), m.Stalls...)
	sort.SliceStable(m.Jumps, func(i, j int) bool { return m.Jumps[i].At < m.Jumps[j].At })
	sort.SliceStable(m.Stalls, func(i, j int) bool { return m.Stalls[i].At < m.Stalls[j].At })
	m.Stalls = mergeStalls(m.Stalls)
	c := &clockState{m: m, base: base, driftRun: -1}
	if m.DriftUntil > 0 {
		c.driftRun = c.running(m.DriftUntil)
	}
	return c
}

// scaled is the local time a clock has advanced after r of running time:
// at its drifting rate while the drift lasts, at true rate after.
func (c *clockState) scaled(r time.Duration) time.Duration {
	if c.driftRun < 0 || r <= c.driftRun {
		return ppmScale(r, c.m.DriftPPM)
	}
	return ppmScale(c.driftRun, c.m.DriftPPM) + (r - c.driftRun)
}

// unscaled is the least running time after which the clock has advanced at
// least d of local time.
func (c *clockState) unscaled(d time.Duration) time.Duration {
	if c.driftRun < 0 {
		return ppmUnscale(d, c.m.DriftPPM)
	}
	if top := ppmScale(c.driftRun, c.m.DriftPPM); d > top {
		return c.driftRun + (d - top)
	}
	return ppmUnscale(d, c.m.DriftPPM)
}

// mergeStalls joins overlapping stalls of a sorted list, so that the
// running time of the clock is true time minus the total stalled time.
func mergeStalls(in []ClockStall) []ClockStall {
	out := in[:0]
	for _, s := range in {
		if s.For <= 0 {
			continue
		}
		if n := len(out); n > 0 && s.At <= out[n-1].At+out[n-1].For {
			if end := s.At + s.For; end > out[n-1].At+out[n-1].For {
				out[n-1].For = end - out[n-1].At
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// running returns how much true time up to t the monotonic clock was not
// stalled.
func (c *clockState) running(t time.Duration) time.Duration {
	r := t
	for _, s := range c.m.Stalls {
		if s.At >= t {
			break
		}
		end := s.At + s.For
		if end > t {
			end = t
		}
		r -= end - s.At
	}
	return r
}

// mono returns the monotonic reading at true time t.
func (c *clockState) mono(t time.Duration) time.Duration {
	return c.base + c.scaled(c.running(t))
}

// wall returns the wall-clock reading at true time t, as an offset from Epoch.
func (c *clockState) wall(t time.Duration) time.Duration {
	w := c.m.Offset + c.scaled(c.running(t))
	for _, j := range c.m.Jumps {
		if j.At > t {
			break
		}
		w += j.By
	}
	return w
}

// after returns the earliest true instant at which the monotonic clock reads
// at least d more than it does at true time t.
func (c *clockState) after(t, d time.Duration) time.Duration {
	if d <= 0 {
		return t
	}
	// The clock reads base + floor(running * rate); find the least running
	// time whose reading reaches the target, then the true instant at which
	// that much running time has accumulated.
	target := c.scaled(c.running(t)) + d
	need := c.unscaled(target)
	stalled := time.Duration(0)
	for _, s := range c.m.Stalls {
		if s.At-stalled >= need {
			break
		}
		stalled += s.For
	}
	return need + stalled
}

// nodeClock is a node's protocol.Clock.
type nodeClock struct {
	w *World
	n *Node
}

func (c *nodeClock) Now() time.Time { return Epoch.Add(c.n.clock.wall(c.w.now)) }

func (c *nodeClock) Monotonic() time.Duration { return c.n.clock.mono(c.w.now) }

func (c *nodeClock) Sleep(ctx context.Context, d time.Duration) error {
	w := c.w
	w.enter()
	t := w.mustCurrent("Clock.Sleep")
	err := t.wait(ctx, c.n.clock.after(w.now, d))
	w.leave()
	return err
}

// NewTicker is protocol.TickerOn the node's clock: each tick is a wait on
// the node's monotonic clock (Sleep), made when the node asks for it
// (Ticker.Next), so it comes late if the node is paused, drifts with the
// node's clock, and draws no choice until then.
func (c *nodeClock) NewTicker(d time.Duration) *protocol.Ticker { return protocol.TickerOn(c, d) }

func (c *nodeClock) Go(f func()) {
	w := c.w
	w.enter()
	w.mustCurrent("Clock.Go")
	w.spawn(c.n, f)
	w.leave()
}

// WithTimeout returns a context cancelled, with context.DeadlineExceeded as
// its error, when d of the node's monotonic time has passed. The timer is an
// event of the node, so it fires late if the node is paused, as a real
// process's timers do.
func (c *nodeClock) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	w := c.w
	w.enter()
	defer w.leave()
	tc := &timeoutCtx{w: w, parent: ctx, deadline: c.n.clock.wall(w.now) + d, timed: true}
	e := w.newEvent()
	e.at, e.kind, e.node, e.tc = c.n.clock.after(w.now, d), evTimeout, c.n.Index, tc
	if e.at < w.now {
		e.at = w.now
	}
	w.schedule(e)
	return tc, tc.cancel
}

// timeoutCtx is the context of Clock.WithTimeout: a context.WithCancel of
// its parent whose error becomes DeadlineExceeded when the simulator's timer
// cancels it.
//
// It is cheaper than a context.WithCancel as long as no one asks for its
// Done channel: its error is its own cancellation's or, read when asked,
// its parent's, and the scheduler polls Err rather than Done. The first
// call of Done (a context derived from it, a select) or of Value with a
// key of context's own kind (context.Cause) makes the standard cancel
// context it then stands for, so that derived contexts attach to it and
// are cancelled synchronously, without goroutines. (They report
// context.Canceled rather than DeadlineExceeded; only the timeout context
// itself reports the deadline.)
type timeoutCtx struct {
	w      *World
	parent context.Context
	// deadline is the node's wall-clock reading at which the context
	// expires, as an offset from Epoch.
	deadline time.Duration
	// err is the context's error once it is cancelled, by cancel or by its
	// parent (noticed when Err is called), unless std holds it.
	err     error
	expired bool
	// timed is false for a node's context, which has no deadline.
	timed bool
	// waiting counts the tasks waiting on the context or on one derived
	// from it (see waitingOn).
	waiting int32
	// std is the standard context made by the first Done, nil before.
	std *stdCancel
}

// newNodeCtx returns the context a node's incarnation runs its candidate
// with: a context.WithCancel(context.Background()) of the simulator's own,
// which the scheduler need not poll after every step.
func newNodeCtx(w *World) *timeoutCtx {
	return &timeoutCtx{w: w, parent: context.Background()}
}

// stdCancel is a standard cancel context and its CancelFunc.
type stdCancel struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// expire is the timer firing: unless the context ended already, it ends now
// with DeadlineExceeded. It reports whether it did.
func (c *timeoutCtx) expire() bool {
	if c.Err() != nil {
		return false
	}
	c.expired = true
	c.cancel()
	return true
}

// cancel is the context's CancelFunc.
func (c *timeoutCtx) cancel() {
	if c.waiting > 0 {
		c.w.simCancelled = true // a task waits on it, or on one derived from it
	}
	if c.std != nil {
		c.std.cancel()
		return
	}
	if c.err == nil {
		// The first cancellation sets the error: the parent's, if it was
		// cancelled first.
		if c.err = parentErr(c.parent); c.err == nil {
			c.err = context.Canceled
		}
	}
}

// materialize makes the standard cancel context c stands for, cancelled
// already if c is.
func (c *timeoutCtx) materialize() {
	if c.std != nil {
		return
	}
	ctx, cancel := context.WithCancel(c.parent)
	c.std = &stdCancel{ctx, cancel}
	if c.err != nil {
		cancel()
	}
}

// parentErr is the error a context inherits from its parent p when p is
// cancelled: p's error, or, for a timeoutCtx, the error of the cancel
// context it stands for (context.Canceled once it expired), as a standard
// child of that cancel context sees it.
func parentErr(p context.Context) error {
	if tp, ok := p.(*timeoutCtx); ok {
		return tp.cancelErr()
	}
	return p.Err()
}

// cancelErr is the error of the cancel context c stands for: Err but for
// the deadline.
func (c *timeoutCtx) cancelErr() error {
	if c.std != nil {
		return c.std.ctx.Err()
	}
	if c.err == nil {
		c.err = parentErr(c.parent)
	}
	return c.err
}

func (c *timeoutCtx) Deadline() (time.Time, bool) {
	if !c.timed {
		return time.Time{}, false
	}
	return Epoch.Add(c.deadline), true
}

func (c *timeoutCtx) Done() <-chan struct{} {
	c.materialize()
	return c.std.ctx.Done()
}

func (c *timeoutCtx) Err() error {
	err := c.cancelErr()
	if err != nil && c.expired {
		return context.DeadlineExceeded
	}
	return err
}

func (c *timeoutCtx) Value(key any) any {
	if _, ok := key.(*int); ok {
		// The key the context package finds a cancel context by
		// (context.Cause) is an *int: answer it as the cancel context
		// would.
		c.materialize()
	}
	if c.std != nil {
		return c.std.ctx.Value(key)
	}
	return c.parent.Value(key)
}

func (c *timeoutCtx) String() string {
	if !c.timed {
		return "sim.NodeContext"
	}
	return "sim.WithTimeout"
}

// MonoClock is a node's monotonic clock as a ClockModel makes it, less its
// origin (a node's readings start anywhere): what a checker needs to
// measure on the node's clock what the node measured.
type MonoClock struct{ c *clockState }

// Mono returns the monotonic clock the model makes.
func (m ClockModel) Mono() MonoClock { return MonoClock{newClockState(m, 0)} }

// Reading is the clock's reading at true time t, less its origin: the
// difference of two readings is what the node measures between them.
func (c MonoClock) Reading(t time.Duration) time.Duration { return c.c.mono(t) }

// When is the earliest true instant at which the clock reads at least r
// (Reading), 0 for a reading at or before the start.
func (c MonoClock) When(r time.Duration) time.Duration { return c.c.after(0, r) }
