package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3lease/s3lease/protocol"
)

// TestClientTimeoutOnLostAnswer checks the client's timeout: a PutObject
// whose answer is lost returns the SDK's timeout error when the timeout has
// passed on the node's own clock, the write still applies, and the protocol
// reads the error as an unknown outcome.
func TestClientTimeoutOnLostAnswer(t *testing.T) {
	const timeout = 2 * time.Second
	for _, drift := range []int64{0, 100_000} {
		var putErr error
		var sent, returned time.Duration // on the node's monotonic clock
		var w *World
		cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
			sent = env.Clock.Monotonic()
			_, putErr = env.Store.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
				Body: bytes.NewReader([]byte("v1")), IfNoneMatch: aws.String("*"),
			})
			returned = env.Clock.Monotonic()
			return nil
		})
		cfg.S3ClientTimeout = timeout
		cfg.Clocks = []ClockModel{{DriftPPM: drift}}
		script := scripted{{Fate: Lost}}
		cfg.Setup = func(world *World) { w = world; w.SetFaults(&script) }
		res := mustRun(t, cfg)

		if got := returned - sent; got != timeout {
			t.Errorf("drift %d: the call returned after %v on the node's clock, want %v", drift, got, timeout)
		}
		var netErr net.Error
		var send *smithyhttp.RequestSendError
		var op *smithy.OperationError
		if !errors.Is(putErr, context.DeadlineExceeded) || !errors.As(putErr, &netErr) || !netErr.Timeout() ||
			!errors.As(putErr, &send) || !errors.As(putErr, &op) || op.Operation() != OpPutObject {
			t.Fatalf("err = %v; want the SDK's client timeout error", putErr)
		}
		if c := protocol.ClassifyError(putErr); c != protocol.ClassUnknownOutcome {
			t.Errorf("ClassifyError = %v, want %v", c, protocol.ClassUnknownOutcome)
		}
		if !retry.NewStandard().IsErrorRetryable(putErr) {
			t.Error("the SDK's standard retryer does not retry the timeout; it retries the real one")
		}
		if body, _, ok := w.Store().Object("b", "k"); !ok || string(body) != "v1" {
			t.Errorf("object = %q, %v; the write must apply although its answer was lost", body, ok)
		}
		if h := res.History.S3[0]; h.Return != -1 || h.Status != 0 {
			t.Errorf("history = %+v; want no answer recorded", h)
		}
		abandoned := false
		for _, e := range res.Trace.Events {
			abandoned = abandoned || e.Kind == EvS3Abandon && strings.Contains(e.Detail, "Client.Timeout")
		}
		if !abandoned {
			t.Errorf("the trace does not record the abandoned call:\n%v", res.Trace.Events)
		}
	}
}

// TestClientTimeoutLeavesOtherCallsAlone checks that an answer that arrives
// in time, and a context that ends first, are unaffected by the timeout.
func TestClientTimeoutLeavesOtherCallsAlone(t *testing.T) {
	var fast, cancelled error
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		in := &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)}
		_, fast = env.Store.GetObject(ctx, in)
		tctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
		defer cancel()
		_, cancelled = env.Store.GetObject(tctx, in) // its answer is lost
		return nil
	})
	cfg.S3ClientTimeout = 2 * time.Second
	script := scripted{{}, {Fate: Lost}}
	cfg.Setup = func(w *World) { w.SetFaults(&script) }
	mustRun(t, cfg)
	var canceled *smithy.CanceledError
	if code(fast) != "NoSuchKey" || !errors.As(cancelled, &canceled) {
		t.Fatalf("got %v and %v; want NoSuchKey and the SDK's cancellation", fast, cancelled)
	}
}

// TestErrFidelityClientTimeout compares the simulated timeout error with what
// a real *s3.Client returns when its http.Client's Timeout passes before a
// loopback server answers.
func TestErrFidelityClientTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select { // no answer until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	client := s3.New(s3.Options{
		Region: "us-east-1", UsePathStyle: true, BaseEndpoint: aws.String(srv.URL),
		Retryer:     aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider("AKIDSIM", "SECRETSIM", ""),
		HTTPClient:  &http.Client{Timeout: 50 * time.Millisecond},
	})
	for _, op := range []string{OpPutObject, OpGetObject, OpHeadObject, OpDeleteObject, OpListObjectsV2} {
		t.Run(op, func(t *testing.T) {
			key := "k"
			if op == OpListObjectsV2 {
				key = ""
			}
			real := callRealS3(t, client, op)
			sim := clientTimeout(op, requestURL(srv.URL, true, op, "b", key))
			assertSameError(t, real, sim)
			var rNet, sNet net.Error
			if !errors.As(real, &rNet) || !errors.As(sim, &sNet) || rNet.Timeout() != sNet.Timeout() {
				t.Errorf("net.Error Timeout: real %v, sim %v", rNet, sNet)
			}
			var rSend, sSend *smithyhttp.RequestSendError
			if !errors.As(real, &rSend) || !errors.As(sim, &sSend) || rSend.ConnectionError() != sSend.ConnectionError() {
				t.Errorf("RequestSendError: real %v, sim %v", rSend, sSend)
			}
			if r, s := errors.Is(real, context.DeadlineExceeded), errors.Is(sim, context.DeadlineExceeded); !r || !s {
				t.Errorf("errors.Is DeadlineExceeded: real %v, sim %v", r, s)
			}
			std := retry.NewStandard()
			if r, s := std.IsErrorRetryable(real), std.IsErrorRetryable(sim); r != s {
				t.Errorf("retryable: real %v, sim %v", r, s)
			}
			if r, s := protocol.ClassifyError(real), protocol.ClassifyError(sim); r != s || s != protocol.ClassUnknownOutcome {
				t.Errorf("ClassifyError: real %v, sim %v", r, s)
			}
		})
	}
}

// TestRequestURLIsTheSDKs compares the URLs the simulated errors name with
// the ones the SDK builds for its default endpoint, virtual-hosted or
// path-style according to the bucket's name.
func TestRequestURLIsTheSDKs(t *testing.T) {
	var seen string
	client := s3.New(s3.Options{
		Region: "us-east-1", Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider("AKIDSIM", "SECRETSIM", ""),
		HTTPClient: roundTripper(func(r *http.Request) (*http.Response, error) {
			seen = r.URL.String()
			return nil, errors.New("not sent")
		}),
	})
	ctx := context.Background()
	for _, bucket := range []string{"b", "my-bucket", "bucket.with.dots"} {
		for _, key := range []string{"k", "leases/a b+c~!"} {
			for _, op := range []string{OpPutObject, OpGetObject, OpHeadObject, OpDeleteObject, OpListObjectsV2} {
				b, k := aws.String(bucket), aws.String(key)
				switch op {
				case OpPutObject:
					_, _ = client.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: k, Body: strings.NewReader("x")})
				case OpGetObject:
					_, _ = client.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: k})
				case OpHeadObject:
					_, _ = client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: k})
				case OpDeleteObject:
					_, _ = client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: k})
				case OpListObjectsV2:
					_, _ = client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b, Prefix: k})
				}
				if want := simRequestURL(op, bucket, key); seen != want {
					t.Errorf("%s %s %q: SDK %s, sim %s", op, bucket, key, seen, want)
				}
			}
		}
	}
}

// roundTripper is an *http.Client whose transport is f.
func roundTripper(f func(*http.Request) (*http.Response, error)) *http.Client {
	return &http.Client{Transport: roundTripFunc(f)}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
