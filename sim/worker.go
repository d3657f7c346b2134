package sim

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// Watched runs go on worker goroutines. A worker that finished a world waits
// for the next one, so that back-to-back runs reuse it, and with it the
// stack it has grown, instead of starting a goroutine each; at most
// GOMAXPROCS workers wait so. A worker whose world was abandoned is never
// reused.
var (
	idleWorkers = make(chan *World)
	idleCount   atomic.Int32
)

// startWorker hands w to an idle worker, or starts one.
func startWorker(w *World) {
	select {
	case idleWorkers <- w:
	default:
		go worker(w)
	}
}

// worker runs w, then the worlds it is handed, with one pool of
// coroutines for their tasks.
func worker(w *World) {
	id := goroutineID()
	pool := &workerPool{}
	defer pool.close()
	for {
		w.pool = pool
		if !w.work(id) {
			return
		}
		if idleCount.Add(1) > int32(runtime.GOMAXPROCS(0)) {
			idleCount.Add(-1)
			return
		}
		w = <-idleWorkers
		idleCount.Add(-1)
	}
}

// workerExit is how a watched run ended: blocked (sent by the watchdog), or,
// sent by the worker, normally, with a panic that is not the simulator's to
// report, or with runtime.Goexit (t.FailNow in a test's candidate).
type workerExit struct {
	blocked  bool
	panicked bool
	value    any
	stack    []byte
	goexit   bool
}

// work runs the world on worker goroutine id and reports how it ended,
// unless the run was abandoned, in which case it releases what it can and
// reports nothing. It returns whether the goroutine may run another world.
func (w *World) work(id uint64) (reusable bool) {
	w.live.worker.Store(id)
	w.live.beat()
	normal := false
	defer func() {
		var x workerExit
		if !normal {
			if r := recover(); r != nil {
				x = workerExit{panicked: true, value: r, stack: debug.Stack()}
			} else {
				x.goexit = true
			}
		}
		if !w.live.state.CompareAndSwap(runRunning, runFinished) {
			// Abandoned: Run has returned. (A Goexit goes on once this
			// returns.)
			w.release()
			w.live.ended.Store(true)
			return
		}
		w.live.ended.Store(true)
		w.exit <- x
		reusable = !x.goexit
	}()
	w.run()
	normal = true
	return false // set by the deferred function
}

// release unwinds the tasks of an abandoned world that are still parked in
// the simulator, so that their goroutines end. It records nothing; the
// tasks' deferred functions run, and any simulator primitive they call
// unwinds at once. Their coroutines end with them rather than going back
// to the pool.
func (w *World) release() {
	for _, n := range w.nodes {
		for _, t := range n.tasks {
			if !t.done {
				t.done = true
				if t.co != nil {
					func() {
						defer func() { _ = recover() }()
						t.co.stop()
					}()
				}
			}
		}
	}
}

// forwardedPanic is a panic of the worker goroutine that is not protocol
// code's (a scenario's action, a bug of the simulator), raised again on the
// goroutine that called Run, with the stack where it happened.
type forwardedPanic struct {
	value any
	stack []byte
}

func (p *forwardedPanic) Error() string {
	return fmt.Sprintf("%v\n\nraised on the simulator's goroutine:\n%s", p.value, p.stack)
}

// Unwrap returns the original panic value if it is an error.
func (p *forwardedPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}
