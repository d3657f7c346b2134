package conformance

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/sim"
)

// SimStore is the simulator's pure S3 store (sim.Store) behind
// sim.S3Client, with no network, latency or faults in between: each
// call is applied at once, one second of S3 time after the previous one, and
// answers with exactly the values and errors the store returns. It is safe
// for concurrent use (calls are serialized).
type SimStore struct {
	mu    sync.Mutex
	store *sim.Store
	now   time.Time
}

var _ sim.S3Client = (*SimStore)(nil)

// NewSimStore returns an empty simulated store with the semantics of d and
// the given buckets.
func NewSimStore(d sim.Dialect, buckets ...string) *SimStore {
	s := &SimStore{store: sim.NewStore(d), now: sim.Epoch}
	for _, b := range buckets {
		s.store.CreateBucket(b)
	}
	return s
}

// apply applies one request at the next second of S3 time, unless ctx
// has ended.
func apply[T any](ctx context.Context, s *SimStore, req func(now time.Time) (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(time.Second)
	return req(s.now)
}

// PutObject reads params.Body and applies the request.
func (s *SimStore) PutObject(ctx context.Context, params *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	var body []byte
	if params != nil && params.Body != nil && ctx.Err() == nil {
		var err error
		if body, err = io.ReadAll(params.Body); err != nil {
			return nil, err
		}
	}
	return apply(ctx, s, func(now time.Time) (*s3.PutObjectOutput, error) { return s.store.PutObject(now, params, body) })
}

// GetObject applies the request.
func (s *SimStore) GetObject(ctx context.Context, params *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return apply(ctx, s, func(now time.Time) (*s3.GetObjectOutput, error) { return s.store.GetObject(now, params) })
}

// HeadObject applies the request.
func (s *SimStore) HeadObject(ctx context.Context, params *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return apply(ctx, s, func(now time.Time) (*s3.HeadObjectOutput, error) { return s.store.HeadObject(now, params) })
}

// DeleteObject applies the request.
func (s *SimStore) DeleteObject(ctx context.Context, params *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return apply(ctx, s, func(now time.Time) (*s3.DeleteObjectOutput, error) { return s.store.DeleteObject(now, params) })
}

// ListObjectsV2 applies the request.
func (s *SimStore) ListObjectsV2(ctx context.Context, params *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return apply(ctx, s, func(now time.Time) (*s3.ListObjectsV2Output, error) { return s.store.ListObjectsV2(now, params) })
}
