package leadermgr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
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
	store       protocol.ObjectStore
	bucket, key string
	clock       protocol.Clock

	mu      sync.Mutex
	seen    string        // version being timed
	seenAt  time.Duration // Monotonic() at the first read that returned it
	highest uint64        // highest token seen or written
}

// NewS3Store returns a LeaseStore on the object bucket/key of store,
// timing entries on clock (nil: protocol.NewRealClock()).
func NewS3Store(store protocol.ObjectStore, bucket, key string, clock protocol.Clock) *S3Store {
	if clock == nil {
		clock = protocol.NewRealClock()
	}
	return &S3Store{store: store, bucket: bucket, key: key, clock: clock}
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
	out, err := s.store.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &s.key})
	if err != nil {
		if protocol.ObjectMissing(err) {
			return snapshot{at: s.clock.Monotonic()}, nil
		}
		return snapshot{}, fmt.Errorf("leadermgr: s3 read: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(out.Body, maxEntryBytes))
	_ = out.Body.Close()
	if err != nil {
		return snapshot{}, fmt.Errorf("leadermgr: s3 read: %w", err)
	}
	snap := snapshot{exists: true, at: s.clock.Monotonic()}
	var e s3Entry
	if json.Unmarshal(body, &e) != nil || e.Holder == "" || e.Token == 0 || e.Nonce == "" || e.TermMS <= 0 {
		snap.bad = true
	} else {
		snap.entry = Entry{Holder: e.Holder, Token: e.Token, Nonce: e.Nonce, Term: time.Duration(e.TermMS) * time.Millisecond, Released: e.Released}
	}
	snap.entry.Version = aws.ToString(out.ETag)
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
	in := &s3.PutObjectInput{Bucket: &s.bucket, Key: &s.key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")}
	if exists {
		in.IfMatch = aws.String(version)
	} else {
		in.IfNoneMatch = aws.String("*")
	}
	out, err := s.store.PutObject(ctx, in)
	if err != nil {
		switch c := protocol.ClassifyError(err); {
		case c == protocol.ClassPreconditionFailed, c == protocol.ClassNotFound, c == protocol.ClassConflict,
			exists && protocol.ObjectMissing(err):
			return Entry{}, fmt.Errorf("%w: %w", ErrConflict, err)
		}
		return Entry{}, fmt.Errorf("leadermgr: s3 write: %w", err)
	}
	e.Version = aws.ToString(out.ETag)
	return e, nil
}
