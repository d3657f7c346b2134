package sim

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// World is one simulated run: true time, the agenda of events, the nodes and
// their tasks, the simulated S3 and the fenced resource. It is driven by a
// single goroutine at a time (the worker that Run starts, and the tasks it
// resumes one after another) and is not safe for concurrent use.
type World struct {
	cfg    *Config
	now    time.Duration
	seq    uint64
	agenda agenda
	free   []*event
	ties   []*event
	// freeLandings are S3 requests done with, for reuse.
	freeLandings []*s3Landing
	chooser      Chooser
	// por is the chooser when it is an Explorer reducing by partial order:
	// the scheduler tells it which events are due and each step what it
	// touches (por.go).
	por *Explorer

	nodes []*Node
	// pausedUntil is each node's Node.pausedUntil, at hand for the loop.
	pausedUntil []time.Duration
	maxSteps    int // Config.MaxSteps
	current     *task
	pool        *workerPool // what the worker keeps from run to run
	phases      *Phases     // Config.Phases
	nextTaskID  int
	// waiters are the tasks waiting on contexts of protocol code, polled
	// after every step; simWaiters those waiting on the simulator's own
	// contexts, polled only when one of those is cancelled (simCancelled).
	waiters      []*task
	simWaiters   []*task
	regSeq       uint64
	simCancelled bool

	store   *Store
	s3      s3Side
	rows    *RowStore // nil until something uses it
	fence   fenceSide
	history History
	trace   *Trace
	// coverage holds the coverage points the run reached (Env.Coverage).
	coverage Coverage
	// reports are what the nodes reported through Env.Report.
	reports []Report

	started  bool
	healAt   time.Duration // when faults heal (SetHealAt), 0 if unknown
	steps    int
	failure  *Failure
	stopping bool

	// live is shared with the watchdog; how the run ended is sent on exit,
	// by the worker or by the watchdog. watchIndex is the run's place in
	// the watchdog's list.
	live       liveness
	exit       chan workerExit
	watchIndex int
}

// Now returns the current true time.
func (w *World) Now() time.Duration { return w.now }

// Node returns node i.
func (w *World) Node(i int) *Node { return w.nodes[i] }

// Nodes returns the number of nodes.
func (w *World) Nodes() int { return len(w.nodes) }

// Chooser returns the run's chooser, for faults and scenarios that make
// choices of their own while the run is under way.
func (w *World) Chooser() Chooser { return w.chooser }

// Store returns the simulated S3's object store, for inspection and for
// writes from outside the nodes (an operator deleting the lock object).
func (w *World) Store() *Store { return w.store }

func (w *World) newEvent() *event {
	if n := len(w.free); n > 0 {
		e := w.free[n-1]
		w.free = w.free[:n-1]
		return e
	}
	return &event{}
}

func (w *World) recycle(e *event) {
	*e = event{}
	w.free = append(w.free, e)
}

func (w *World) schedule(e *event) {
	w.seq++
	e.seq = w.seq
	w.agenda.push(e)
	if w.por != nil {
		w.por.por.scheduled(e.seq)
	}
}

// wakeAt schedules task t to resume at instant at (not before now) and
// starts a new wait generation, which makes any earlier wake stale.
func (w *World) wakeAt(t *task, at time.Duration) {
	if at < w.now {
		at = w.now
	}
	t.gen++
	e := w.newEvent()
	e.at, e.kind, e.node, e.task, e.gen = at, evWake, t.node.Index, t, t.gen
	w.schedule(e)
}

// At schedules f to run on the scheduler at true instant at. Node is the node
// the action belongs to (it waits while the node is paused), or -1 for
// actions of the outside world: S3, the fenced resource, an operator, a fault.
func (w *World) At(at time.Duration, node int, f func()) {
	if at < w.now {
		at = w.now
	}
	e := w.newEvent()
	e.at, e.kind, e.node, e.fn = at, evCall, node, f
	w.schedule(e)
}

// atQuiet is At for an action of the outside world that runs no protocol
// code and cancels no context: the SQL row store applying a statement.
func (w *World) atQuiet(at time.Duration, f func()) {
	if at < w.now {
		at = w.now
	}
	e := w.newEvent()
	e.at, e.kind, e.node, e.fn = at, evQuiet, -1, f
	w.schedule(e)
}

// atLand schedules the S3 request pc to land at instant at.
func (w *World) atLand(at time.Duration, pc *s3Landing) {
	if at < w.now {
		at = w.now
	}
	e := w.newEvent()
	e.at, e.kind, e.node, e.land = at, evLand, -1, pc
	w.schedule(e)
}

// stale reports whether the event no longer has anything to do.
func stale(e *event) bool {
	return e.kind == evWake && (e.task.done || e.gen != e.task.gen)
}

// nextEvent removes and returns the event to run next, or nil. Stale wakes
// are dropped; when several live events are due at the same instant the
// chooser picks one.
func (w *World) nextEvent() *event {
	for w.agenda.len() > 0 {
		e := w.agenda.pop()
		if stale(e) {
			if w.por != nil {
				w.por.dropped(e)
			}
			w.recycle(e)
			continue
		}
		if w.agenda.len() == 0 || w.agenda.peekAt() != e.at {
			return e
		}
		ties := append(w.ties[:0], e)
		for w.agenda.len() > 0 && w.agenda.peekAt() == e.at {
			x := w.agenda.pop()
			if stale(x) {
				if w.por != nil {
					w.por.dropped(x)
				}
				w.recycle(x)
				continue
			}
			ties = append(ties, x)
		}
		i := 0
		if len(ties) > 1 {
			if w.por != nil {
				i = w.por.pickEvent(ties)
			} else {
				i = int(w.chooser.Choose(ChooseSchedule, uint64(len(ties))))
			}
		}
		e = ties[i]
		for j, x := range ties {
			if j != i {
				w.agenda.push(x)
			}
		}
		w.ties = ties[:0]
		return e
	}
	return nil
}

