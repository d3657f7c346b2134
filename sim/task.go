package sim

import (
	"context"
	"fmt"
	"time"
)

// task is one simulated goroutine: a coroutine (iter.Pull) that runs only
// when the scheduler resumes it and hands control back whenever it blocks in
// a simulated primitive (Sleep, an S3 call, a fenced write). Exactly one task
// runs at a time, so protocol code needs no synchronisation beyond what it
// would use anyway, and the order of execution is the scheduler's alone.
type task struct {
	w    *World
	node *Node
	id   int

	// f is the task's function; co the coroutine that runs it, from its
	// first step until it finishes.
	f  func()
	co *coro

	// gen counts the task's waits; a wake event carries the generation it
	// was scheduled for, so a wake that lost the race with a cancellation is
	// recognised as stale and dropped.
	gen uint64
	// watch is the context the task is waiting on, if it can be
	// cancelled; the scheduler polls its Err after the steps that can have
	// cancelled it (see pollCancellations).
	watch     context.Context
	watching  bool   // the task is in World.waiters or World.simWaiters
	watchSim  bool   // in World.simWaiters: watch is the simulator's own
	regSeq    uint64 // when it joined the lists, which keeps their order
	cancelled bool   // the last wait ended because watch was closed

	killed bool // the task must unwind at its next blocking point
	done   bool // the task's function returned or unwound
}

// killSignal is the panic value that unwinds a killed task.
type killSignal struct{}

// taskPanic carries a panic raised by protocol code out of its coroutine,
// with the stack at the point of the panic.
type taskPanic struct {
	value any
	stack []byte
}

func (p *taskPanic) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// spawn creates a task on node n that will run f, and schedules its first
// step at the current instant.
func (w *World) spawn(n *Node, f func()) *task {
	t := &task{w: w, node: n, id: w.nextTaskID, f: f}
	w.nextTaskID++
	n.tasks = append(n.tasks, t)
	w.wakeAt(t, w.now)
	return t
}

// block hands control back to the scheduler until the task is resumed. It is
// called on the task's own goroutine.
func (t *task) block() {
	if t.killed {
		panic(killSignal{})
	}
	if !t.co.yield(struct{}{}) || t.killed {
		panic(killSignal{})
	}
}

// wait blocks the task until the instant at, or until ctx is done. It
// returns ctx.Err() in the latter case. A negative at waits for ctx alone;
// with a context that is never done, the task blocks until the run ends.
func (t *task) wait(ctx context.Context, at time.Duration) error {
	w := t.w
	cancellable, own := false, false
	if ctx != nil {
		cancellable, own = watchKind(ctx)
	}
	if cancellable {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if at >= 0 {
		w.wakeAt(t, at)
	} else {
		// No timer: only the context (or nothing) ends this wait.
		t.gen++
	}
	if cancellable {
		t.watch = ctx
		w.watch(t, own)
		if own {
			waitingOn(ctx, 1)
		}
	}
	t.block()
	if own {
		waitingOn(ctx, -1)
	}
	t.watch = nil
	if t.cancelled {
		t.cancelled = false
		return ctx.Err()
	}
	return nil
}

// resume runs the task until it blocks, returns or panics. A panic other
// than the kill signal becomes the run's failure.
func (w *World) resume(t *task) {
	if t.done {
		return
	}
	if t.co == nil {
		t.co = w.pool.get(t.f)
		t.f = nil
		w.leave() // the task's function is the protocol's
	}
	w.current = t
	w.live.beat()
	co := t.co
	co.next()
	if w.live.abandoned() {
		// Run has returned: touch nothing.
		return
	}
	w.enter() // if the task's function returned
	w.current = nil
	if co.finished {
		w.finished(t)
	}
}

// finished is the end of task t, whose function returned or unwound: its
// coroutine goes back to the pool, and a panic that ended it other than
// the kill signal becomes the run's failure.
func (w *World) finished(t *task) {
	co := t.co
	t.co, t.done = nil, true
	r := co.failure
	w.pool.put(co)
	if r != nil {
		w.taskFailed(t, r)
	}
}

// kill unwinds the task: its blocking primitive panics with killSignal,
// running the deferred functions of the protocol code on the way out. A
// task that never ran just ends.
func (w *World) kill(t *task) {
	if t.done {
		return
	}
	w.live.check()
	if t.co == nil {
		t.done, t.f = true, nil
		return
	}
	t.killed = true
	w.current = t
	w.live.beat()
	co := t.co
	co.next()
	if w.live.abandoned() {
		return
	}
	w.enter()
	w.current = nil
	w.finished(t)
}

// taskFailed records a panic that escaped a task.
func (w *World) taskFailed(t *task, r any) {
	if _, ok := r.(killSignal); ok {
		return
	}
	if w.failure != nil {
		return
	}
	p, ok := r.(*taskPanic)
	if !ok {
		p = &taskPanic{value: r}
	}
	w.failure = &Failure{Kind: FailurePanic, At: w.now, Node: t.node.Index, Message: fmt.Sprint(p.value), Stack: string(p.stack)}
	w.trace.add(Event{At: w.now, Node: t.node.Index, Local: t.node.localWall(w.now), Kind: EvPanic, Detail: fmt.Sprint(p.value)})
}
