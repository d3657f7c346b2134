package protocol

import (
	"context"
	"time"
)

// releaseAttempts bounds the writes of one release: the first, and retries
// after learning that an earlier renewal of ours applied after all.
const releaseAttempts = 3

// release marks the term's record released, with the same token, If-Match
// its ETag, so that the next candidate takes over at once. It runs only
// after OnStartedLeading returned and only before the local deadline: a
// release that lands later is harmless (If-Match fails if anyone took over)
// but no longer needed. The object is never deleted: that would reset the
// token sequence. ctx is Run's context, already done; the calls use a copy
// that keeps its values but not its cancellation. It ends in PhaseStopped.
func (e *Elector) release(ctx context.Context, t *term, deadline time.Duration) {
	base := context.WithoutCancel(ctx)
	for i := range releaseAttempts {
		now := e.clock.Monotonic()
		if now >= deadline {
			e.log.Info("not released: local deadline passed", "token", t.lease.Token)
			e.to(PhaseStopped, CauseExpired)
			return
		}
		cctx, cancel := e.clock.WithTimeout(base, deadline-now)
		done := e.releaseOnce(cctx, t, i == releaseAttempts-1)
		cancel()
		if done {
			return
		}
	}
}

// releaseOnce makes one release attempt and reports whether there is
// nothing more to do; the last attempt always ends the release.
func (e *Elector) releaseOnce(ctx context.Context, t *term, last bool) bool {
	rec := e.withWatermark(t, t.rec)
	rec.Released = true
	rec.RenewTime = e.wallTime()
	_, _, err := e.write(ctx, rec, t.etag, PurposeRelease)
	switch class := classify(err); class {
	case ClassNone:
		e.log.Info("released", "token", t.lease.Token)
		e.to(PhaseStopped, CauseOK)
		return true
	case ClassOther:
		e.log.Warn("release failed", "class", class, "err", err)
		e.to(PhaseStopped, causeOf(err))
		return true
	}
	e.to(PhaseCheckingRelease, causeOf(err))
	again := PhaseReleasing
	if last {
		again = PhaseStopped
	}
	s, err := e.read(ctx, PurposeCheck)
	if err != nil {
		e.to(again, causeOf(err))
		e.gaveUp(t, last)
		return last
	}
	w, ok := e.ours(s.rec.Nonce)
	switch {
	case !s.exists:
		e.to(PhaseStopped, CauseNotFound)
		return true // someone else holds it now
	case s.bad != nil:
		e.to(PhaseStopped, CauseMalformed)
		return true
	case !ok || w.rec.Token != t.lease.Token:
		e.to(PhaseStopped, CauseOK)
		return true
	case s.rec.Released:
		e.log.Info("released", "token", t.lease.Token)
		e.to(PhaseStopped, CauseOK)
		return true
	}
	// A renewal of ours applied after all: release that record.
	t.etag, t.rec = s.etag, s.rec
	e.to(again, CauseOK)
	e.gaveUp(t, last)
	return last
}

// gaveUp logs the end of a release that did not happen, after the last
// attempt.
func (e *Elector) gaveUp(t *term, last bool) {
	if last {
		e.log.Warn("release gave up", "token", t.lease.Token)
	}
}
