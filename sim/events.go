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
// container/heap to avoid interface conversions on the hot path.
type agenda struct {
	h []*event
}

func (a *agenda) len() int { return len(a.h) }

func less(x, y *event) bool {
	if x.at != y.at {
		return x.at < y.at
	}
	return x.seq < y.seq
}

func (a *agenda) push(e *event) {
	a.h = append(a.h, e)
	i := len(a.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(a.h[i], a.h[p]) {
			break
		}
		a.h[i], a.h[p] = a.h[p], a.h[i]
		i = p
	}
}

func (a *agenda) peek() *event { return a.h[0] }

func (a *agenda) pop() *event {
	n := len(a.h) - 1
	top := a.h[0]
	a.h[0] = a.h[n]
	a.h[n] = nil
	a.h = a.h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(a.h[r], a.h[l]) {
			m = r
		}
		if !less(a.h[m], a.h[i]) {
			break
		}
		a.h[i], a.h[m] = a.h[m], a.h[i]
		i = m
	}
	return top
}
