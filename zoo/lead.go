package zoo

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// term is one leadership term: its timing (lockkit.Term) and its record.
type term struct {
	*lockkit.Term
	token uint64

	// Owned by the goroutine in run.
	etag string // ETag of the term's current record
	rec  record // the term's current record
}

// start is the instant from which a successful write's term is measured:
// the reading taken just before the request was sent. The write was applied
// after it, so every follower that saw the write saw it later.
func (n *node) start(w sentWrite) time.Duration {
	if n.m.deadlineFromAnswer {
		return n.Now()
	}
	return w.at
}

// begin starts a term on the successful acquisition w, which S3 answered
// with etag, unless the answer came after the term's deadline.
func (n *node) begin(ctx context.Context, etag string, w sentWrite) *term {
	n.lastGrant = w.rec.Token
	kt := n.Begin(ctx, n.start(w), func(lctx context.Context) {
		if n.m.leaderCtxNotCancelled {
			lctx = ctx
		}
		n.env.Lead(lctx, w.rec.Token)
	})
	if kt == nil {
		return nil
	}
	t := &term{Term: kt, token: w.rec.Token, etag: etag, rec: w.rec}
	n.mu.Lock()
	n.cur = t
	n.mu.Unlock()
	n.seen = observation{}
	return t
}

// lead renews the term every retry period, counted from the send of its
// last successful write, until the term ends, then finishes it (see
// lockkit.Node.Lead).
func (n *node) lead(ctx context.Context, t *term) {
	n.Lead(ctx, t.Term, func() time.Duration { return n.renew(t) },
		func(ctx context.Context) bool { return n.releaseOnce(ctx, t) })
	n.mu.Lock()
	if n.cur == t {
		n.cur = nil
	}
	n.mu.Unlock()
}

// renew writes the term's record again, same token, If-Match its ETag, and
// returns how long to wait before the next renewal.
func (n *node) renew(t *term) time.Duration {
	c := lockkit.Condition{ETag: t.etag, Unconditional: n.m.unconditionalRenew}
	etag, w, err := n.put(t.Ctx, t.rec, c, false)
	class := protocol.ClassifyError(err)
	if n.m.conflictAsSuccess && class == protocol.ClassConflict ||
		n.m.notFoundAsSuccess && class == protocol.ClassNotFound {
		class, etag = protocol.ClassNone, t.etag
	}
	var s snapshot
	return n.Settle(t.Term, class, func() time.Duration { return n.extend(t, w, etag) }, t.etag,
		func() (lockkit.Object, error) {
			var err error
			s, err = n.read(t.Ctx)
			return s.Object, err
		},
		func() (time.Duration, bool) {
			if w, ok := n.ours(s.rec); ok && w.rec.Token == t.token && !s.rec.Released {
				return n.extend(t, w, s.ETag), true
			}
			if !s.bad {
				n.highest = max(n.highest, s.rec.Token)
			}
			return 0, false
		})
}

// extend moves the term's deadline after its successful write w (see
// lockkit.Node.Extend) and, if the term is still alive, makes w its
// current record.
func (n *node) extend(t *term, w sentWrite, etag string) time.Duration {
	wait, ok := n.Extend(t.Term, n.start(w), w.at)
	if ok {
		t.etag, t.rec = etag, w.rec
	}
	return wait
}

// releaseOnce marks the term's record released, same token, If-Match its
// ETag, so that the next candidate takes over at once with the next token,
// and reports whether there is nothing more to do.
func (n *node) releaseOnce(ctx context.Context, t *term) bool {
	var err error
	if n.m.deleteOnRelease {
		err = n.Delete(ctx, n.env.Key, t.etag)
	} else {
		rec := t.rec
		rec.Released = true
		_, _, err = n.put(ctx, rec, lockkit.Condition{ETag: t.etag, Unconditional: n.m.unconditionalRelease}, false)
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
	if !s.Exists || !ok || w.rec.Token != t.token || s.rec.Released {
		return true // released, or someone else holds it now
	}
	t.etag, t.rec = s.ETag, s.rec // a renewal of ours applied after all: release that
	return false
}
