package judging

import (
	"sync"

	"github.com/s3lease/s3lease/sim"
)

// The judges of one run (the harness's own, a protocol's AuditWrites, Pace
// and Answers for each node, a scenario's audit and watermarks) read one
// history, and several derive the same index of it: the records its bodies
// hold, the writes of the lock object. Shared lets them build each such
// index once per run rather than once per judge or per node.

// judgements are the histories the harness is judging, each with what
// Shared built of it so far.
var judgements sync.Map // *sim.History -> *judgement

// judgement is what Shared built of one history.
type judgement struct {
	mu   sync.Mutex
	made map[any]any
}

// Judging makes Shared keep what it builds of h until done is called, at
// the end of h's judgement: h must not change in between.
func Judging(h *sim.History) (done func()) {
	if h == nil {
		return func() {}
	}
	judgements.Store(h, &judgement{made: map[any]any{}})
	return func() { judgements.Delete(h) }
}

// Shared returns build(h), built at most once while the harness judges h
// (from the run's end to its verdict) and handed to every judge that asks
// for the same key, which names what build derives (a value of a type of
// the caller's own, as a context key is). build must derive its value from
// h alone, and no judge may change the value: one run's judges share it.
// Outside a judgement of h (a judge called on a history of its own) it is
// build(h).
func Shared[T any](h *sim.History, key any, build func(*sim.History) T) T {
	v, ok := judgements.Load(h)
	if !ok {
		return build(h)
	}
	j := v.(*judgement)
	j.mu.Lock()
	made, ok := j.made[key]
	j.mu.Unlock()
	if ok {
		return made.(T)
	}
	t := build(h) // unlocked: build may ask Shared for another key
	j.mu.Lock()
	defer j.mu.Unlock()
	if made, ok := j.made[key]; ok {
		return made.(T)
	}
	j.made[key] = t
	return t
}
