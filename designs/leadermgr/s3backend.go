package leadermgr

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// S3Backend is the document's Backend on S3: the entry is one object,
// {"leader_id", "term_ms", "written_at"}, and WriteEntry is the document's
// conditional upsert made of a read and a conditional write, If-None-Match:
// * when the object is absent, If-Match its ETag otherwise, so that the
// condition holds at the instant the write applies, as it does inside the
// SQL statement.
//
// The condition is the document's: the entry is absent, names id, or has
// expired. S3 has no NOW(), so "expired" is judged on one clock, as the
// SQL server's is: the caller's monotonic clock, timing each version of the
// object (its ETag) from the first read that returned it; the version has
// expired once it stayed unchanged for its writer's term. No two clocks
// are ever compared, so the manager's failures under the simulator are its
// own, not this backend's. written_at (the writer's wall clock, for humans)
// makes every write's body, and so its ETag, differ, as valid_until makes
// every SQL write differ.
//
// One S3Backend serves one manager (it keeps that manager's observation of
// the object); it is safe for concurrent use.
type S3Backend struct {
	kit lockkit.Node // reads and writes the object
	key string

	mu     sync.Mutex
	seen   string        // ETag being timed
	seenAt time.Duration // Monotonic() at the first read that returned it
}

// NewS3Backend returns the document's backend on the object bucket/key of
// store, timing entries on clock (nil: protocol.NewRealClock()).
func NewS3Backend(store sim.S3Client, bucket, key string, clock protocol.Clock) *S3Backend {
	if clock == nil {
		clock = protocol.NewRealClock()
	}
	return &S3Backend{kit: lockkit.Node{Clock: clock, Store: store, Bucket: bucket}, key: key}
}

// naiveEntry is the body of the document's lock object.
type naiveEntry struct {
	LeaderID  string    `json:"leader_id"`
	TermMS    int64     `json:"term_ms"`
	WrittenAt time.Time `json:"written_at"`
}

// WriteEntry writes the entry naming id, valid for term, if the object is
// absent, names id, or has expired; it reports whether it wrote. A read or
// write that fails otherwise than by its condition is an error, and the
// write's outcome is then unknown, as the document's is.
func (b *S3Backend) WriteEntry(ctx context.Context, id string, term time.Duration) (bool, error) {
	o, err := b.kit.Read(ctx, b.key)
	if err != nil {
		return false, fmt.Errorf("leadermgr: read the entry: %w", err)
	}
	var cur naiveEntry
	if o.Exists && json.Unmarshal(o.Body, &cur) != nil {
		cur = naiveEntry{} // not an entry: it expires after the reader's term
	}
	if o.Exists && cur.LeaderID != id && !b.expired(o.ETag, time.Duration(cur.TermMS)*time.Millisecond, term) {
		return false, nil
	}
	body, err := json.Marshal(naiveEntry{LeaderID: id, TermMS: term.Milliseconds(), WrittenAt: b.kit.Clock.Now()})
	if err != nil {
		return false, fmt.Errorf("leadermgr: encode the entry: %w", err)
	}
	if _, err := b.kit.Put(ctx, b.key, body, lockkit.Condition{ETag: o.ETag}); err != nil {
		switch c := protocol.ClassifyError(err); {
		case c == protocol.ClassPreconditionFailed, c == protocol.ClassNotFound, o.Exists && protocol.ObjectMissing(err):
			return false, nil // the condition failed: someone else wrote first
		}
		return false, fmt.Errorf("leadermgr: write the entry: %w", err)
	}
	return true, nil
}

// expired times the version etag from the first read that returned it and
// reports whether it stayed unchanged for its term (the reader's own if
// the entry states none).
func (b *S3Backend) expired(etag string, entryTerm, ownTerm time.Duration) bool {
	now := b.kit.Clock.Monotonic()
	b.mu.Lock()
	defer b.mu.Unlock()
	if etag != b.seen {
		b.seen, b.seenAt = etag, now
	}
	if entryTerm <= 0 {
		entryTerm = ownTerm
	}
	return now-b.seenAt >= entryTerm
}
