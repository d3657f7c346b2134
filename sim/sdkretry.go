package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/s3lease/s3lease/protocol"
)

// sdkRetry gives a node's S3 client the behaviour of aws-sdk-go-v2's
// standard retryer, which real clients have by default: up to attempts
// attempts for the errors the SDK itself deems retryable (it asks
// retry.Standard: 500, 502, 503, 504, throttling codes such as SlowDown,
// RequestTimeout, connection errors), never for 409, 412, 404 or a
// cancelled context; exponential backoff with full jitter, capped at 20 s,
// slept on the node's clock with randomness from the node's entropy; and the
// last error wrapped in *retry.MaxAttemptsError as the SDK wraps it. With it
// the classic trap happens as in production: a conditional PutObject is
// applied, its answer is lost to a 500, the retry is answered 412.
//
// Not modelled: the retry quota (token bucket) and client-side rate limiting.
type sdkRetry struct {
	inner    S3Client
	clock    protocol.Clock
	entropy  io.Reader
	attempts int
	std      *retry.Standard
}

var standardRetryer = retry.NewStandard()

func newSDKRetry(inner S3Client, clock protocol.Clock, entropy io.Reader, attempts int) *sdkRetry {
	return &sdkRetry{inner: inner, clock: clock, entropy: entropy, attempts: attempts, std: standardRetryer}
}

// backoff is the SDK's exponential jitter backoff: a uniform fraction of
// min(2^attempt seconds, 20 s).
func (r *sdkRetry) backoff(attempt int) time.Duration {
	limit := 20 * time.Second
	if attempt < 5 {
		limit = time.Duration(1<<attempt) * time.Second
	}
	var b [8]byte
	_, _ = io.ReadFull(r.entropy, b[:])
	return time.Duration(binary.LittleEndian.Uint64(b[:]) % uint64(limit))
}

// do runs attempt until it succeeds, fails in a way the SDK does not retry,
// or runs out of attempts.
func do[T any](ctx context.Context, r *sdkRetry, attempt func() (T, error)) (T, error) {
	var zero T
	for n := 1; ; n++ {
		out, err := attempt()
		if err == nil || ctx.Err() != nil || !r.std.IsErrorRetryable(err) {
			return out, err
		}
		if n >= r.attempts {
			var op *smithy.OperationError
			if errors.As(err, &op) {
				return zero, &smithy.OperationError{ServiceID: op.ServiceID, OperationName: op.OperationName,
					Err: &retry.MaxAttemptsError{Attempt: n, Err: op.Err}}
			}
			return zero, &retry.MaxAttemptsError{Attempt: n, Err: err}
		}
		if serr := r.clock.Sleep(ctx, r.backoff(n)); serr != nil {
			return zero, &smithy.OperationError{ServiceID: "S3", OperationName: operationOf(err), Err: &aws.RequestCanceledError{Err: serr}}
		}
	}
}

func operationOf(err error) string {
	var op *smithy.OperationError
	if errors.As(err, &op) {
		return op.OperationName
	}
	return ""
}

func (r *sdkRetry) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	// The SDK rewinds the body for every attempt; buffer it once.
	var body []byte
	if in != nil && in.Body != nil {
		b, err := readBody(in.Body)
		if err != nil {
			return nil, &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: err}
		}
		body = b
	}
	return do(ctx, r, func() (*s3.PutObjectOutput, error) {
		req := in
		if in != nil && in.Body != nil {
			cp := *in
			cp.Body = bytes.NewReader(body)
			req = &cp
		}
		return r.inner.PutObject(ctx, req, opts...)
	})
}

func (r *sdkRetry) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return do(ctx, r, func() (*s3.GetObjectOutput, error) { return r.inner.GetObject(ctx, in, opts...) })
}

func (r *sdkRetry) HeadObject(ctx context.Context, in *s3.HeadObjectInput, opts ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return do(ctx, r, func() (*s3.HeadObjectOutput, error) { return r.inner.HeadObject(ctx, in, opts...) })
}

func (r *sdkRetry) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, opts ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return do(ctx, r, func() (*s3.DeleteObjectOutput, error) { return r.inner.DeleteObject(ctx, in, opts...) })
}

func (r *sdkRetry) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return do(ctx, r, func() (*s3.ListObjectsV2Output, error) { return r.inner.ListObjectsV2(ctx, in, opts...) })
}
