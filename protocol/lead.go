package protocol

import (
	"context"
	"time"
)

// term is one leadership term.
type term struct {
	lease  Lease
	ctx    context.Context // the leader context given to OnStartedLeading
	cancel context.CancelFunc
	// watchdogDone and callbackDone are done once the watchdog and
	// OnStartedLeading returned.
	watchdogDone, callbackDone context.Context
	began                      time.Duration // Monotonic when the term began

	// Guarded by Elector.mu.
	pending   Watermark     // the watermark the next write carries
	published Watermark     // the watermark of the term's last successful write
	deadline  time.Duration // Monotonic instant at which the term ends
	ended     bool
	endCause  Cause         // why it ended, once stop set it (stopped)
	stopped   bool          // stop ended it, with endCause
	stoppedAt time.Duration // Monotonic when it ended, once ended

	// Owned by the goroutine in Run.
	etag string // ETag of the term's current record
	rec  Record // the term's current record
}

// begin starts a term on the grant w, which S3 answered with etag, unless
// the grant came too late: the deadline runs from w's send, and a grant
// whose answer arrives after it is not acted on (begin returns nil; the
// caller reports the transition).
func (e *Elector) begin(ctx context.Context, etag string, w sentWrite) *term {
	now := e.clock.Monotonic()
	deadline := w.sent + e.termLen
	e.lastGrant = w.rec.Token
	if now >= deadline {
		e.log.Warn("grant arrived after its local deadline; not leading", "token", w.rec.Token, "late_by", now-deadline)
		return nil
	}
	leaderCtx, cancel := context.WithCancel(ctx)
	t := &term{
		lease: Lease{
			Token:         w.rec.Token,
			Holder:        e.cfg.Identity,
			LeaseDuration: e.cfg.LeaseDuration,
			AcquireTime:   w.rec.AcquireTime,
			Previous:      handedOver(w.rec),
		},
		pending:   Watermark{At: w.rec.Watermark},
		published: Watermark{At: w.rec.Watermark},
		ctx:       leaderCtx,
		cancel:    cancel,
		began:     now,
		deadline:  deadline,
		etag:      etag,
		rec:       w.rec,
	}
	e.mu.Lock()
	e.cur = t
	e.mu.Unlock()
	e.seen = observation{}
	e.seenObject = true
	e.observe(e.cfg.Identity, t.lease.Token, w.sent)
	e.to(PhaseLeading, CauseOK)
	e.log.Info("started leading", "token", t.lease.Token, "term_left", deadline-now)
	e.announce(e.cfg.Identity)
	if f := e.cfg.Metrics.TermStarted; f != nil {
		f(t.lease)
	}
	t.watchdogDone = e.spawn(func() { e.watchdog(t) })
	t.callbackDone = e.spawn(func() { e.cfg.Callbacks.OnStartedLeading(leaderCtx, t.lease) })
	e.prevCallback = t.callbackDone
	return t
}

// lead renews the term every RenewInterval, counted from the send of its
// last successful write, until it ends, then finishes it.
func (e *Elector) lead(ctx context.Context, t *term) {
	e.mu.Lock()
	sent := t.deadline - e.termLen // the grant's send: begin set deadline from it
	e.mu.Unlock()
	wait := max(0, sent+e.renewEvery-e.clock.Monotonic())
	for e.sleep(t.ctx, wait) == nil {
		wait = e.renew(t)
	}
	e.finish(ctx, t)
}

// renew writes the term's record again, same token, If-Match its ETag, and
// returns how long to wait before the next renewal.
func (e *Elector) renew(t *term) time.Duration {
	e.to(PhaseRenewing, CauseRenewalDue)
	rec := e.withWatermark(t, t.rec)
	rec.RenewTime = e.wallTime()
	etag, w, err := e.write(t.ctx, rec, t.etag, PurposeRenew)
	class := classify(err)
	switch {
	case class == ClassNone:
		return e.extend(t, w, etag)
	case t.ctx.Err() != nil:
		return 0 // the term ended while the call was in flight
	case class == ClassOther:
		e.log.Warn("renew failed", "class", class, "err", err)
		e.to(PhaseLeading, causeOf(err))
		return e.cfg.RetryPeriod
	}
	// 412, 409, 404 or unknown: what does the object hold now?
	e.log.Info("renew inconclusive; re-reading", "class", class, "err", err)
	e.to(PhaseCheckingRenewal, causeOf(err))
	s, err := e.read(t.ctx, PurposeCheck)
	switch {
	case t.ctx.Err() != nil:
		return 0 // the term ended while the call was in flight
	case err != nil:
		e.to(PhaseLeading, causeOf(err))
		return e.backoff()
	case !s.exists:
		e.observe("", 0, s.sent)
		e.stop(t, CauseNotFound, "lock object was deleted")
		return 0
	case s.etag == t.etag:
		e.to(PhaseLeading, CauseOK)
		return e.backoff() // nothing we sent has applied yet
	}
	if w, ok := e.ours(s.rec.Nonce); ok && w.rec.Token == t.lease.Token && !s.rec.Released {
		return e.extend(t, w, s.etag) // an attempt whose answer we lost did apply
	}
	cause := CauseMalformed
	if s.bad == nil {
		cause = CauseOK
		e.highest = max(e.highest, s.rec.Token)
		e.lastLease = s.rec.LeaseDuration()
		if !s.rec.Released {
			e.observe(s.rec.Holder, s.rec.Token, s.sent)
		}
	}
	e.stop(t, cause, "lock record was replaced", "holder", s.rec.Holder, "their_token", s.rec.Token)
	return 0
}

