package relaxedlog

import (
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Deadline follows one elector's local deadline as its metrics show it.
// The elector ends a term TermLength after the send of its last
// successful write (protocol's "Time"), and Metrics.Request reports each
// write's answer with its latency from just before the send: so the send
// of every acquisition or renewal answered OK, plus TermLength, is a
// lower bound of the current term's deadline on the process's monotonic
// clock. (A write whose answer was lost but that a later read showed
// applied moves the elector's deadline too, not this bound: it stays
// below.) The elector does not hand its deadline to the application; this
// is how an application learns it from the public API.
type Deadline struct {
	clock protocol.Clock
	term  time.Duration

	mu sync.Mutex
	at time.Duration // 0: no write of the term answered OK yet
}

// NewDeadline follows the deadline of an elector with configuration cfg.
func NewDeadline(cfg protocol.Config) *Deadline {
	return &Deadline{clock: cfg.Clock, term: cfg.Assumptions().Term}
}

// Hook adds the deadline's hooks to m (chaining the ones m has).
func (d *Deadline) Hook(m *protocol.Metrics) {
	request, ended := m.Request, m.TermEnded
	m.Request = func(r protocol.Request) {
		d.request(r)
		if request != nil {
			request(r)
		}
	}
	m.TermEnded = func(e protocol.TermEnd) {
		d.mu.Lock()
		d.at = 0
		d.mu.Unlock()
		if ended != nil {
			ended(e)
		}
	}
}

func (d *Deadline) request(r protocol.Request) {
	if r.Op != "PutObject" || r.Answer != protocol.CauseOK || (r.Purpose != protocol.PurposeAcquire && r.Purpose != protocol.PurposeRenew) {
		return
	}
	at := d.clock.Monotonic() - r.Latency + d.term
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = max(d.at, at)
}

// Room is how long, at monotonic reading now, the current term has at
// least before its deadline, less margin; 0 if that is not known to be
// positive. A term the elector still reports current (Elector.Lease) at
// now has its deadline after now even when Room is 0.
func (d *Deadline) Room(now time.Duration) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return max(0, d.at-now-roomMargin)
}

// roomMargin keeps a writer's stamps and watermarks this much below the
// deadline bound.
const roomMargin = time.Millisecond

// hold is one lease a process holds: its domain's elector, the term's
// lease, the deadline bound, and the highest watermark this process set
// under the term.
type hold struct {
	domain   int
	name     string
	elector  *protocol.Elector
	lease    protocol.Lease
	deadline *Deadline
	set      time.Time // starts at lease.Previous.At
}

// current reports whether h's term is still the elector's current one.
func (h *hold) current() bool {
	l, ok := h.elector.Lease()
	return ok && l.Token == h.lease.Token
}
