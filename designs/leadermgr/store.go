package leadermgr

import (
	"context"
	"errors"
	"time"
)

// ErrHeld is returned by LeaseStore.Acquire when the entry is held by a
// term that has not expired: nothing was written.
var ErrHeld = errors.New("leadermgr: the lease is held")

// ErrConflict is wrapped by the error a LeaseStore returns when a write's
// condition failed: the entry was not the one the write was conditioned on.
// A write the caller made earlier may be what changed it (on S3, a write
// applied, answered 500 and retried by the SDK is answered 412), so the
// SafeManager re-reads before it concludes anything.
var ErrConflict = errors.New("leadermgr: the lease entry changed")

// Entry is the lease entry as a LeaseStore keeps it.
type Entry struct {
	// Holder is the identity of the manager that wrote it.
	Holder string
	// Token is the fencing token of the term: one more than the entry's
	// previous token at every acquisition, unchanged by renewals and the
	// release.
	Token uint64
	// Nonce is fresh for every write: the writer recognises its own write
	// on a later read, whatever answer it got.
	Nonce string
	// Term is how long the writer's term stays valid for others without a
	// renewal.
	Term time.Duration
	// Released says the holder gave the lease up: anyone may take it at
	// once, with the next token.
	Released bool
	// Version names this write of the entry in the store, for the
	// conditional writes that replace it: the object's ETag on S3, the
	// nonce in SQL.
	Version string
}

// LeaseStore keeps one lease entry and changes it only by conditional
// writes. The SafeManager is its only writer and calls it from one
// goroutine at a time, each call under a context with a timeout; an error
// other than ErrHeld or one wrapping ErrConflict means the outcome is
// unknown: the write may have been applied, now or later.
type LeaseStore interface {
	// Read returns the entry, and false if there is none.
	Read(ctx context.Context) (Entry, bool, error)
	// Acquire writes a new term's entry {holder, nonce, term, the stored
	// token + 1} if the stored entry is absent, released or expired by the
	// store's rule for it (S3: unchanged for its term on the caller's
	// monotonic clock since the caller first saw it; SQL: the server's
	// clock past valid_until), and returns the entry written. If the entry
	// is held it writes nothing and returns ErrHeld.
	Acquire(ctx context.Context, holder, nonce string, term time.Duration) (Entry, error)
	// Renew replaces prev with prev's holder and token, a new nonce and
	// term, if the stored entry is still prev (its Version), and returns
	// the entry written.
	Renew(ctx context.Context, prev Entry, nonce string, term time.Duration) (Entry, error)
	// Release replaces prev with prev marked released (same token, a new
	// nonce) if the stored entry is still prev.
	Release(ctx context.Context, prev Entry, nonce string) error
}