// extend moves the deadline to w's send plus the term length, if the term
// is still alive, records w as the term's current record, and returns the
// wait until the next renewal is due.
func (e *Elector) extend(t *term, w sentWrite, etag string) time.Duration {
	now := e.clock.Monotonic()
	e.mu.Lock()
	alive := !t.ended && now < t.deadline
	if alive {
		t.deadline = max(t.deadline, w.sent+e.termLen)
		t.published = Watermark{At: w.rec.Watermark, Updates: w.rec.Updates}
	}
	e.mu.Unlock()
	if !alive {
		e.stop(t, CauseLate, "renewal succeeded after the local deadline")
		return 0
	}
	t.etag, t.rec = etag, w.rec
	e.observe(e.cfg.Identity, t.lease.Token, w.sent)
	e.to(PhaseLeading, CauseOK)
	return max(0, w.sent+e.renewEvery-now)
}

// stop ends the term now, because of cause: IsLeader turns false and the
// leader context is cancelled.
func (e *Elector) stop(t *term, cause Cause, why string, args ...any) {
	now := e.clock.Monotonic()
	e.mu.Lock()
	wasEnded := t.ended
	if !wasEnded {
		t.ended, t.stopped, t.endCause, t.stoppedAt = true, true, cause, now
	}
	e.mu.Unlock()
	t.cancel()
	if !wasEnded {
		e.log.Warn("leadership lost: "+why, append([]any{"token", t.lease.Token}, args...)...)
	}
}

// watchdog ends the term when its deadline passes, even while a renewal is
// in flight. It re-reads the deadline after every sleep: renewals move it.
func (e *Elector) watchdog(t *term) {
	for {
		now := e.clock.Monotonic()
		e.mu.Lock()
		ended, deadline := t.ended, t.deadline
		e.mu.Unlock()
		if ended {
			return
		}
		if now >= deadline {
			e.stop(t, CauseExpired, "local deadline passed without a successful renewal")
			return
		}
		if e.clock.Sleep(t.ctx, deadline-now) != nil {
			return
		}
	}
}

// finish ends the term, waits for OnStartedLeading to return but not past
// the local deadline, releases the lease if the term ended because Run's
// context is done and ReleaseOnCancel is set, joins the watchdog, and calls
// OnStoppedLeading.
func (e *Elector) finish(ctx context.Context, t *term) {
	now := e.clock.Monotonic()
	e.mu.Lock()
	cause := CauseShutdown // the leader context ended with Run's
	if t.stopped {
		cause = t.endCause
	} else {
		t.ended, t.stoppedAt = true, now
	}
	deadline, held := t.deadline, t.stoppedAt-t.began
	e.lingering = t
	e.mu.Unlock()
	t.cancel()
	if cause == CauseShutdown {
		e.log.Info("stopping: context done", "token", t.lease.Token)
	}
	if left := deadline - e.clock.Monotonic(); left > 0 {
		_ = e.sleep(t.callbackDone, left)
	}
	returned := t.callbackDone.Err() != nil
	if !returned {
		e.log.Warn("OnStartedLeading still running after the local deadline", "token", t.lease.Token)
	}
	switch {
	case cause == CauseShutdown && e.cfg.ReleaseOnCancel && returned:
		e.to(PhaseReleasing, cause)
		e.release(ctx, t, deadline)
	case ctx.Err() != nil:
		e.to(PhaseStopped, cause)
	default:
		e.to(e.followPhase(), cause)
	}
	_ = e.sleep(t.watchdogDone, e.cfg.LeaseDuration)
	e.mu.Lock()
	e.cur = nil
	e.mu.Unlock()
	e.log.Info("stopped leading", "token", t.lease.Token)
	if f := e.cfg.Metrics.TermEnded; f != nil {
		f(TermEnd{Token: t.lease.Token, Held: held, Cause: cause})
	}
	if f := e.cfg.Callbacks.OnStoppedLeading; f != nil {
		f()
	}
}
