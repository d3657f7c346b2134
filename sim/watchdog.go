package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultBlockedAfter is the real time without progress after which a run is
// declared blocked when Config.BlockedAfter is 0.
const DefaultBlockedAfter = 3 * time.Second

// watchTick is how often the watchdog looks at the runs under way.
const watchTick = 100 * time.Millisecond

// The states of a run, as its worker goroutine and the watchdog see it.
const (
	runRunning uint32 = iota
	runFinished
	runAbandoned
)

// liveness is the only state of a world that two goroutines share: the
// worker goroutine that runs the world, and the watchdog that watches it.
//
// The worker bumps beats at every step and every time it hands control to
// code outside the simulator after recording something. Besides marking
// progress, the atomic write publishes everything the worker and its tasks
// wrote before it, so that the world may be read once the watchdog sees no
// progress. Once the watchdog abandons the run, the worker and its tasks
// must write nothing that is read then: every simulator primitive checks the
// state first and unwinds instead. Exactly one of the worker (finished) and
// the watchdog (abandoned) moves the state out of running.
type liveness struct {
	beats atomic.Uint64
	state atomic.Uint32
	// worker is the id of the goroutine that runs the world; ended is set
	// when it is done with the world.
	worker atomic.Uint64
	ended  atomic.Bool
}

// beat marks progress and publishes the writes made before it.
func (l *liveness) beat() { l.beats.Add(1) }

// abandoned reports whether the watchdog gave up on the run.
func (l *liveness) abandoned() bool { return l.state.Load() == runAbandoned }

// check unwinds the calling goroutine if the run was abandoned.
func (l *liveness) check() {
	if l.abandoned() {
		panic(killSignal{})
	}
}

// blockedAfter returns the watchdog's threshold, or a negative duration if
// it is disabled.
func (c *Config) blockedAfter() time.Duration {
	if c.BlockedAfter == 0 {
		return DefaultBlockedAfter
	}
	return c.BlockedAfter
}

// runWatched runs the world on a worker goroutine and waits for it, while
// the watchdog checks that it makes progress. If it makes none for after of
// real time, the run is abandoned and reported as blocked. The watchdog is
// the only part of the simulator that reads the real clock, and nothing it
// reads flows into the run: a run that completes is the same with or
// without it.
func (w *World) runWatched(after time.Duration) *Result {
	exit := make(chan workerExit, 1)
	w.exit = exit
	watchdog.add(w, after)
	startWorker(w)
	x := <-exit
	if x.blocked {
		return w.blockedResult(after, runStacks(w.live.worker.Load()))
	}
	watchdog.remove(w)
	switch {
	case x.goexit:
		runtime.Goexit()
	case x.panicked:
		panic(&forwardedPanic{value: x.value, stack: x.stack})
	}
	return w.result()
}

// watchdog watches every run under way in the process, from one goroutine
// that ticks while there is any.
var watchdog watcher

type watcher struct {
	mu      sync.Mutex
	runs    []*watched
	ticking bool
}

// watched is one run under watch.
type watched struct {
	w     *World
	after time.Duration
	last  uint64    // beats at the last change
	since time.Time // when beats last changed; zero before the first tick
}

func (d *watcher) add(w *World, after time.Duration) {
	d.mu.Lock()
	w.watchIndex = len(d.runs)
	d.runs = append(d.runs, &watched{w: w, after: after})
	if !d.ticking {
		d.ticking = true
		go d.tick()
	}
	d.mu.Unlock()
}

func (d *watcher) remove(w *World) {
	d.mu.Lock()
	d.removeLocked(w)
	d.mu.Unlock()
}

func (d *watcher) removeLocked(w *World) {
	i, last := w.watchIndex, len(d.runs)-1
	d.runs[i] = d.runs[last]
	d.runs[i].w.watchIndex = i
	d.runs[last] = nil
	d.runs = d.runs[:last]
}

// tick looks at every run each watchTick of real time, abandons those that
// made no progress for their threshold, and ends when there is nothing to
// watch.
func (d *watcher) tick() {
	t := time.NewTicker(watchTick)
	defer t.Stop()
	for now := range t.C {
		d.mu.Lock()
		if len(d.runs) == 0 {
			d.ticking = false
			d.mu.Unlock()
			return
		}
		for i := 0; i < len(d.runs); i++ {
			r := d.runs[i]
			if b := r.w.live.beats.Load(); b != r.last || r.since.IsZero() {
				r.last, r.since = b, now
				continue
			}
			if now.Sub(r.since) < r.after || !r.w.live.state.CompareAndSwap(runRunning, runAbandoned) {
				continue
			}
			d.removeLocked(r.w)
			i--
			r.w.exit <- workerExit{blocked: true}
		}
		d.mu.Unlock()
	}
}
