package epochfile

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// term is one leadership term of the safe form: the epoch it holds, and
// its deadline on the node's monotonic clock.
type term struct {
	epoch  uint64 // the fencing token
	key    string // the epoch's lock file
	ctx    context.Context
	cancel context.CancelFunc
	// leadDone, watchdogDone and cleanupDone are done once the
	// application, the watchdog and the cleanup returned.
	leadDone, watchdogDone, cleanupDone context.Context

	// Guarded by safeNode.mu.
	deadline time.Duration // monotonic reading at which the term ends
	ended    bool

	// Owned by the goroutine in run.
	etag string        // ETag of the term's current version of its file
	file lockFile      // the term's current file
	from time.Duration // send of the last successful write: the next touch is due a retry period later
}

// begin starts a term on the successful create w, whose version is etag,
// unless the answer (and its confirmation) came after the term's deadline:
// a term lasts termLen from the send of its last successful write. l is the
// listing that confirmed it, from which the cleanup deletes old epochs.
func (n *safeNode) begin(ctx context.Context, w sentWrite, etag string, l listing) *term {
	now := n.clk.Monotonic()
	deadline := w.at + n.cfg.termLen()
	n.lastGrant = max(n.lastGrant, w.file.Epoch)
	if now >= deadline {
		return nil
	}
	leaderCtx, cancel := context.WithCancel(ctx)
	t := &term{epoch: w.file.Epoch, key: w.key, ctx: leaderCtx, cancel: cancel, deadline: deadline,
		etag: etag, file: w.file, from: w.at}
	n.seen = observation{}
	t.watchdogDone = n.spawn(func() { n.watchdog(t) })
	t.leadDone = n.spawn(func() { n.env.Lead(leaderCtx, t.epoch) })
	t.cleanupDone = n.spawn(func() { n.cleanup(t, l) })
	n.prevLead = t.leadDone
	return t
}

// lead touches the term's file every retry period, counted from the send
// of its last successful write, until the term ends, then finishes it.
func (n *safeNode) lead(ctx context.Context, t *term) {
	wait := max(0, t.from+n.cfg.Retry-n.clk.Monotonic())
	for n.clk.Sleep(t.ctx, wait) == nil {
		wait = n.touch(t)
	}
	n.finish(ctx, t)
}

// touch rewrites the term's file, If-Match its ETag, with a fresh nonce,
// and returns how long to wait before the next touch. A touch that fails
// is followed by a read: a touch of ours that applied after all extends the
// term, an unchanged file means none did, and anything else (an expiry mark
// by a follower, a deleted file) ends the term.
func (n *safeNode) touch(t *term) time.Duration {
	etag, w, err := n.put(t.ctx, t.key, t.file, t.etag)
	class := protocol.ClassifyError(err)
	switch {
	case class == protocol.ClassNone:
		return n.extend(t, w, etag)
	case t.ctx.Err() != nil:
		return 0 // the term ended while the call was in flight
	case class == protocol.ClassOther:
		return n.cfg.Retry
	}
	s, err := n.get(t.ctx, t.key)
	switch {
	case err != nil:
		return n.backoff()
	case !s.exists:
		n.stop(t)
		return 0
	case s.etag == t.etag:
		return n.backoff() // nothing we sent has applied yet
	}
	if w, ok := n.ours(t.key, s.file); ok && !s.file.Expired {
		return n.extend(t, w, s.etag) // a touch whose answer we lost did apply
	}
	n.stop(t)
	return 0
}

// extend moves the deadline to the send of w plus the term length, if the
// term is still alive, makes w the term's current version, and returns the
// wait until the next touch.
func (n *safeNode) extend(t *term, w sentWrite, etag string) time.Duration {
	now := n.clk.Monotonic()
	n.mu.Lock()
	alive := !t.ended && now < t.deadline
	if alive {
		t.deadline = max(t.deadline, w.at+n.cfg.termLen())
	}
	n.mu.Unlock()
	if !alive {
		n.stop(t)
		return 0
	}
	t.etag, t.file, t.from = etag, w.file, w.at
	return max(0, w.at+n.cfg.Retry-now)
}

// stop ends the term now: the leader context is cancelled.
func (n *safeNode) stop(t *term) {
	n.mu.Lock()
	t.ended = true
	n.mu.Unlock()
	t.cancel()
}

// watchdog ends the term when its deadline passes, even while a touch is
// in flight. It re-reads the deadline after every sleep: touches move it.
func (n *safeNode) watchdog(t *term) {
	for {
		now := n.clk.Monotonic()
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
// the deadline, releases the lock if the candidate is stopping and the
// application returned in time, and joins the watchdog and the cleanup
// (both return once the term's context is done).
func (n *safeNode) finish(ctx context.Context, t *term) {
	n.mu.Lock()
	t.ended = true
	deadline := t.deadline
	n.mu.Unlock()
	t.cancel()
	if left := deadline - n.clk.Monotonic(); left > 0 {
		_ = n.clk.Sleep(t.leadDone, left)
	}
	if t.leadDone.Err() != nil && ctx.Err() != nil {
		n.release(ctx, t, deadline)
	}
	_ = n.clk.Sleep(t.watchdogDone, n.cfg.Validity)
	_ = n.clk.Sleep(t.cleanupDone, n.cfg.Validity)
}

// release rewrites the term's file with expired: true, If-Match its ETag,
// so that the next candidate creates the next epoch at once. It writes only
// before the deadline; ctx is the candidate's, already done, so the calls
// use a copy without its cancellation.
func (n *safeNode) release(ctx context.Context, t *term, deadline time.Duration) {
	base := context.WithoutCancel(ctx)
	for range 3 {
		now := n.clk.Monotonic()
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
func (n *safeNode) releaseOnce(ctx context.Context, t *term) bool {
	f := t.file
	f.Expired = true
	_, _, err := n.put(ctx, t.key, f, t.etag)
	switch protocol.ClassifyError(err) {
	case protocol.ClassNone, protocol.ClassOther:
		return true
	}
	s, err := n.get(ctx, t.key)
	if err != nil {
		return false
	}
	if _, ok := n.ours(t.key, s.file); !s.exists || !ok || s.file.Expired {
		return true // released, or someone else marked it expired
	}
	t.etag, t.file = s.etag, s.file // a touch of ours applied after all: release that
	return false
}
