package lockkit

import (
	"context"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Term is one leadership term.
type Term struct {
	// Ctx is the leader context: cancelled when the term ends.
	Ctx context.Context
	// From is the start of the term's last successful write: the next
	// renewal is due Node.Renew after it. Owned by the leading goroutine.
	From time.Duration

	cancel context.CancelFunc
	// appDone and watchdogDone are done once the application and the
	// watchdog returned (watchdogDone is nil without a watchdog).
	appDone, watchdogDone context.Context

	mu       sync.Mutex // never held across a blocking call
	deadline time.Duration
	ended    bool
}

// Begin starts a term on a successful write that started at start, unless
// its deadline, start plus Node.Term, has passed already (the answer came
// too late: nil). It runs the watchdog and app, on goroutines of their own
// (Clock.Go); app gets the leader context and must return once it is done.
func (n *Node) Begin(ctx context.Context, start time.Duration, app func(ctx context.Context)) *Term {
	deadline := start + n.Term
	if n.Now() >= deadline {
		return nil
	}
	lctx, cancel := context.WithCancel(ctx)
	t := &Term{Ctx: lctx, From: start, cancel: cancel, deadline: deadline}
	if !n.NoWatchdog {
		t.watchdogDone = n.Spawn(func() { n.watchdog(t) })
	}
	t.appDone = n.Spawn(func() { app(lctx) })
	n.lastApp = t.appDone
	return t
}

// Extend moves the deadline to start plus Node.Term, if the term is still
// alive, after a successful write that started at start and was sent at
// sent (the same instant, but for a lock that times its terms from the
// answer), and returns the wait until the next renewal. If the term is over
// it ends it, and ok is false.
func (n *Node) Extend(t *Term, start, sent time.Duration) (wait time.Duration, ok bool) {
	now := n.Now()
	t.mu.Lock()
	ok = !t.ended && now < t.deadline
	if ok {
		t.deadline = max(t.deadline, start+n.Term)
	}
	t.mu.Unlock()
	if !ok {
		t.Stop()
		return 0, false
	}
	t.From = max(t.From, start)
	return max(0, sent+n.Renew-now), true
}

// Settle decides what a renewal of t came to and returns the wait before
// the next: class is its write's answer (protocol.ClassifyError), extend
// extends the term by the write. Success extends the term; if the term
// ended while the write was in flight, nothing more; a plain failure
// (protocol.ClassOther: throttled, refused) is tried again a retry period
// later. Anything else (412, 409, 404, an unknown outcome) is settled by
// reread, a read of the lock: after a read error, or if it still holds
// version (the term's own), nothing sent has applied yet: back off; if
// nothing holds it, the term ends; otherwise lost extends the term if the
// lock holds a write of the term's whose answer was lost, and if not the
// term is over.
func (n *Node) Settle(t *Term, class protocol.ErrorClass, extend func() time.Duration, version string,
	reread func() (Object, error), lost func() (time.Duration, bool)) time.Duration {
	switch {
	case class == protocol.ClassNone:
		return extend()
	case t.Ctx.Err() != nil:
		return 0 // the term ended while the call was in flight
	case class == protocol.ClassOther:
		return n.Retry
	}
	o, err := reread()
	switch {
	case err != nil:
		return n.Backoff()
	case !o.Exists:
		t.Stop()
		return 0
	case o.ETag == version:
		return n.Backoff() // nothing we sent has applied yet
	}
	if wait, ok := lost(); ok {
		return wait // a write whose answer we lost did apply
	}
	t.Stop()
	return 0
}

// Stop ends the term now: the leader context is cancelled.
func (t *Term) Stop() {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.cancel()
}

// Leads reports whether t still leads: it has not ended and, unless the
// node has no watchdog, its deadline has not passed.
func (n *Node) Leads(t *Term) bool {
	now := n.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.ended && (n.NoWatchdog || now < t.deadline)
}

// watchdog ends the term when its deadline passes, even while a write is
// in flight. It re-reads the deadline after every sleep: renewals move it.
func (n *Node) watchdog(t *Term) {
	for {
		now := n.Now()
		t.mu.Lock()
		ended, deadline := t.ended, t.deadline
		t.mu.Unlock()
		if ended {
			return
		}
		if now >= deadline {
			t.Stop()
			return
		}
		if n.Clock.Sleep(t.Ctx, deadline-now) != nil {
			return
		}
	}
}

// Lead renews the term every Node.Renew, counted from the start of its
// last successful write, until the term ends: renew makes one renewal (by
// Extend, or Stop) and returns the wait before the next. Then it ends the
// term, waits for the application but not past the deadline, releases the
// lease if the candidate is stopping (ctx is done) and the application
// returned in time, and joins the watchdog. release makes one attempt, under
// a context that ends at the deadline, and reports whether there is nothing
// more to do; Lead makes up to three, none after the deadline.
func (n *Node) Lead(ctx context.Context, t *Term, renew func() time.Duration, release func(ctx context.Context) bool) {
	wait := max(0, t.From+n.Renew-n.Now())
	for n.Clock.Sleep(t.Ctx, wait) == nil {
		wait = renew()
	}
	t.mu.Lock()
	t.ended = true
	deadline := t.deadline
	t.mu.Unlock()
	t.cancel()
	if left := deadline - n.Now(); left > 0 {
		_ = n.Clock.Sleep(t.appDone, left)
	}
	if t.appDone.Err() != nil && ctx.Err() != nil {
		n.release(ctx, deadline, release)
	}
	if t.watchdogDone != nil {
		_ = n.Clock.Sleep(t.watchdogDone, n.Term)
	}
}

// release makes up to three attempts before deadline; ctx is the
// candidate's, already done, so the calls use a copy without its
// cancellation.
func (n *Node) release(ctx context.Context, deadline time.Duration, attempt func(ctx context.Context) bool) {
	base := context.WithoutCancel(ctx)
	for range 3 {
		now := n.Now()
		if now >= deadline {
			return
		}
		cctx, cancel := n.Clock.WithTimeout(base, deadline-now)
		done := attempt(cctx)
		cancel()
		if done {
			return
		}
	}
}