// loop runs events until the agenda is empty, the end of the run is reached,
// a task fails or the step budget is spent.
func (w *World) loop(end time.Duration) {
	for w.failure == nil && !w.live.abandoned() {
		e := w.nextEvent()
		if e == nil {
			return
		}
		if e.at > end {
			w.agenda.push(e)
			return
		}
		if w.por != nil && !w.por.beginStep(e) {
			// Equivalent to an execution explored already: stop here.
			w.agenda.push(e)
			return
		}
		if e.node >= 0 {
			if until := w.pausedUntil[e.node]; until > e.at {
				e.at = until
				w.agenda.push(e)
				continue
			}
		}
		w.now = e.at
		w.steps++
		if w.maxSteps > 0 && w.steps > w.maxSteps {
			w.failure = &Failure{Kind: FailureStuck, At: w.now, Node: -1,
				Message: fmt.Sprintf("the run took more than %d steps by true time %v: livelock or a busy loop", w.cfg.MaxSteps, w.now)}
			return
		}
		switch e.kind {
		case evWake:
			t := e.task
			w.recycle(e)
			w.resume(t)
			w.pollCancellations(t)
			continue
		case evCall:
			fn := e.fn
			w.recycle(e)
			w.live.beat()
			fn()
			// An action of the outside world may cancel any context (a
			// node's crash or stop, the end of a lingering application).
			w.simCancelled = true
		case evLand:
			// S3 applying a request: it runs no protocol code and cannot
			// block (no beat: the next step's marks the progress). It
			// cancels no context either, unless a fault aimed at the
			// landing acts there (Landing): a node stopped, say, whose
			// tasks must notice at once, as after any action of the
			// outside world.
			pc := e.land
			hooked := pc.fate.Landing != nil
			w.recycle(e)
			pc.land()
			w.releaseLanding(pc)
			if !hooked {
				continue
			}
			w.simCancelled = true
		case evFence:
			f := e.fence
			w.recycle(e)
			w.live.beat()
			w.fenceApply(f)
			continue
		case evQuiet:
			fn := e.fn
			w.recycle(e)
			w.live.beat()
			fn()
			continue
		case evTimeout:
			tc := e.tc
			w.recycle(e)
			w.live.beat()
			if !tc.expire() {
				// The context had ended already: nothing was cancelled,
				// so there is nothing to poll.
				continue
			}
		}
		w.pollCancellations(nil)
	}
}

// mustCurrent returns the running task, or panics with a message naming the
// primitive that was called from outside any simulated goroutine. Every
// primitive a task can block in starts with it: in a run that was abandoned
// as blocked, it unwinds the task instead.
func (w *World) mustCurrent(what string) *task {
	if t := w.current; t != nil && !w.live.abandoned() {
		return t
	}
	return w.noCurrent(what)
}

// mustCurrentS3 is mustCurrent for the S3 operation op.
func (w *World) mustCurrentS3(op string) *task {
	if t := w.current; t != nil && !w.live.abandoned() {
		return t
	}
	return w.noCurrent("S3 " + op)
}

// noCurrent is mustCurrent's slow path, kept apart so that mustCurrent
// inlines.
func (w *World) noCurrent(what string) *task {
	w.live.check()
	panic("sim: " + what + " called outside a simulated goroutine (protocol code must run in tasks started by the simulator or by Clock.Go)")
}

// Bucket and Key name the lock object of the run.
func (w *World) Bucket() string { return w.cfg.Bucket }

// Key names the lock object of the run.
func (w *World) Key() string { return w.cfg.Key }

// S3Now returns S3's clock reading now, for writes made from outside the
// nodes.
func (w *World) S3Now() time.Time { return w.s3Now() }

// OutsideWrite is someone other than the nodes writing the lock object (an
// operator, a lifecycle rule, another tool): an unconditional PutObject of
// body, or a DeleteObject if body is nil, applied now. It is recorded in
// the trace and in the S3 history as a request of node -1.
func (w *World) OutsideWrite(body []byte) error {
	w.live.check()
	b, k := w.cfg.Bucket, w.cfg.Key
	op := S3Op{Node: -1, Op: "DeleteObject", Key: k, Call: w.now, Return: w.now, Applied: w.now}
	var err error
	var etag string
	if body == nil {
		_, err = w.store.DeleteObject(w.s3Now(), &s3.DeleteObjectInput{Bucket: &b, Key: &k})
	} else {
		op.Op, op.BodyETag = "PutObject", w.store.etag(body)
		var out *s3.PutObjectOutput
		out, err = w.store.PutObject(w.s3Now(), &s3.PutObjectInput{Bucket: &b, Key: &k}, body)
		if out != nil {
			etag = str(out.ETag)
		}
	}
	op.Status, op.Code = statusOf(err)
	if err == nil {
		op.ETag = etag
		if body != nil {
			op.Body, _ = w.store.bodyOf(b, k)
		}
	}
	a := Event{At: w.now, Node: -1, Local: w.now + w.s3.clock, Kind: EvS3Apply, Op: op.Op, Key: k, ETag: etag,
		Status: op.Status, Code: op.Code, Detail: "by someone other than the nodes"}
	w.trace.add(a)
	w.history.S3 = append(w.history.S3, op)
	w.live.beat()
	return err
}
