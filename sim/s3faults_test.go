package sim

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// scripted gives the n-th request the n-th fault and later ones none.
type scripted []RequestFault

func (s *scripted) RequestFault(*World, Request) RequestFault {
	if len(*s) == 0 {
		return RequestFault{}
	}
	f := (*s)[0]
	*s = (*s)[1:]
	return f
}

// putOnce runs one conditional create on a single node with the given
// faults and retry attempts, and returns the error and whether the object
// exists at the end.
func putOnce(t *testing.T, attempts int, faults ...RequestFault) (error, bool, *Result) {
	t.Helper()
	var putErr error
	var w *World
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tctx, cancel := env.Clock.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, putErr = env.Store.PutObject(tctx, &s3.PutObjectInput{
			Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
			Body: bytes.NewReader([]byte("v1")), IfNoneMatch: aws.String("*"),
		})
		return nil
	})
	cfg.S3Attempts = attempts
	script := scripted(faults)
	cfg.Setup = func(world *World) { w = world; w.SetFaults(&script) }
	res := mustRun(t, cfg)
	_, _, ok := w.Store().Object("b", "k")
	return putErr, ok, res
}

func code(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

func TestFates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   RequestFault
		code    string
		applied bool
		check   func(error) bool
	}{
		{"refused before", RequestFault{Fate: RefusedBefore, Err: SlowDown}, "SlowDown", false, nil},
		{"409 before", RequestFault{Fate: RefusedBefore, Err: ConditionalRequestConflict}, "ConditionalRequestConflict", false, nil},
		{"failed after", RequestFault{Fate: FailedAfter, Err: InternalError}, "InternalError", true, nil},
		{"lost", RequestFault{Fate: Lost}, "", true, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"dropped", RequestFault{Fate: Dropped}, "", false, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"unreachable", RequestFault{Fate: Unreachable}, "", false, func(err error) bool {
			var send *smithyhttp.RequestSendError
			return errors.As(err, &send) && send.ConnectionError()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, applied, _ := putOnce(t, 1, tc.fault)
			if err == nil || code(err) != tc.code || applied != tc.applied || (tc.check != nil && !tc.check(err)) {
				t.Fatalf("err = %v (code %q), applied = %v; want code %q, applied %v", err, code(err), applied, tc.code, tc.applied)
			}
		})
	}
}

// TestRetryAfterAppliedWriteAnswers412 reproduces the trap of
// docs/s3-semantics.md#ambiguous-outcomes: the conditional create is
// applied, its answer is replaced by a 500, the SDK retries, and the retry
// is answered 412 against the object the first attempt wrote.
func TestRetryAfterAppliedWriteAnswers412(t *testing.T) {
	err, applied, res := putOnce(t, 3, RequestFault{Fate: FailedAfter, Err: InternalError})
	if code(err) != "PreconditionFailed" || !applied {
		t.Fatalf("err = %v, applied = %v; want 412 PreconditionFailed with the object written", err, applied)
	}
	sends := 0
	for _, e := range res.Trace.Events {
		if e.Kind == EvS3Send {
			sends++
		}
	}
	if sends != 2 {
		t.Fatalf("%d requests sent, want the original and one retry", sends)
	}
}

// TestRetriesExhaustedWrapMaxAttempts checks the SDK's final error shape.
func TestRetriesExhaustedWrapMaxAttempts(t *testing.T) {
	f := RequestFault{Fate: RefusedBefore, Err: SlowDown}
	err, applied, _ := putOnce(t, 3, f, f, f)
	var max *retry.MaxAttemptsError
	var op *smithy.OperationError
	if !errors.As(err, &max) || max.Attempt != 3 || code(err) != "SlowDown" || !errors.As(err, &op) || applied {
		t.Fatalf("err = %v; want OperationError{MaxAttemptsError{3, SlowDown}}", err)
	}
}

// TestNoRetryFor412And409 checks that the retryer leaves alone what the SDK
// does not retry.
func TestNoRetryFor412And409(t *testing.T) {
	err, _, res := putOnce(t, 3, RequestFault{Fate: RefusedBefore, Err: ConditionalRequestConflict})
	if code(err) != "ConditionalRequestConflict" {
		t.Fatalf("err = %v", err)
	}
	for _, e := range res.Trace.Events {
		if e.Kind == EvS3Send && e.Call > 1 {
			t.Fatalf("a 409 was retried: %v", e)
		}
	}
}
