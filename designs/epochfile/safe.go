package epochfile

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// safeNode is one incarnation of a candidate running the safe form.
type safeNode struct {
	*client

	// Owned by the goroutine in run.
	highest   uint64      // highest epoch listed by this incarnation (not its creates: see create)
	lastGrant uint64      // epoch of the last create judged (a term began on it, or it came too late)
	seen      observation // the latest file being timed as a follower
}

// observation is the version of the latest lock file a follower is timing
// (its key and ETag) and the monotonic instant it first read it.
type observation struct {
	version string
	at      time.Duration
}

// safeCandidate runs one node of the safe form until ctx is done.
func (c Config) safeCandidate(ctx context.Context, env sim.Env) error {
	if err := c.Validate(); err != nil {
		return err
	}
	n := &safeNode{client: newClient(c, env)}
	lockkit.Run(ctx, env.Clock, n.step, n.lead)
	return nil
}

// step lists the lock files once, reads the latest, and acts on it: no
// file or an expired one, create the next epoch; a file of this
// incarnation's, resume or retire it; anyone else's, time it.
func (n *safeNode) step(ctx context.Context) (time.Duration, *term) {
	l, err := n.list(ctx)
	if err != nil {
		return n.PollWait(), nil
	}
	latest, ok := l.latest()
	if !ok {
		return n.create(ctx, n.highest+1)
	}
	n.highest = max(n.highest, latest.epoch)
	s, err := n.get(ctx, latest.key)
	switch {
	case err != nil:
		return n.PollWait(), nil
	case !s.Exists:
		// Deleted since the listing: only a newer epoch's cleanup deletes
		// a file, so list again. It is never "no lock file".
		return n.Backoff(), nil
	case s.bad:
		return n.await(ctx, latest, s, n.cfg.Validity)
	}
	if w, ok := n.ours(latest.key, s.file); ok {
		return n.resumeOwn(ctx, latest, s, w)
	}
	if s.file.Expired {
		return n.create(ctx, latest.epoch+1)
	}
	return n.await(ctx, latest, s, max(s.file.validity(), n.cfg.Validity))
}

// resumeOwn handles a latest file this incarnation wrote. A create whose
// answer was lost (or not acted on) begins its term now, measured from its
// send, once a listing confirms it is still the latest; any other live file
// of ours belongs to a term that is over, and nobody replaced it: mark it
// expired and go on to the next epoch.
func (n *safeNode) resumeOwn(ctx context.Context, latest listed, s snapshot, w sentWrite) (time.Duration, *term) {
	if s.file.Expired {
		return n.create(ctx, latest.epoch+1)
	}
	if w.create && latest.epoch > n.lastGrant {
		if t := n.confirm(ctx, w, s.ETag); t != nil {
			return 0, t
		}
		return n.Backoff(), nil
	}
	return n.expire(ctx, latest, s)
}

// await times the latest file's version from the first read that returned
// it, and marks it expired once it stayed unchanged for wait.
func (n *safeNode) await(ctx context.Context, latest listed, s snapshot, wait time.Duration) (time.Duration, *term) {
	version := latest.key + " " + s.ETag
	if version != n.seen.version {
		n.seen = observation{version: version, at: s.At}
	}
	elapsed := s.At - n.seen.at
	if elapsed < wait {
		return max(0, min(n.PollWait(), wait-elapsed)), nil
	}
	if n.cfg.weak.noExpiryMark {
		return n.create(ctx, latest.epoch+1)
	}
	return n.expire(ctx, latest, s)
}

// expire marks the latest file expired, If-Match the very version that was
// timed (or that this incarnation wrote last), and creates the next epoch
// if the mark applied. The mark is what makes the judgement of validity
// safe: it conflicts with the leader's touch on the same key, so a leader
// cannot extend a term that a follower has already ended.
func (n *safeNode) expire(ctx context.Context, latest listed, s snapshot) (time.Duration, *term) {
	if n.AppRunning() {
		// The mark hands the lock on at once: not while the application
		// of this incarnation's last term has not returned (it may be
		// between its check and its write, within the pause bound).
		return n.PollWait(), nil
	}
	f := s.file
	if s.bad {
		f = lockFile{ValidityMS: n.cfg.Validity.Milliseconds()}
	}
	f.Epoch, f.Expired, f.ExpiredBy = latest.epoch, true, n.env.Identity
	_, _, err := n.put(ctx, latest.key, f, s.ETag)
	switch protocol.ClassifyError(err) {
	case protocol.ClassNone:
		n.seen = observation{}
		return n.create(ctx, latest.epoch+1)
	case protocol.ClassPreconditionFailed, protocol.ClassNotFound:
		return 0, nil // the file changed: list again now
	case protocol.ClassConflict, protocol.ClassUnknownOutcome:
		return n.Backoff(), nil // the next read shows whether the mark applied
	}
	return n.PollWait(), nil
}

// create writes the lock file of epoch with If-None-Match: *, and begins a
// term if it succeeded and a listing confirms it. It does not raise
// highest: a create that was refused, or is still on its way, must not
// make the next empty listing create the epoch after it, a key no other
// creator of this epoch contends for, which a later listing would confirm
// as the highest while this epoch's holder still leads.
func (n *safeNode) create(ctx context.Context, epoch uint64) (time.Duration, *term) {
	if n.AppRunning() {
		return n.PollWait(), nil // the last term's application has not returned
	}
	f := lockFile{Epoch: epoch, Holder: n.env.Identity, ValidityMS: n.cfg.Validity.Milliseconds()}
	etag, w, err := n.put(ctx, n.files.key(epoch), f, "")
	switch protocol.ClassifyError(err) {
	case protocol.ClassNone:
		if t := n.confirm(ctx, w, etag); t != nil {
			return 0, t
		}
		return n.Backoff(), nil
	case protocol.ClassPreconditionFailed:
		return 0, nil // lost the race, or an earlier attempt of ours won: list again now
	case protocol.ClassConflict, protocol.ClassUnknownOutcome:
		return n.Backoff(), nil
	}
	return n.PollWait(), nil
}

// confirm lists the lock files after the create w, which S3 answered (or a
// read showed) with etag, and begins its term only if the file is still the
// highest epoch with that version. A create can succeed without being the
// latest: a candidate that decided on an old listing creates an epoch that
// a newer epoch's cleanup has deleted since. The listing was applied after
// the create, and the highest epoch ever created is never deleted, so a
// file that is the highest in it is the newest epoch there has ever been.
func (n *safeNode) confirm(ctx context.Context, w sentWrite, etag string) *term {
	l, err := n.list(ctx)
	if n.cfg.weak.noConfirm {
		return n.begin(ctx, w, etag, l)
	}
	if err != nil {
		return nil // unconfirmed: the next step finds the file and resumes it
	}
	latest, ok := l.latest()
	if !ok || latest.epoch != w.file.Epoch || latest.etag != etag {
		n.lastGrant = max(n.lastGrant, w.file.Epoch)
		return nil
	}
	return n.begin(ctx, w, etag, l)
}
