package sim

import (
	"cmp"
	"context"
	"slices"
)

// Waiting on contexts.
//
// A task waiting in a primitive with a context that can be cancelled is
// woken at the instant the context ends: after every step, the scheduler
// polls the contexts that step can have cancelled. Protocol code cancels
// contexts the simulator cannot see (context.WithCancel's), so the tasks
// waiting on those (waiters) are polled after every step that ran a task or
// an action. The simulator's own contexts (a node's, and Clock.WithTimeout's
// derived from it) end only through the simulator's code, which notes it
// (simCancelled) when a task waits on the context or one derived from it;
// the tasks waiting on those (simWaiters) are polled only then. A task's
// place in the two lists is the order in which it began waiting, and a poll
// of both takes them in that order, as one list: which tasks wake, and in
// which order, is what polling every waiting task after every step would
// give.

// pollEverything makes every poll a poll of every waiting task: the
// definition the tests hold the two lists to.
var pollEverything = false

// watchKind reports whether ctx can be cancelled, and whether it is the
// simulator's own: a timeoutCtx whose ancestors are timeoutCtxs, up to a
// context that is never cancelled.
func watchKind(ctx context.Context) (cancellable, own bool) {
	c := ctx
	for {
		tc, ok := c.(*timeoutCtx)
		if !ok {
			break
		}
		c = tc.parent
	}
	if c == ctx {
		return ctx.Done() != nil, false
	}
	return true, c.Done() == nil
}

// waitingOn counts a task beginning (d = 1) or ending (d = -1) a wait on
// ctx, one of the simulator's own, in ctx and its ancestors.
func waitingOn(ctx context.Context, d int32) {
	for c, ok := ctx.(*timeoutCtx); ok; c, ok = c.parent.(*timeoutCtx) {
		c.waiting += d
	}
}

// watch puts t, about to wait on a context, in the list of its kind, at its
// place if it is in one already.
func (w *World) watch(t *task, own bool) {
	if !t.watching {
		w.regSeq++
		t.regSeq, t.watching, t.watchSim = w.regSeq, true, own
		if own {
			w.simWaiters = append(w.simWaiters, t)
		} else {
			w.waiters = append(w.waiters, t)
		}
		return
	}
	if t.watchSim == own {
		return
	}
	if own {
		w.waiters = removeTask(w.waiters, t)
		w.simWaiters = insertTask(w.simWaiters, t)
	} else {
		w.simWaiters = removeTask(w.simWaiters, t)
		w.waiters = insertTask(w.waiters, t)
	}
	t.watchSim = own
}

// removeTask removes t from ts.
func removeTask(ts []*task, t *task) []*task {
	if i := slices.Index(ts, t); i >= 0 {
		ts = slices.Delete(ts, i, i+1)
	}
	return ts
}

// insertTask inserts t in ts at its place by regSeq.
func insertTask(ts []*task, t *task) []*task {
	i, _ := slices.BinarySearchFunc(ts, t.regSeq, func(x *task, seq uint64) int {
		switch {
		case x.regSeq < seq:
			return -1
		case x.regSeq > seq:
			return 1
		}
		return 0
	})
	return slices.Insert(ts, i, t)
}

// pollCancellations wakes, at the current instant, every task whose awaited
// context was cancelled by the step that just ran (ran, if it ran a task).
// Contexts are cancelled only by code that runs inside the simulation (a
// task, an action or a timer), so polling after each step observes every
// cancellation at the instant it happened.
func (w *World) pollCancellations(ran *task) {
	if pollEverything {
		w.pollReference()
		return
	}
	if w.simCancelled {
		w.simCancelled = false
		w.pollAll()
		return
	}
	w.pollWaiters()
	if ran != nil && ran.watching && ran.watchSim && (ran.watch == nil || ran.done) {
		// The step's task waits no more (on the simulator's contexts): a
		// poll of every task would drop it now.
		ran.watching = false
		w.simWaiters = removeTask(w.simWaiters, ran)
	}
}

// pollWaiters polls the tasks waiting on protocol code's contexts.
func (w *World) pollWaiters() {
	ws := w.waiters
	i := 0
	for i < len(ws) {
		if t := ws[i]; t.watch == nil || t.done || ended(t.watch) {
			break
		}
		i++
	}
	if i == len(ws) {
		return // the usual case: nothing to wake, nothing to drop
	}
	j := i
	for ; i < len(ws); i++ {
		if t := ws[i]; w.pollOne(t) {
			ws[j] = t
			j++
		}
	}
	clear(ws[j:])
	w.waiters = ws[:j]
}

// pollAll polls every waiting task, in the order they began waiting.
func (w *World) pollAll() {
	a, b := w.waiters, w.simWaiters
	i, j, ka, kb := 0, 0, 0, 0
	for i < len(a) || j < len(b) {
		if j >= len(b) || (i < len(a) && a[i].regSeq < b[j].regSeq) {
			if t := a[i]; w.pollOne(t) {
				a[ka] = t
				ka++
			}
			i++
		} else {
			if t := b[j]; w.pollOne(t) {
				b[kb] = t
				kb++
			}
			j++
		}
	}
	clear(a[ka:])
	clear(b[kb:])
	w.waiters, w.simWaiters = a[:ka], b[:kb]
}

// pollReference is the definition pollCancellations is held to by the
// tests: every waiting task polled after every step, in the order they
// began waiting.
func (w *World) pollReference() {
	w.simCancelled = false
	all := append(slices.Clone(w.waiters), w.simWaiters...)
	slices.SortFunc(all, func(x, y *task) int { return cmp.Compare(x.regSeq, y.regSeq) })
	w.waiters, w.simWaiters = w.waiters[:0], w.simWaiters[:0]
	for _, t := range all {
		if w.pollOne(t) {
			if t.watchSim {
				w.simWaiters = append(w.simWaiters, t)
			} else {
				w.waiters = append(w.waiters, t)
			}
		}
	}
}

// pollOne polls waiting task t: it reports whether t stays in its list, and
// wakes it if its context ended.
func (w *World) pollOne(t *task) bool {
	if t.watch == nil || t.done {
		t.watching = false
		return false
	}
	if ended(t.watch) {
		t.watch = nil
		t.watching = false
		t.cancelled = true
		if w.por != nil {
			w.por.por.touchNode(t.node.Index)
		}
		w.wakeAt(t, w.now)
		return false
	}
	return true
}

// ended reports whether ctx is done, without an interface call for the
// simulator's own contexts.
func ended(ctx context.Context) bool {
	if tc, ok := ctx.(*timeoutCtx); ok {
		return tc.cancelErr() != nil
	}
	return ctx.Err() != nil
}
