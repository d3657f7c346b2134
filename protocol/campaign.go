package protocol

import (
	"context"
	"math"
	"time"
	"unicode/utf8"
)

// campaign follows the lock object until this elector acquires it, and
// returns the new term; it returns nil once ctx is done.
func (e *Elector) campaign(ctx context.Context) *term {
	for ctx.Err() == nil {
		wait, t := e.campaignStep(ctx)
		if t != nil {
			return t
		}
		if e.sleep(ctx, wait) != nil {
			break
		}
	}
	e.to(PhaseStopped, CauseShutdown)
	return nil
}

// followPhase is the phase of a follower between reads: awaiting expiry if
// it is timing something, reading otherwise.
func (e *Elector) followPhase() Phase {
	if e.seen.set {
		return PhaseAwaitingExpiry
	}
	return PhaseReading
}

// campaignStep reads the lock object once and acts on it. It returns the
// term if one began, or how long to wait before the next step.
func (e *Elector) campaignStep(ctx context.Context) (time.Duration, *term) {
	s, err := e.read(ctx, PurposeFollow)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("read lock object", "class", ClassifyError(err), "err", err)
		}
		e.to(e.phase, causeOf(err))
		return e.pollWait(), nil
	}
	if s.exists {
		e.seenObject = true
	}
	if s.exists && s.bad == nil && !s.rec.Released {
		e.observe(s.rec.Holder, s.rec.Token, s.sent)
	} else {
		e.observe("", 0, s.sent)
	}
	switch {
	case !s.exists && !e.seenObject:
		// Never created, as far as this elector knows: create it.
		return e.acquire(ctx, s, nil, CauseNotFound)
	case !s.exists:
		// Deleted by someone: its last holder may still lead until its
		// next renewal fails. Time the absence like a lease (the longer of
		// the last record's and ours), then create it.
		return e.awaitExpiry(ctx, s, max(e.lastLease, e.cfg.LeaseDuration), false, CauseNotFound)
	case s.bad != nil:
		// No record, or one holding the largest token, which no token
		// can follow: time it (for the lease it states, if any, and at
		// least ours), then overwrite it with an unlinked record.
		e.log.Warn("lock object holds no valid record; timing it as a foreign lease", "err", s.bad)
		return e.awaitExpiry(ctx, s, max(s.rec.LeaseDuration(), e.cfg.LeaseDuration), false, CauseMalformed)
	}
	e.highest = max(e.highest, s.rec.Token)
	e.lastLease = s.rec.LeaseDuration()
	if w, ok := e.ours(s.rec.Nonce); ok {
		e.to(PhaseResumingOwn, CauseOK)
		return e.resumeOwn(ctx, s, w)
	}
	if s.rec.Released {
		return e.acquire(ctx, s, endOf(s.rec, EndedReleased), CauseOK)
	}
	e.announce(s.rec.Holder)
	return e.awaitExpiry(ctx, s, max(s.rec.LeaseDuration(), e.cfg.LeaseDuration), true, CauseOK)
}

// resumeOwn handles a record this Run wrote. If it is an acquisition whose
// answer was lost (an unknown outcome, or a 412 after an SDK retry), the
// term begins now, measured from that write's send. Otherwise it is the
// record of a term that is over (or a grant that came too late), and no one
// has replaced it since: take it again at once with a new token.
func (e *Elector) resumeOwn(ctx context.Context, s snapshot, w sentWrite) (time.Duration, *term) {
	cause := CauseOK
	if w.acquire && !s.rec.Released && w.rec.Token > e.lastGrant {
		e.log.Info("found our acquisition applied", "token", w.rec.Token)
		if t := e.begin(ctx, s.etag, w); t != nil {
			return 0, t
		}
		cause = CauseLate
	}
	ending := EndedExpired
	if s.rec.Released {
		ending = EndedReleased
	}
	return e.acquire(ctx, s, endOf(s.rec, ending), cause)
}

