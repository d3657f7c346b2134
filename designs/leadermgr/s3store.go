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

// S3Store is a LeaseStore on one S3 object, written only by conditional
// PutObject: If-None-Match: * to create it, If-Match its ETag to take it
// over, renew it and release it. It is never deleted, so the token it holds
// only grows. Every body carries the writer's nonce, so no two bodies (and
// no two ETags) are equal.
//
// S3 has no clock a client can compare with: an entry has expired once
// the same version (ETag) stayed in the object for the entry's term, or the
// caller's if longer, on the caller's monotonic clock, counted from the
// first read that returned it. A write is applied after its reader first
// saw the version it replaces, so the wait never starts before the write it
// times.
//
// One S3Store serves one manager (it keeps that manager's observation of
// the object and the highest token it has seen); it is safe for concurrent
// use.
type S3Store struct {
	kit lockkit.Node // reads and writes the object
	key string

	mu      sync.Mutex
	seen    string        // version being timed
	seenAt  time.Duration // Monotonic() at the first read that returned it
	highest uint64        // highest token seen or written
}

// NewS3Store returns a LeaseStore on the object bucket/key of store,
// timing entries on clock (nil: protocol.NewRealClock()).
func NewS3Store(store sim.S3Client, bucket, key string, clock protocol.Clock) *S3Store {
	if clock == nil {
		clock = protocol.NewRealClock()
	}
	return &S3Store{kit: lockkit.Node{Clock: clock, Store: store, Bucket: bucket}, key: key}
}

// s3Entry is the JSON body of the lock object.
type s3Entry struct {
	Holder   string `json:"holder"`
	Token    uint64 `json:"token"`
	Nonce    string `json:"nonce"`
	TermMS   int64  `json:"termMs"`
	Released bool   `json:"released,omitempty"`
}

// snapshot is one read of the object.
type snapshot struct {
	exists bool
	bad    bool // the body is not an entry (someone else's object)
	entry  Entry
	at     time.Duration // Monotonic() once the answer had arrived
}

// get reads the object and times its version.
func (s *S3Store) get(ctx context.Context) (snapshot, error) {
	o, err := s.kit.Read(ctx, s.key)
	if err != nil {
		return snapshot{}, fmt.Errorf("leadermgr: s3 read: %w", err)
	}
	snap := snapshot{exists: o.Exists, at: o.At}
	if !o.Exists {
		return snap, nil
	}
	var e s3Entry
	if json.Unmarshal(o.Body, &e) != nil || e.Holder == "" || e.Token == 0 || e.Nonce == "" || e.TermMS <= 0 {
		snap.bad = true
	} else {
		snap.entry = Entry{Holder: e.Holder, Token: e.Token, Nonce: e.Nonce, Term: time.Duration(e.TermMS) * time.Millisecond, Released: e.Released}
	}
	snap.entry.Version = o.ETag
	s.mu.Lock()
	if snap.entry.Version != s.seen {
		s.seen, s.seenAt = snap.entry.Version, snap.at
	}
	if !snap.bad {
		s.highest = max(s.highest, snap.entry.Token)
	}
	s.mu.Unlock()
	return snap, nil
}

// Read implements LeaseStore. An object that is not an entry is returned
// as an entry with only its Version.
func (s *S3Store) Read(ctx context.Context) (Entry, bool, error) {
	snap, err := s.get(ctx)
	return snap.entry, snap.exists, err
}

// Acquire implements LeaseStore: a read, and if the entry is absent,
// released, not an entry, or unchanged for max(its term, term) since this
// store first saw it, a conditional write with the highest token seen + 1.
func (s *S3Store) Acquire(ctx context.Context, holder, nonce string, term time.Duration) (Entry, error) {
	snap, err := s.get(ctx)
	if err != nil {
		return Entry{}, err
	}
	if snap.exists && !snap.entry.Released {
		wait := max(snap.entry.Term, term)
		s.mu.Lock()
		elapsed := snap.at - s.seenAt
		s.mu.Unlock()
		if elapsed < wait {
			return Entry{}, ErrHeld
		}
	}
	s.mu.Lock()
	token := s.highest + 1
	s.highest = token
	s.mu.Unlock()
	return s.put(ctx, snap.exists, snap.entry.Version, Entry{Holder: holder, Token: token, Nonce: nonce, Term: term})
}

// Renew implements LeaseStore: the entry rewritten, If-Match prev's ETag.
func (s *S3Store) Renew(ctx context.Context, prev Entry, nonce string, term time.Duration) (Entry, error) {
	return s.put(ctx, true, prev.Version, Entry{Holder: prev.Holder, Token: prev.Token, Nonce: nonce, Term: term})
}

// Release implements LeaseStore: the entry marked released, If-Match
// prev's ETag.
func (s *S3Store) Release(ctx context.Context, prev Entry, nonce string) error {
	_, err := s.put(ctx, true, prev.Version, Entry{Holder: prev.Holder, Token: prev.Token, Nonce: nonce, Term: prev.Term, Released: true})
	return err
}

// put writes e, If-Match version if exists, If-None-Match: * otherwise.
func (s *S3Store) put(ctx context.Context, exists bool, version string, e Entry) (Entry, error) {
	body, err := json.Marshal(s3Entry{Holder: e.Holder, Token: e.Token, Nonce: e.Nonce, TermMS: e.Term.Milliseconds(), Released: e.Released})
	if err != nil {
		return Entry{}, fmt.Errorf("leadermgr: encode the entry: %w", err)
	}
	if !exists {
		version = "" // If-None-Match: *
	}
	etag, err := s.kit.Put(ctx, s.key, body, lockkit.Condition{ETag: version})
	if err != nil {
		switch c := protocol.ClassifyError(err); {
		case c == protocol.ClassPreconditionFailed, c == protocol.ClassNotFound, c == protocol.ClassConflict,
			exists && protocol.ObjectMissing(err):
			return Entry{}, fmt.Errorf("%w: %w", ErrConflict, err)
		}
		return Entry{}, fmt.Errorf("leadermgr: s3 write: %w", err)
	}
	e.Version = etag
	return e, nil
}
