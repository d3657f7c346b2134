package sim

import "time"

// eventKind says what happens when an event comes due.
type eventKind uint8

const (
	// evWake resumes a blocked task.
	evWake eventKind = iota
	// evCall runs a function on the scheduler (an S3 request being applied,
	// a timer firing).
	evCall
	// evTimeout expires a context made by Clock.WithTimeout.
	evTimeout
	// evLand applies an S3 request at S3 (land).
	evLand
	// evFence has the fenced resource judge a write.
	evFence
	// evQuiet runs a function of the outside world that runs no protocol
	// code and cancels no context (the SQL row store applying a
	// statement): no poll of awaited contexts follows it.
	evQuiet
)

// event is an entry of the simulator's agenda. Events are ordered by due
// time and then by seq, the order in which they were scheduled; when several
// are due at the same instant the chooser decides which runs first.
type event struct {
	at   time.Duration
	seq  uint64
	kind eventKind
	// node is the node the event belongs to, or -1 for the outside world
	// (S3, the fenced resource). A node's events wait while it is paused.
	node int
	task *task
	gen  uint64 // the task's wait generation this wake belongs to
	fn   func()
	tc   *timeoutCtx
	// land is the S3 request of an evLand, fence the write of an evFence.
	land  *s3Landing
	fence fenceLanding
}

// agenda is a binary min-heap of events, written out rather than through
// container/heap to avoid interface conversions on the hot path. Each entry
// carries its event's due time and sequence number, so that ordering
// reads no event.
type agenda struct {
	h []agendaEntry
}

type agendaEntry struct {
	at  time.Duration
	seq uint64
	e   *event
}

func (a *agenda) len() int { return len(a.h) }

func less(x, y *agendaEntry) bool {
	if x.at != y.at {
		return x.at < y.at
	}
	return x.seq < y.seq
}

func (a *agenda) push(e *event) {
	a.h = append(a.h, agendaEntry{at: e.at, seq: e.seq, e: e})
	h := a.h
	i := len(h) - 1
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !less(&x, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
}

// peekAt returns the due time of the first event.
func (a *agenda) peekAt() time.Duration { return a.h[0].at }

func (a *agenda) pop() *event {
	h := a.h
	n := len(h) - 1
	top := h[0].e
	x := h[n]
	h[n] = agendaEntry{}
	h = h[:n]
	a.h = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return top
}
