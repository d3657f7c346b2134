package sim

import (
	"iter"
	"runtime/debug"
)

// coro is a coroutine (iter.Pull) that runs tasks one after another. A
// task gets one when it first runs and gives it back when its function
// returns or unwinds; the coroutine then waits, idle, for the next task.
// Reusing coroutines saves starting a goroutine for every task and growing
// its stack again, and unwinding a task at the end of a run takes one
// panic instead of the two that ending a coroutine takes.
//
// Coroutines are owned by a workerPool and are only ever resumed from the
// goroutine that runs the pool's worlds (which also created them), so
// every goroutine of a run descends from its worker (see runStacks).
type coro struct {
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool

	// f is the function of the task being run.
	f func()
	// finished is set when f has returned or unwound; failure is then the
	// panic that escaped it, if any (killSignal for a task that was
	// killed, a *taskPanic for a panic of protocol code).
	finished bool
	failure  any
}

func newCoro() *coro {
	c := &coro{}
	c.next, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		c.yield = yield
		for {
			c.run()
			c.f, c.finished = nil, true
			if !yield(struct{}{}) {
				return // the pool is closing
			}
		}
	})
	return c
}

// run runs the task's function and records the panic that ends it, if
// any. A runtime.Goexit is not recovered: it ends the coroutine, and
// iter.Pull ends the goroutine that resumed it.
func (c *coro) run() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(killSignal); !ok {
				r = &taskPanic{value: r, stack: debug.Stack()}
			}
			c.failure = r
		}
	}()
	c.f()
}

// workerPool is what a worker goroutine keeps from one run to the next:
// idle coroutines for the tasks, and the buffers of the scheduler (free
// events, free S3 requests, the agenda's array, the lists of waiting tasks
// and of simultaneous events), so that back-to-back runs reuse them instead
// of allocating them again. A run takes the buffers when it starts and
// hands them back, emptied, when it ends; a run that does not end normally
// (abandoned as blocked, ended by a panic of the outside world) keeps
// them, and the pool starts afresh.
type workerPool struct {
	coros    []*coro
	events   []*event
	landings []*s3Landing
	agenda   []agendaEntry
	waiters  []*task
	sim      []*task
	ties     []*event
}

// get returns an idle coroutine set to run f, or a new one.
func (p *workerPool) get(f func()) *coro {
	c := popFree(&p.coros)
	if c == nil {
		c = newCoro()
	}
	c.f = f
	return c
}

// put gives back a coroutine whose task has finished.
func (p *workerPool) put(c *coro) {
	c.finished, c.failure = false, nil
	p.coros = append(p.coros, c)
}

// close ends every idle coroutine's goroutine.
func (p *workerPool) close() {
	for _, c := range p.coros {
		c.stop()
	}
	p.coros = nil
}

// adopt gives w the pool's buffers, as a run starts.
func (w *World) adopt() {
	p := w.pool
	w.free, p.events = p.events, nil
	w.freeLandings, p.landings = p.landings, nil
	w.agenda.h, p.agenda = p.agenda, nil
	w.waiters, p.waiters = p.waiters, nil
	w.simWaiters, p.sim = p.sim, nil
	w.ties, p.ties = p.ties, nil
}

// handBack returns w's buffers to the pool, emptied, once the run has
// ended: the events left on the agenda are recycled with the S3 requests
// they carry, whose callers are gone.
func (w *World) handBack() {
	for _, x := range w.agenda.h {
		e := x.e
		if e.kind == evLand {
			e.land.refs = 1
			w.releaseLanding(e.land)
		}
		w.recycle(e)
	}
	clear(w.agenda.h)
	clear(w.waiters)
	clear(w.simWaiters)
	clear(w.ties)
	p := w.pool
	p.events, w.free = w.free, nil
	p.landings, w.freeLandings = w.freeLandings, nil
	p.agenda, w.agenda.h = w.agenda.h[:0], nil
	p.waiters, w.waiters = w.waiters[:0], nil
	p.sim, w.simWaiters = w.simWaiters[:0], nil
	p.ties, w.ties = w.ties[:0], nil
}

// popFree takes the last item off a free list, clearing its slot so the
// list holds no reference to it, or returns nil if the list is empty.
func popFree[T any](list *[]*T) *T {
	n := len(*list)
	if n == 0 {
		return nil
	}
	x := (*list)[n-1]
	(*list)[n-1] = nil
	*list = (*list)[:n-1]
	return x
}
