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
// Coroutines are owned by a coroPool and are only ever resumed from the
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

// coroPool holds the idle coroutines of one worker goroutine.
type coroPool struct {
	idle []*coro
}

// get returns an idle coroutine set to run f, or a new one.
func (p *coroPool) get(f func()) *coro {
	var c *coro
	if n := len(p.idle); n > 0 {
		c = p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
	} else {
		c = newCoro()
	}
	c.f = f
	return c
}

// put gives back a coroutine whose task has finished.
func (p *coroPool) put(c *coro) {
	c.finished, c.failure = false, nil
	p.idle = append(p.idle, c)
}

// close ends every idle coroutine's goroutine.
func (p *coroPool) close() {
	for _, c := range p.idle {
		c.stop()
	}
	p.idle = nil
}
