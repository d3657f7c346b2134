package epochfile

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// naiveCandidate runs one node of the naive form until ctx is done: the
// document's algorithm as written, with validity judged from S3's
// Last-Modified against the node's own wall clock.
func (c Config) naiveCandidate(ctx context.Context, env sim.Env) error {
	if err := c.Validate(); err != nil {
		return err
	}
	n := newClient(c, env)
	for ctx.Err() == nil {
		if n.Clock.Sleep(ctx, n.naiveStep(ctx)) != nil {
			break
		}
	}
	return nil
}

// naiveStep is steps 1 to 7 of the document: list the lock files; if there
// is none, or the latest has expired or is no longer valid (Last-Modified
// plus validity_ms is past on this node's wall clock), create the next
// epoch with If-None-Match: * and, if that worked, lead. It returns the
// wait before the next round.
func (n *client) naiveStep(ctx context.Context) time.Duration {
	l, err := n.list(ctx)
	if err != nil {
		return n.cfg.Retry
	}
	epoch := uint64(1)
	if latest, ok := l.latest(); ok {
		s, err := n.get(ctx, latest.key)
		if err != nil || !s.Exists {
			return n.cfg.Retry
		}
		if !s.bad && !s.file.Expired && n.Clock.Now().Before(s.LastModified.Add(s.file.validity())) {
			return n.cfg.Retry // another process is the leader
		}
		epoch = latest.epoch + 1
	}
	key := n.files.key(epoch)
	f := lockFile{Epoch: epoch, Holder: n.env.Identity, ValidityMS: n.cfg.Validity.Milliseconds()}
	etag, _, err := n.put(ctx, key, f, "")
	if err != nil {
		return n.cfg.Retry // 412: another process created it first
	}
	n.naiveLead(ctx, key, f, etag)
	return n.cfg.Retry
}

// naiveLead leads epoch f.Epoch while the lock is valid by Last-Modified
// against the wall clock, touching the file every retry period (If-Match
// its ETag) to extend it and reading the new Last-Modified with a HEAD,
// since PutObject's answer carries none. It stops when the lock is no
// longer valid or a touch fails, and releases with expired: true if the
// candidate is stopping.
func (n *client) naiveLead(ctx context.Context, key string, f lockFile, etag string) {
	lctx, stop := context.WithCancel(ctx)
	done := n.Spawn(func() { n.env.Lead(lctx, f.Epoch) })
	lastModified, err := n.head(ctx, key)
	valid := func() bool { return err == nil && n.Clock.Now().Before(lastModified.Add(n.cfg.Validity)) }
	for valid() {
		if n.Clock.Sleep(ctx, n.cfg.Retry) != nil || !valid() {
			break
		}
		var touched string
		touched, _, err = n.put(ctx, key, f, etag)
		if err != nil {
			break
		}
		etag = touched
		lastModified, err = n.head(ctx, key)
	}
	stop()
	_ = n.Clock.Sleep(done, n.cfg.Validity)
	if ctx.Err() != nil {
		f.Expired = true
		_, _, _ = n.put(context.WithoutCancel(ctx), key, f, etag)
	}
}
