package epochfile

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// term is one leadership term of the safe form: its timing (lockkit.Term)
// and the epoch it holds.
type term struct {
	*lockkit.Term
	epoch       uint64          // the fencing token
	key         string          // the epoch's lock file
	cleanupDone context.Context // done once the cleanup returned

	// Owned by the goroutine in run.
	etag string   // ETag of the term's current version of its file
	file lockFile // the term's current file
}

// begin starts a term on the successful create w, whose version is etag,
// unless the answer (and its confirmation) came after the term's deadline:
// a term lasts termLen from the send of its last successful write. l is the
// listing that confirmed it, from which the cleanup deletes old epochs.
func (n *safeNode) begin(ctx context.Context, w sentWrite, etag string, l listing) *term {
	n.lastGrant = max(n.lastGrant, w.file.Epoch)
	kt := n.Begin(ctx, w.at, func(lctx context.Context) { n.env.Lead(lctx, w.file.Epoch) })
	if kt == nil {
		return nil
	}
	t := &term{Term: kt, epoch: w.file.Epoch, key: w.key, etag: etag, file: w.file}
	n.seen = observation{}
	t.cleanupDone = n.Spawn(func() { n.cleanup(t, l) })
	return t
}

// lead touches the term's file every retry period, counted from the send
// of its last successful write, until the term ends, then finishes it (see
// lockkit.Node.Lead) and joins the cleanup, which returns once the term's
// context is done.
func (n *safeNode) lead(ctx context.Context, t *term) {
	n.Lead(ctx, t.Term, func() time.Duration { return n.touch(t) },
		func(ctx context.Context) bool { return n.releaseOnce(ctx, t) })
	_ = n.Clock.Sleep(t.cleanupDone, n.cfg.Validity)
}

// touch rewrites the term's file, If-Match its ETag, with a fresh nonce,
// and returns how long to wait before the next touch. A touch that fails
// is followed by a read: a touch of ours that applied after all extends the
// term, an unchanged file means none did, and anything else (an expiry mark
// by a follower, a deleted file) ends the term.
func (n *safeNode) touch(t *term) time.Duration {
	etag, w, err := n.put(t.Ctx, t.key, t.file, t.etag)
	var s snapshot
	return n.Settle(t.Term, protocol.ClassifyError(err), func() time.Duration { return n.extend(t, w, etag) }, t.etag,
		func() (lockkit.Object, error) {
			var err error
			s, err = n.get(t.Ctx, t.key)
			return s.Object, err
		},
		func() (time.Duration, bool) {
			if w, ok := n.ours(t.key, s.file); ok && !s.file.Expired {
				return n.extend(t, w, s.ETag), true
			}
			return 0, false
		})
}

// extend moves the term's deadline after its successful write w (see
// lockkit.Node.Extend) and, if the term is still alive, makes w its
// current version.
func (n *safeNode) extend(t *term, w sentWrite, etag string) time.Duration {
	wait, ok := n.Extend(t.Term, w.at, w.at)
	if ok {
		t.etag, t.file = etag, w.file
	}
	return wait
}

// releaseOnce rewrites the term's file with expired: true, If-Match its
// ETag, so that the next candidate creates the next epoch at once, and
// reports whether there is nothing more to do.
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
	if _, ok := n.ours(t.key, s.file); !s.Exists || !ok || s.file.Expired {
		return true // released, or someone else marked it expired
	}
	t.etag, t.file = s.ETag, s.file // a touch of ours applied after all: release that
	return false
}
