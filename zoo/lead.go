package zoo

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// term is one leadership term.
type term struct {
	token  uint64
	ctx    context.Context // the leader context: cancelled when the term ends
	cancel context.CancelFunc
	// leadDone and watchdogDone are done once the application and the
	// watchdog returned (watchdogDone is nil without a watchdog).
	leadDone, watchdogDone context.Context

	// Guarded by node.mu.
	deadline time.Duration // node.now() at which the term ends
	ended    bool

	// Owned by the goroutine in run.
	etag string        // ETag of the term's current record
	rec  record        // the term's current record
	from time.Duration // start of the last successful write: the next renewal is due a retry period later
}

// start is the instant from which a successful write's term is measured:
// the reading taken just before the request was sent. The write was applied
// after it, so every follower that saw the write saw it later.
func (n *node) start(w sentWrite) time.Duration {
	if n.m.deadlineFromAnswer {
		return n.now()
	}
	return w.at
}

// termLen is how long a term lasts after its start.
func (n *node) termLen() time.Duration {
	if n.m.termEqualsLease {
		return n.s.lease
	}
	return n.s.termLen()
}

// begin starts a term on the successful acquisition w, which S3 answered
// with etag, unless the answer came after the term's deadline.
func (n *node) begin(ctx context.Context, etag string, w sentWrite) *term {
	now := n.now()
	start := n.start(w)
	deadline := start + n.termLen()
	n.lastGrant = w.rec.Token
	if now >= deadline {
		return nil
	}
	leaderCtx, cancel := context.WithCancel(ctx)
	t := &term{token: w.rec.Token, ctx: leaderCtx, cancel: cancel, deadline: deadline, etag: etag, rec: w.rec, from: start}
	n.mu.Lock()
	n.cur = t
	n.mu.Unlock()
	n.seen = observation{}
	appCtx := leaderCtx
	if n.m.leaderCtxNotCancelled {
		appCtx = ctx
	}
	if !n.m.noWatchdog {
		t.watchdogDone = n.spawn(func() { n.watchdog(t) })
	}
	t.leadDone = n.spawn(func() { n.env.Lead(appCtx, t.token) })
	n.prevLead = t.leadDone
	return t
}

// lead renews the term every retry period, counted from the send of its
// last successful write, until the term ends, then finishes it.
func (n *node) lead(ctx context.Context, t *term) {
	wait := max(0, t.from+n.s.retry-n.now())
	for n.clk.Sleep(t.ctx, wait) == nil {
		wait = n.renew(t)
	}
	n.finish(ctx, t)
}

// renew writes the term's record again, same token, If-Match its ETag, and
// returns how long to wait before the next renewal.
func (n *node) renew(t *term) time.Duration {
	c := ifMatch(t.etag)
	if n.m.unconditionalRenew {
		c = unconditional
	}
	etag, w, err := n.put(t.ctx, t.rec, c, false)
	class := protocol.ClassifyError(err)
	if n.m.conflictAsSuccess && class == protocol.ClassConflict ||
		n.m.notFoundAsSuccess && class == protocol.ClassNotFound {
		class, etag = protocol.ClassNone, t.etag
	}
	switch {
	case class == protocol.ClassNone:
		return n.extend(t, w, etag)
	case t.ctx.Err() != nil:
		return 0 // the term ended while the call was in flight
	case class == protocol.ClassOther:
		return n.s.retry
	}
	// 412, 409, 404 or unknown: what does the object hold now?
	s, err := n.read(t.ctx)
	switch {
	case err != nil:
		return n.backoff()
	case !s.exists:
		n.stop(t)
		return 0
	case s.etag == t.etag:
		return n.backoff() // nothing we sent has applied yet
	}
	if w, ok := n.ours(s.rec); ok && w.rec.Token == t.token && !s.rec.Released {
		return n.extend(t, w, s.etag) // an attempt whose answer we lost did apply
	}
	if !s.bad {
		n.highest = max(n.highest, s.rec.Token)
	}
	n.stop(t)
	return 0
}

// extend moves the deadline to the start of w plus the term length, if the
// term is still alive, makes w the term's current record, and returns the
// wait until the next renewal.
func (n *node) extend(t *term, w sentWrite, etag string) time.Duration {
	now := n.now()
	start := n.start(w)
	n.mu.Lock()
	alive := !t.ended && now < t.deadline
	if alive {
		t.deadline = max(t.deadline, start+n.termLen())
	}
	n.mu.Unlock()
	if !alive {
		n.stop(t)
		return 0
	}
	t.etag, t.rec, t.from = etag, w.rec, start
	return max(0, w.at+n.s.retry-now)
}

// stop ends the term now: the leader context is cancelled.
func (n *node) stop(t *term) {
	n.mu.Lock()
	t.ended = true
	n.mu.Unlock()
	t.cancel()
}

// watchdog ends the term when its deadline passes, even while a renewal is
// in flight. It re-reads the deadline after every sleep: renewals move it.
func (n *node) watchdog(t *term) {
	for {
		now := n.now()
		n.mu.Lock()
		ended, deadline := t.ended, t.deadline
		n.mu.Unlock()
		if ended {
			return
		}
		if now >= deadline {
			n.stop(t)
			return
		}
		if n.clk.Sleep(t.ctx, deadline-now) != nil {
			return
		}
	}
}

// finish ends the term, waits for the application to return but not past
// the deadline, releases the lease if the candidate is stopping and the
// application returned in time, and joins the watchdog.
func (n *node) finish(ctx context.Context, t *term) {
	n.mu.Lock()
	t.ended = true
	deadline := t.deadline
	n.mu.Unlock()
	t.cancel()
	if left := deadline - n.now(); left > 0 {
		_ = n.clk.Sleep(t.leadDone, left)
	}
	if t.leadDone.Err() != nil && ctx.Err() != nil {
		n.release(ctx, t, deadline)
	}
	if t.watchdogDone != nil {
		_ = n.clk.Sleep(t.watchdogDone, n.s.lease)
	}
	n.mu.Lock()
	if n.cur == t {
		n.cur = nil
	}
	n.mu.Unlock()
}

// release marks the term's record released, same token, If-Match its ETag,
// so that the next candidate takes over at once with the next token. It
// writes only before the deadline; ctx is the candidate's, already done, so
// the calls use a copy without its cancellation.
func (n *node) release(ctx context.Context, t *term, deadline time.Duration) {
	base := context.WithoutCancel(ctx)
	for range 3 {
		now := n.now()
		if now >= deadline {
			return
		}
		cctx, cancel := n.clk.WithTimeout(base, deadline-now)
		done := n.releaseOnce(cctx, t)
		cancel()
		if done {
			return
		}
	}
}

// releaseOnce makes one release attempt and reports whether there is
// nothing more to do.
func (n *node) releaseOnce(ctx context.Context, t *term) bool {
	var err error
	if n.m.deleteOnRelease {
		err = n.del(ctx, t.etag)
	} else {
		rec := t.rec
		rec.Released = true
		c := ifMatch(t.etag)
		if n.m.unconditionalRelease {
			c = unconditional
		}
		_, _, err = n.put(ctx, rec, c, false)
	}
	switch protocol.ClassifyError(err) {
	case protocol.ClassNone, protocol.ClassOther:
		return true
	}
	s, err := n.read(ctx)
	if err != nil {
		return false
	}
	w, ok := n.ours(s.rec)
	if !s.exists || !ok || w.rec.Token != t.token || s.rec.Released {
		return true // released, or someone else holds it now
	}
	t.etag, t.rec = s.etag, s.rec // a renewal of ours applied after all: release that
	return false
}