// awaitExpiry times a state of the object this elector did not write (a
// record, a body that is no record, the object's absence), on the local
// monotonic clock from the first read that showed it, and takes it over
// once it stayed unchanged for wait; linked says whether the new record
// links back to the expired one (it does not for a body that is no record
// or a missing object). Unchanged means unchanged in everything S3 shows:
// ETag, nonce, Last-Modified, version id and size. cause is the kind of
// answer the read that showed it got.
func (e *Elector) awaitExpiry(ctx context.Context, s snapshot, wait time.Duration, linked bool, cause Cause) (time.Duration, *term) {
	if v := s.version(); !e.seen.set || !v.same(e.seen.ver) {
		e.seen = observation{ver: v, at: s.at, set: true}
	}
	elapsed := s.at - e.seen.at
	if elapsed < wait {
		e.to(PhaseAwaitingExpiry, cause)
		return min(e.pollWait(), wait-elapsed), nil
	}
	e.log.Info("lease expired; taking over", "holder", s.rec.Holder, "token", s.rec.Token, "exists", s.exists, "unchanged_for", elapsed)
	var prev *PreviousTerm
	if linked {
		prev = endOf(s.rec, EndedExpired)
	}
	return e.acquire(ctx, s, prev, CauseExpired)
}

// acquire writes a new term's record, If-Match the snapshot's ETag, or
// If-None-Match: * if the object is missing. Its token is highest+1, or the
// acquirer's wall clock in Unix milliseconds if that is larger (tokenFloor).
// cause is why it acquires: the answer that showed a record to take, or
// the expiry of one timed.
//
// highest counts no record holding the largest token (read refuses those),
// so only a write of our own can have raised it that far; the token then
// stays at the largest rather than wrapping to 0. Tokens come near it only
// after someone else wrote the object.
func (e *Elector) acquire(ctx context.Context, s snapshot, prev *PreviousTerm, cause Cause) (time.Duration, *term) {
	if e.prevCallback != nil && e.prevCallback.Err() == nil {
		e.log.Warn("not acquiring: OnStartedLeading of the last term has not returned")
		e.to(e.followPhase(), CauseBusy)
		return e.pollWait(), nil
	}
	e.to(PhaseAcquiring, cause)
	now := e.wallTime()
	if e.highest < math.MaxUint64 {
		e.highest++
	}
	e.highest = max(e.highest, tokenFloor(now))
	rec := Record{
		Holder:          e.cfg.Identity,
		Token:           e.highest,
		LeaseDurationMS: ceilMillis(e.cfg.LeaseDuration),
		AcquireTime:     now,
		RenewTime:       now,
		Previous:        prev,
	}
	if prev != nil {
		rec.Watermark = prev.Watermark // the hand-over: the new term starts from it
	}
	etag, w, err := e.write(ctx, rec, s.etag, PurposeAcquire)
	switch class := classify(err); class {
	case ClassNone:
		if t := e.begin(ctx, etag, w); t != nil {
			return 0, t
		}
		e.to(e.followPhase(), CauseLate)
		return e.pollWait(), nil
	case ClassPreconditionFailed, ClassNotFound:
		// Lost the race, or the object vanished under If-Match (AWS says
		// 404, gofakes3 412), or an earlier attempt of this call applied:
		// re-read now and let the nonce decide.
		e.to(e.followPhase(), causeOf(err))
		return 0, nil
	case ClassConflict, ClassUnknownOutcome:
		if ctx.Err() == nil {
			e.log.Info("acquire attempt inconclusive", "class", class, "err", err)
		}
		e.to(e.followPhase(), causeOf(err))
		return e.backoff(), nil
	default:
		e.log.Warn("acquire failed", "class", class, "err", err)
		e.to(e.followPhase(), causeOf(err))
		return e.pollWait(), nil
	}
}

// endOf is the audit link to the term whose last record is r. It names at
// most MaxIdentityLen bytes of r's holder, cut at a character boundary: a
// longer one (written by someone else, or by a version without the limit)
// would make our record too long.
func endOf(r Record, how Ending) *PreviousTerm {
	holder := r.Holder
	if len(holder) > MaxIdentityLen {
		n := MaxIdentityLen
		for n > 0 && !utf8.RuneStart(holder[n]) {
			n--
		}
		holder = holder[:n]
	}
	return &PreviousTerm{Holder: holder, Token: r.Token, Nonce: r.Nonce, Ended: how, Watermark: r.Watermark, Updates: r.Updates}
}

// ceilMillis rounds d up to whole milliseconds, so that a record never
// understates its lease.
func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// tokenFloor is the least token an acquisition at wall-clock time now
// hands out: now in Unix milliseconds, 0 before 1970. Within an unbroken
// chain of records tokens increase by the records alone; the floor is what
// keeps them increasing across a deletion or an outside overwrite, for
// electors that never saw the earlier tokens (see the package
// documentation, "Fencing").
func tokenFloor(now time.Time) uint64 {
	ms := now.UnixMilli()
	if ms <= 0 {
		return 0
	}
	return uint64(ms)
}
