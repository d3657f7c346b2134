package sim

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// TestTimedOutPutStillApplies checks the ambiguous outcome at the heart of
// S3 error handling: a caller whose context ends while its PutObject is in
// flight gets the SDK's cancellation error at once, and the write is still
// applied when it reaches S3.
func TestTimedOutPutStillApplies(t *testing.T) {
	var putErr error
	var returned time.Duration
	var w *World
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tctx, cancel := env.Clock.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, putErr = env.Store.PutObject(tctx, &s3.PutObjectInput{
			Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
			Body: bytes.NewReader([]byte("hello")), IfNoneMatch: aws.String("*"),
		})
		returned = w.Now()
		return nil
	})
	cfg.S3Request = Latency{Min: 200 * time.Millisecond}
	cfg.Setup = func(world *World) { w = world }
	res := mustRun(t, cfg)

	var opErr *smithy.OperationError
	var canceled *smithy.CanceledError
	if !errors.As(putErr, &opErr) || opErr.Operation() != "PutObject" || !errors.As(putErr, &canceled) ||
		!errors.Is(putErr, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want the SDK's OperationError around a CanceledError with DeadlineExceeded", putErr)
	}
	if returned != 50*time.Millisecond {
		t.Fatalf("the call returned at %v, want at the 50ms timeout", returned)
	}
	body, _, ok := w.Store().Object("b", "k")
	if !ok || string(body) != "hello" {
		t.Fatalf("object after the run = %q, %v; the abandoned write must still apply", body, ok)
	}
	var applied, abandoned bool
	for _, e := range res.Trace.Events {
		switch e.Kind {
		case EvS3Apply:
			applied = e.At == 200*time.Millisecond && e.Status == 200
		case EvS3Abandon:
			abandoned = e.At == 50*time.Millisecond
		}
	}
	if !applied || !abandoned {
		t.Fatalf("trace lacks the abandon at 50ms and the apply at 200ms:\n%v", res.Trace.Events)
	}
}

// TestAnswersArriveAfterTheyApply checks that whatever the latencies, every
// answer reaches the node strictly after S3 applied the request, and that
// requests from one node are applied in the order of their apply instants.
func TestAnswersArriveAfterTheyApply(t *testing.T) {
	cfg := testConfig(3, 10*time.Second, func(ctx context.Context, env Env) error {
		for ctx.Err() == nil {
			_, _ = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
		}
		return nil
	})
	cfg.S3Request = Latency{Min: 0, Max: 3 * time.Millisecond}
	cfg.S3Response = Latency{Min: 0, Max: 3 * time.Millisecond}
	res := mustRun(t, cfg)
	applied := map[uint64]time.Duration{}
	returns := 0
	for _, e := range res.Trace.Events {
		switch e.Kind {
		case EvS3Apply:
			applied[e.Call] = e.At
		case EvS3Return:
			at, ok := applied[e.Call]
			if !ok || at >= e.At {
				t.Fatalf("call #%d returned at %v, applied at %v (ok=%v)", e.Call, e.At, at, ok)
			}
			returns++
		}
	}
	if returns < 1000 {
		t.Fatalf("only %d answers", returns)
	}
}

// TestSameSeedSameHash and its converse are the in-process half of the
// determinism check (the cross-process half is in cmd/simrun).
func TestSameSeedSameHash(t *testing.T) {
	run := func(seed uint64) uint64 {
		cfg := testConfig(3, 5*time.Second, func(ctx context.Context, env Env) error {
			for ctx.Err() == nil {
				_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
					Body: bytes.NewReader([]byte(env.Identity))})
				_ = env.Clock.Sleep(ctx, 10*time.Millisecond)
			}
			return nil
		})
		cfg.Seed = seed
		cfg.KeepTrace = false
		return mustRun(t, cfg).Hash()
	}
	first, again := run(1), run(1)
	if first != again {
		t.Fatal("the same seed gave two different hashes")
	}
	if first == run(2) {
		t.Fatal("two seeds gave the same hash")
	}
}
