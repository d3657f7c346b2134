package sim

import (
	"fmt"
	"time"
)

// blockedResult is the Result of a run abandoned as blocked: copies of its
// history and trace as they were when the watchdog gave up, which the
// abandoned goroutines can no longer touch.
func (w *World) blockedResult(after time.Duration, stacks string) *Result {
	f := &Failure{Kind: FailureBlocked, At: w.now, Node: -1, Stack: stacks}
	where := "an action of the outside world (a function given to World.At or Config.Setup, a fault injector, a fence judge or a chooser)"
	if t := w.current; t != nil {
		f.Node = t.node.Index
		where = fmt.Sprintf("task %d of n%d", t.id, t.node.Index)
	}
	f.Message = fmt.Sprintf("%s made no progress for %v of real time: it is running code outside the simulator's primitives "+
		"(Clock.Sleep, Clock.Go, WithTimeout contexts, S3 calls, Lead), and only those let simulated time go on. "+
		"Typical causes: a bare channel operation or select (<-ctx.Done() instead of Clock.Sleep(ctx, d)), "+
		"time.Sleep or another wait on real time, a sync.Mutex or WaitGroup held by another task across a simulated call, "+
		"a go statement instead of Clock.Go, or a loop that never calls the simulator. "+
		"The run is abandoned; its goroutine stays blocked, and leaks if it never returns", where, after)

	h := w.history
	h.Terms = append([]Term(nil), h.Terms...)
	h.Writes = append([]FencedWrite(nil), h.Writes...)
	h.S3 = append([]S3Op(nil), h.S3...)
	h.Answers = append([]Answer(nil), h.Answers...)
	h.End = w.now
	for i := range h.Terms {
		if h.Terms[i].Open {
			h.Terms[i].End = w.now
		}
	}
	tr := &Trace{hash: w.trace.hash, keep: w.trace.keep}
	if w.trace.keep {
		tr.Events = append([]Event(nil), w.trace.Events...)
	}
	return &Result{Seed: w.cfg.Seed, History: &h, Trace: tr, Steps: w.steps, Failure: f}
}
