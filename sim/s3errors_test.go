package sim

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// fakeAnswer is what errorServer sends to the next request.
type fakeAnswer struct {
	status                   int
	code, message, requestID string
	// page, if set, is the body instead of S3's error document: a
	// proxy's error page (text/html).
	page string
}

// s3ErrorServer is a loopback HTTP server that answers every request the way
// S3 answers with an error: the status, x-amz-request-id and x-amz-id-2
// headers, and an XML <Error> document unless the request is a HEAD or the
// status is 304 (those responses have no body).
type s3ErrorServer struct {
	mu     sync.Mutex
	answer fakeAnswer
	srv    *httptest.Server
}

func newS3ErrorServer(t *testing.T) *s3ErrorServer {
	t.Helper()
	es := &s3ErrorServer{}
	es.srv = httptest.NewServer(http.HandlerFunc(es.serve))
	t.Cleanup(es.srv.Close)
	return es
}

func (es *s3ErrorServer) set(a fakeAnswer) {
	es.mu.Lock()
	es.answer = a
	es.mu.Unlock()
}

func (es *s3ErrorServer) serve(w http.ResponseWriter, r *http.Request) {
	es.mu.Lock()
	a := es.answer
	es.mu.Unlock()
	_, _ = io.Copy(io.Discard, r.Body)

	h := w.Header()
	h.Set("X-Amz-Request-Id", a.requestID)
	h.Set("X-Amz-Id-2", hostIDFor(a.requestID))
	h.Set("Server", "AmazonS3")
	if r.Method == http.MethodHead || a.status == http.StatusNotModified {
		w.WriteHeader(a.status)
		return
	}
	if a.page != "" {
		h.Set("Content-Type", "text/html")
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.page)
		return
	}
	var body strings.Builder
	body.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>")
	_ = xml.EscapeText(&body, []byte(a.code))
	body.WriteString("</Code><Message>")
	_ = xml.EscapeText(&body, []byte(a.message))
	body.WriteString("</Message><RequestId>")
	_ = xml.EscapeText(&body, []byte(a.requestID))
	body.WriteString("</RequestId><HostId>")
	_ = xml.EscapeText(&body, []byte(hostIDFor(a.requestID)))
	body.WriteString("</HostId></Error>")
	h.Set("Content-Type", "application/xml")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, body.String())
}

// realS3Client is a real *s3.Client talking to url, without retries.
func realS3Client(url string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		UsePathStyle: true,
		BaseEndpoint: aws.String(url),
		Retryer:      aws.NopRetryer{},
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDSIM", "SECRETSIM", ""),
	})
}

// callRealS3 performs op with the real client on bucket "b", key "k".
func callRealS3(t *testing.T, c *s3.Client, op string) error {
	t.Helper()
	ctx := context.Background()
	var err error
	switch op {
	case OpPutObject:
		_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), Body: strings.NewReader("body")})
	case OpGetObject:
		var out *s3.GetObjectOutput
		out, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("k")})
		if out != nil && out.Body != nil {
			out.Body.Close()
		}
	case OpHeadObject:
		_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("b"), Key: aws.String("k")})
	case OpDeleteObject:
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("b"), Key: aws.String("k")})
	case OpListObjectsV2:
		_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("b")})
	default:
		t.Fatalf("unknown op %q", op)
	}
	return err
}

// assertSameError checks that the simulated error answers every question
// the protocol code asks of an SDK error exactly as the real one does.
func assertSameError(t *testing.T, real, sim error) {
	t.Helper()
	if real == nil || sim == nil {
		t.Fatalf("want two errors, got real=%v sim=%v", real, sim)
	}
	if real.Error() != sim.Error() {
		t.Errorf("Error():\n real %s\n sim  %s", real.Error(), sim.Error())
	}

	var rAPI, sAPI smithy.APIError
	rOK, sOK := errors.As(real, &rAPI), errors.As(sim, &sAPI)
	if rOK != sOK {
		t.Fatalf("errors.As smithy.APIError: real %v, sim %v", rOK, sOK)
	}
	if rOK {
		if r, s := apiErrTypeName(rAPI), apiErrTypeName(sAPI); r != s {
			t.Errorf("API error type: real %s, sim %s", r, s)
		}
		if r, s := rAPI.ErrorCode(), sAPI.ErrorCode(); r != s {
			t.Errorf("ErrorCode: real %q, sim %q", r, s)
		}
		if r, s := rAPI.ErrorMessage(), sAPI.ErrorMessage(); r != s {
			t.Errorf("ErrorMessage: real %q, sim %q", r, s)
		}
		if r, s := rAPI.ErrorFault(), sAPI.ErrorFault(); r != s {
			t.Errorf("ErrorFault: real %v, sim %v", r, s)
		}
	}

	var rResp, sResp *awshttp.ResponseError
	rOK, sOK = errors.As(real, &rResp), errors.As(sim, &sResp)
	if rOK != sOK {
		t.Fatalf("errors.As *awshttp.ResponseError: real %v, sim %v", rOK, sOK)
	}
	if rOK {
		if r, s := rResp.HTTPStatusCode(), sResp.HTTPStatusCode(); r != s {
			t.Errorf("HTTPStatusCode: real %d, sim %d", r, s)
		}
		if r, s := rResp.ServiceRequestID(), sResp.ServiceRequestID(); r != s {
			t.Errorf("ServiceRequestID: real %q, sim %q", r, s)
		}
		if r, s := rResp.Response.Header.Get("X-Amz-Request-Id"), sResp.Response.Header.Get("X-Amz-Request-Id"); r != s {
			t.Errorf("x-amz-request-id: real %q, sim %q", r, s)
		}
	}

	var rSmithyResp, sSmithyResp *smithyhttp.ResponseError
	if r, s := errors.As(real, &rSmithyResp), errors.As(sim, &sSmithyResp); r != s {
		t.Errorf("errors.As *smithyhttp.ResponseError: real %v, sim %v", r, s)
	}

	var rStatus, sStatus interface{ HTTPStatusCode() int }
	rOK, sOK = errors.As(real, &rStatus), errors.As(sim, &sStatus)
	if rOK != sOK {
		t.Errorf("errors.As HTTPStatusCode(): real %v, sim %v", rOK, sOK)
	} else if rOK && rStatus.HTTPStatusCode() != sStatus.HTTPStatusCode() {
		t.Errorf("HTTPStatusCode() via interface: real %d, sim %d", rStatus.HTTPStatusCode(), sStatus.HTTPStatusCode())
	}

	var rHost, sHost interface{ ServiceHostID() string }
	rOK, sOK = errors.As(real, &rHost), errors.As(sim, &sHost)
	if rOK != sOK {
		t.Errorf("errors.As ServiceHostID(): real %v, sim %v", rOK, sOK)
	} else if rOK && rHost.ServiceHostID() != sHost.ServiceHostID() {
		t.Errorf("ServiceHostID: real %q, sim %q", rHost.ServiceHostID(), sHost.ServiceHostID())
	}

	var rNSK, sNSK *types.NoSuchKey
	if r, s := errors.As(real, &rNSK), errors.As(sim, &sNSK); r != s {
		t.Errorf("errors.As *types.NoSuchKey: real %v, sim %v", r, s)
	}
	var rNF, sNF *types.NotFound
	if r, s := errors.As(real, &rNF), errors.As(sim, &sNF); r != s {
		t.Errorf("errors.As *types.NotFound: real %v, sim %v", r, s)
	}
	var rNSB, sNSB *types.NoSuchBucket
	if r, s := errors.As(real, &rNSB), errors.As(sim, &sNSB); r != s {
		t.Errorf("errors.As *types.NoSuchBucket: real %v, sim %v", r, s)
	}

	var rOp, sOp *smithy.OperationError
	rOK, sOK = errors.As(real, &rOp), errors.As(sim, &sOp)
	if rOK != sOK {
		t.Fatalf("errors.As *smithy.OperationError: real %v, sim %v", rOK, sOK)
	}
	if rOK {
		if rOp.Service() != sOp.Service() || rOp.Operation() != sOp.Operation() {
			t.Errorf("OperationError: real %s/%s, sim %s/%s", rOp.Service(), rOp.Operation(), sOp.Service(), sOp.Operation())
		}
	}

	var rParams, sParams smithy.InvalidParamsError
	if r, s := errors.As(real, &rParams), errors.As(sim, &sParams); r != s {
		t.Errorf("errors.As smithy.InvalidParamsError: real %v, sim %v", r, s)
	}
	var rSer, sSer *smithy.SerializationError
	if r, s := errors.As(real, &rSer), errors.As(sim, &sSer); r != s {
		t.Errorf("errors.As *smithy.SerializationError: real %v, sim %v", r, s)
	}
}

func apiErrTypeName(v any) string {
	switch v.(type) {
	case *smithy.GenericAPIError:
		return "*smithy.GenericAPIError"
	case *types.NoSuchKey:
		return "*types.NoSuchKey"
	case *types.NotFound:
		return "*types.NotFound"
	case *types.NoSuchBucket:
		return "*types.NoSuchBucket"
	case *types.InvalidObjectState:
		return "*types.InvalidObjectState"
	case *types.InvalidRequest:
		return "*types.InvalidRequest"
	default:
		return "other"
	}
}

// TestErrFidelityConstructors compares each error constructor with what a
// real *s3.Client returns for the corresponding S3 answer.
func TestErrFidelityConstructors(t *testing.T) {
	es := newS3ErrorServer(t)
	client := realS3Client(es.srv.URL)

	cases := []struct {
		name                  string
		op                    string
		status                int
		code, message         string
		sim                   func(op, rid string) error
		wantCode              string
		wantNoSuchKey, wantNF bool
		wantNoSuchBucketTyped bool
	}{
		{name: "PutObject 412", op: OpPutObject, status: 412, code: "PreconditionFailed", message: msgPreconditionFailed, sim: PreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "PutObject 409", op: OpPutObject, status: 409, code: "ConditionalRequestConflict", message: msgConflict, sim: ConditionalRequestConflict, wantCode: "ConditionalRequestConflict"},
		{name: "PutObject 404 NoSuchKey", op: OpPutObject, status: 404, code: "NoSuchKey", message: msgNoSuchKey, sim: NoSuchKey, wantCode: "NoSuchKey"},
		{name: "PutObject 404 NoSuchBucket", op: OpPutObject, status: 404, code: "NoSuchBucket", message: msgNoSuchBucket, sim: NoSuchBucket, wantCode: "NoSuchBucket"},
		{name: "PutObject 500", op: OpPutObject, status: 500, code: "InternalError", message: msgInternalError, sim: InternalError, wantCode: "InternalError"},
		{name: "PutObject 503", op: OpPutObject, status: 503, code: "SlowDown", message: msgSlowDown, sim: SlowDown, wantCode: "SlowDown"},
		{name: "PutObject 429", op: OpPutObject, status: 429, code: "TooManyRequests", message: msgTooManyRequests, sim: TooManyRequests, wantCode: "TooManyRequests"},
		{name: "GetObject 429", op: OpGetObject, status: 429, code: "TooManyRequests", message: msgTooManyRequests, sim: TooManyRequests, wantCode: "TooManyRequests"},
		{name: "PutObject 403", op: OpPutObject, status: 403, code: "AccessDenied", message: msgAccessDenied, sim: AccessDenied, wantCode: "AccessDenied"},
		{name: "GetObject 403", op: OpGetObject, status: 403, code: "AccessDenied", message: msgAccessDenied, sim: AccessDenied, wantCode: "AccessDenied"},
		{name: "HeadObject 403", op: OpHeadObject, status: 403, code: "AccessDenied", message: msgAccessDenied, sim: AccessDenied, wantCode: "Forbidden"},
		{name: "DeleteObject 403", op: OpDeleteObject, status: 403, code: "AccessDenied", message: msgAccessDenied, sim: AccessDenied, wantCode: "AccessDenied"},
		{name: "PutObject 501", op: OpPutObject, status: 501, code: "NotImplemented", message: msgNotImplemented, sim: notImplemented, wantCode: "NotImplemented"},
		{name: "GetObject 404", op: OpGetObject, status: 404, code: "NoSuchKey", message: msgNoSuchKey, sim: NoSuchKey, wantCode: "NoSuchKey", wantNoSuchKey: true},
		{name: "GetObject 404 NoSuchBucket", op: OpGetObject, status: 404, code: "NoSuchBucket", message: msgNoSuchBucket, sim: NoSuchBucket, wantCode: "NoSuchBucket"},
		{name: "GetObject 412", op: OpGetObject, status: 412, code: "PreconditionFailed", message: msgPreconditionFailed, sim: PreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "GetObject 304", op: OpGetObject, status: 304, sim: NotModified, wantCode: "NotModified"},
		{name: "GetObject 500", op: OpGetObject, status: 500, code: "InternalError", message: msgInternalError, sim: InternalError, wantCode: "InternalError"},
		{name: "HeadObject 404", op: OpHeadObject, status: 404, code: "NoSuchKey", message: msgNoSuchKey, sim: NoSuchKey, wantCode: "NotFound", wantNF: true},
		{name: "HeadObject 404 NoSuchBucket", op: OpHeadObject, status: 404, code: "NoSuchBucket", message: msgNoSuchBucket, sim: NoSuchBucket, wantCode: "NotFound", wantNF: true},
		{name: "HeadObject 412", op: OpHeadObject, status: 412, code: "PreconditionFailed", message: msgPreconditionFailed, sim: PreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "HeadObject 304", op: OpHeadObject, status: 304, sim: NotModified, wantCode: "NotModified"},
		{name: "HeadObject 500", op: OpHeadObject, status: 500, code: "InternalError", message: msgInternalError, sim: InternalError, wantCode: "InternalServerError"},
		{name: "HeadObject 503", op: OpHeadObject, status: 503, code: "SlowDown", message: msgSlowDown, sim: SlowDown, wantCode: "ServiceUnavailable"},
		{name: "HeadObject 409", op: OpHeadObject, status: 409, code: "ConditionalRequestConflict", message: msgConflict, sim: ConditionalRequestConflict, wantCode: "Conflict"},
		{name: "DeleteObject 412", op: OpDeleteObject, status: 412, code: "PreconditionFailed", message: msgPreconditionFailed, sim: PreconditionFailed, wantCode: "PreconditionFailed"},
		{name: "DeleteObject 404 NoSuchKey", op: OpDeleteObject, status: 404, code: "NoSuchKey", message: msgNoSuchKey, sim: NoSuchKey, wantCode: "NoSuchKey"},
		{name: "DeleteObject 409", op: OpDeleteObject, status: 409, code: "ConditionalRequestConflict", message: msgConflict, sim: ConditionalRequestConflict, wantCode: "ConditionalRequestConflict"},
		{name: "DeleteObject 503", op: OpDeleteObject, status: 503, code: "SlowDown", message: msgSlowDown, sim: SlowDown, wantCode: "SlowDown"},
		{name: "ListObjectsV2 404 NoSuchBucket", op: OpListObjectsV2, status: 404, code: "NoSuchBucket", message: msgNoSuchBucket, sim: NoSuchBucket, wantCode: "NoSuchBucket", wantNoSuchBucketTyped: true},
		{name: "ListObjectsV2 400 InvalidArgument", op: OpListObjectsV2, status: 400, code: "InvalidArgument", message: msgBadToken,
			sim: func(op, rid string) error { return invalidArgument(op, msgBadToken, rid) }, wantCode: "InvalidArgument"},
		{name: "ListObjectsV2 500", op: OpListObjectsV2, status: 500, code: "InternalError", message: msgInternalError, sim: InternalError, wantCode: "InternalError"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rid := formatRequestID(uint64(1000 + i))
			es.set(fakeAnswer{status: tc.status, code: tc.code, message: tc.message, requestID: rid})
			real := callRealS3(t, client, tc.op)
			sim := tc.sim(tc.op, rid)
			assertSameError(t, real, sim)

			// And the facts the protocol code relies on, stated outright.
			var apiErr smithy.APIError
			if !errors.As(sim, &apiErr) || apiErr.ErrorCode() != tc.wantCode {
				t.Errorf("sim ErrorCode = %v, want %q", apiErr, tc.wantCode)
			}
			var respErr *awshttp.ResponseError
			if !errors.As(sim, &respErr) || respErr.HTTPStatusCode() != tc.status {
				t.Errorf("sim status = %v, want %d", respErr, tc.status)
			}
			var nsk *types.NoSuchKey
			if got := errors.As(sim, &nsk); got != tc.wantNoSuchKey {
				t.Errorf("sim errors.As *types.NoSuchKey = %v, want %v", got, tc.wantNoSuchKey)
			}
			var nf *types.NotFound
			if got := errors.As(sim, &nf); got != tc.wantNF {
				t.Errorf("sim errors.As *types.NotFound = %v, want %v", got, tc.wantNF)
			}
			var nsb *types.NoSuchBucket
			if got := errors.As(sim, &nsb); got != tc.wantNoSuchBucketTyped {
				t.Errorf("sim errors.As *types.NoSuchBucket = %v, want %v", got, tc.wantNoSuchBucketTyped)
			}
		})
	}
}

// TestErrFidelityStore drives the store into each of its error answers and
// compares the error with what the real client returns when a server gives
// the same answer (same status, code and request id).
func TestErrFidelityStore(t *testing.T) {
	es := newS3ErrorServer(t)
	client := realS3Client(es.srv.URL)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	put := func(s *Store, body string) string {
		out, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k")}, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return *out.ETag
	}

	cases := []struct {
		name          string
		op            string
		status        int
		code, message string
		run           func(s *Store) error
	}{
		{"PutObject If-None-Match on existing", OpPutObject, 412, "PreconditionFailed", msgPreconditionFailed, func(s *Store) error {
			put(s, "x")
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfNoneMatch: aws.String("*")}, []byte("y"))
			return err
		}},
		{"PutObject If-Match on missing", OpPutObject, 404, "NoSuchKey", msgNoSuchKey, func(s *Store) error {
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfMatch: aws.String(`"00"`)}, []byte("y"))
			return err
		}},
		{"PutObject If-None-Match with an ETag", OpPutObject, 501, "NotImplemented", msgNotImplemented, func(s *Store) error {
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfNoneMatch: aws.String(`"00"`)}, []byte("y"))
			return err
		}},
		{"PutObject missing bucket", OpPutObject, 404, "NoSuchBucket", msgNoSuchBucket, func(s *Store) error {
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("nobucket"), Key: aws.String("k")}, []byte("y"))
			return err
		}},
		{"GetObject missing", OpGetObject, 404, "NoSuchKey", msgNoSuchKey, func(s *Store) error {
			_, err := s.GetObject(now, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("k")})
			return err
		}},
		{"GetObject If-Match mismatch", OpGetObject, 412, "PreconditionFailed", msgPreconditionFailed, func(s *Store) error {
			put(s, "x")
			_, err := s.GetObject(now, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfMatch: aws.String(`"00"`)})
			return err
		}},
		{"GetObject If-None-Match match", OpGetObject, 304, "", "", func(s *Store) error {
			etag := put(s, "x")
			_, err := s.GetObject(now, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfNoneMatch: aws.String(etag)})
			return err
		}},
		{"HeadObject missing", OpHeadObject, 404, "NoSuchKey", msgNoSuchKey, func(s *Store) error {
			_, err := s.HeadObject(now, &s3.HeadObjectInput{Bucket: aws.String("b"), Key: aws.String("k")})
			return err
		}},
		{"HeadObject missing bucket", OpHeadObject, 404, "NoSuchBucket", msgNoSuchBucket, func(s *Store) error {
			_, err := s.HeadObject(now, &s3.HeadObjectInput{Bucket: aws.String("nobucket"), Key: aws.String("k")})
			return err
		}},
		{"HeadObject If-Match mismatch", OpHeadObject, 412, "PreconditionFailed", msgPreconditionFailed, func(s *Store) error {
			put(s, "x")
			_, err := s.HeadObject(now, &s3.HeadObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfMatch: aws.String(`"00"`)})
			return err
		}},
		{"HeadObject If-None-Match match", OpHeadObject, 304, "", "", func(s *Store) error {
			etag := put(s, "x")
			_, err := s.HeadObject(now, &s3.HeadObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfNoneMatch: aws.String(etag)})
			return err
		}},
		{"DeleteObject If-Match mismatch", OpDeleteObject, 412, "PreconditionFailed", msgPreconditionFailed, func(s *Store) error {
			put(s, "x")
			_, err := s.DeleteObject(now, &s3.DeleteObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfMatch: aws.String(`"00"`)})
			return err
		}},
		{"DeleteObject If-Match missing", OpDeleteObject, 404, "NoSuchKey", msgNoSuchKey, func(s *Store) error {
			_, err := s.DeleteObject(now, &s3.DeleteObjectInput{Bucket: aws.String("b"), Key: aws.String("k"), IfMatch: aws.String(`"00"`)})
			return err
		}},
		{"ListObjectsV2 missing bucket", OpListObjectsV2, 404, "NoSuchBucket", msgNoSuchBucket, func(s *Store) error {
			_, err := s.ListObjectsV2(now, &s3.ListObjectsV2Input{Bucket: aws.String("nobucket")})
			return err
		}},
		{"ListObjectsV2 bad token", OpListObjectsV2, 400, "InvalidArgument", msgBadToken, func(s *Store) error {
			_, err := s.ListObjectsV2(now, &s3.ListObjectsV2Input{Bucket: aws.String("b"), ContinuationToken: aws.String("garbage")})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(DialectAWS)
			s.CreateBucket("b")
			sim := tc.run(s)
			var respErr *awshttp.ResponseError
			if !errors.As(sim, &respErr) {
				t.Fatalf("store returned %v, want an HTTP response error", sim)
			}
			es.set(fakeAnswer{status: tc.status, code: tc.code, message: tc.message, requestID: respErr.ServiceRequestID()})
			assertSameError(t, callRealS3(t, client, tc.op), sim)
		})
	}
}

// TestErrFidelityValidation compares the store's answers to inputs the SDK
// refuses before sending anything.
func TestErrFidelityValidation(t *testing.T) {
	es := newS3ErrorServer(t)
	es.set(fakeAnswer{status: 500, code: "InternalError", message: "request should not have been sent", requestID: "X"})
	client := realS3Client(es.srv.URL)
	ctx := context.Background()
	now := time.Unix(0, 0)
	s := NewStore(DialectAWS)
	s.CreateBucket("b")

	cases := []struct {
		name string
		real func() error
		sim  func() error
	}{
		{"PutObject nil Key", func() error {
			_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("b"), Body: strings.NewReader("x")})
			return err
		}, func() error {
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b")}, []byte("x"))
			return err
		}},
		{"PutObject nil Bucket and Key", func() error {
			_, err := client.PutObject(ctx, &s3.PutObjectInput{Body: strings.NewReader("x")})
			return err
		}, func() error {
			_, err := s.PutObject(now, &s3.PutObjectInput{}, []byte("x"))
			return err
		}},
		{"PutObject nil input", func() error {
			_, err := client.PutObject(ctx, nil)
			return err
		}, func() error {
			_, err := s.PutObject(now, nil, nil)
			return err
		}},
		{"PutObject empty Key", func() error {
			_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String(""), Body: strings.NewReader("x")})
			return err
		}, func() error {
			_, err := s.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("b"), Key: aws.String("")}, []byte("x"))
			return err
		}},
		{"GetObject nil Bucket", func() error {
			_, err := client.GetObject(ctx, &s3.GetObjectInput{Key: aws.String("k")})
			return err
		}, func() error {
			_, err := s.GetObject(now, &s3.GetObjectInput{Key: aws.String("k")})
			return err
		}},
		{"HeadObject nil Key", func() error {
			_, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("b")})
			return err
		}, func() error {
			_, err := s.HeadObject(now, &s3.HeadObjectInput{Bucket: aws.String("b")})
			return err
		}},
		{"DeleteObject empty Key", func() error {
			_, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("b"), Key: aws.String("")})
			return err
		}, func() error {
			_, err := s.DeleteObject(now, &s3.DeleteObjectInput{Bucket: aws.String("b"), Key: aws.String("")})
			return err
		}},
		{"ListObjectsV2 nil Bucket", func() error {
			_, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{})
			return err
		}, func() error {
			_, err := s.ListObjectsV2(now, &s3.ListObjectsV2Input{})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertSameError(t, tc.real(), tc.sim())
		})
	}
}

// TestErrAPIErrorBodyRules checks the SDK's rules for incomplete error
// bodies against a real client.
func TestErrAPIErrorBodyRules(t *testing.T) {
	es := newS3ErrorServer(t)
	client := realS3Client(es.srv.URL)
	for _, tc := range []struct {
		name          string
		status        int
		code, message string
	}{
		{"code only", 400, "SomeCode", ""},
		{"message only", 400, "", "some message"},
		{"nosuchkey lower case", 404, "nosuchkey", "m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es.set(fakeAnswer{status: tc.status, code: tc.code, message: tc.message, requestID: "RID1"})
			for _, op := range []string{OpGetObject, OpPutObject} {
				assertSameError(t, callRealS3(t, client, op), APIError(op, tc.status, tc.code, tc.message, "RID1"))
			}
		})
	}
}

// TestStatusOfFastPath checks that statusOf reads the errors APIError
// builds as errors.As does.
func TestStatusOfFastPath(t *testing.T) {
	for _, op := range []string{OpPutObject, OpGetObject, OpHeadObject, OpDeleteObject, OpListObjectsV2} {
		for _, err := range []error{PreconditionFailed(op, "r"), NoSuchKey(op, "r"), NoSuchBucket(op, "r"), InternalError(op, "r"),
			SlowDown(op, "r"), TooManyRequests(op, "r"), NotModified(op, "r"), ConditionalRequestConflict(op, "r"), notImplemented(op, "r"), AccessDenied(op, "r")} {
			status, code := statusOf(err)
			var hs interface{ HTTPStatusCode() int }
			var api smithy.APIError
			if !errors.As(err, &hs) || !errors.As(err, &api) || hs.HTTPStatusCode() != status || api.ErrorCode() != code {
				t.Errorf("%s: statusOf = %d %q; errors.As finds %v", op, status, code, err)
			}
		}
	}
}

// TestResponseErrorAsFastPath checks that s3ResponseError.As finds what
// errors.As finds in the chain it embeds, for the targets it shortcuts and
// others.
func TestResponseErrorAsFastPath(t *testing.T) {
	for _, op := range []string{OpPutObject, OpGetObject, OpHeadObject, OpDeleteObject, OpListObjectsV2} {
		for _, err := range []error{PreconditionFailed(op, "r"), NoSuchKey(op, "r"), NoSuchBucket(op, "r"), InternalError(op, "r"),
			SlowDown(op, "r"), TooManyRequests(op, "r"), NotModified(op, "r"), ConditionalRequestConflict(op, "r")} {
			var re *s3ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("%v: no s3ResponseError", err)
			}
			var api1, api2 smithy.APIError
			if a, b := re.As(&api1), errors.As(re.ResponseError, &api2); a != b || api1 != api2 {
				t.Errorf("%s %v: APIError %v %v, errors.As %v %v", op, err, a, api1, b, api2)
			}
			var aws1, aws2 *awshttp.ResponseError
			if a, b := re.As(&aws1), errors.As(re.ResponseError, &aws2); a != b || aws1 != aws2 {
				t.Errorf("%s %v: awshttp.ResponseError differs", op, err)
			}
			var sm1, sm2 *smithyhttp.ResponseError
			if a, b := re.As(&sm1), errors.As(re.ResponseError, &sm2); a != b || sm1 != sm2 {
				t.Errorf("%s %v: smithyhttp.ResponseError differs", op, err)
			}
			var nk1, nk2 *types.NoSuchKey
			if a, b := re.As(&nk1), errors.As(re.ResponseError, &nk2); a != b || nk1 != nk2 {
				t.Errorf("%s %v: NoSuchKey differs", op, err)
			}
			var hs1, hs2 interface{ HTTPStatusCode() int }
			if a, b := re.As(&hs1), errors.As(re.ResponseError, &hs2); a != b || hs1 != hs2 {
				t.Errorf("%s %v: HTTPStatusCode differs", op, err)
			}
		}
	}
}

// TestErrFidelityErrorPages: behind a proxy that answers every error with a
// page of its own, the real client's error and ProxiedError's answer every
// question alike, for each operation and status the nodes can get; a
// plain page gives the code the SDK derives from the status text, an HTML
// page that is not XML no code at all, and both keep the status.
func TestErrFidelityErrorPages(t *testing.T) {
	es := newS3ErrorServer(t)
	client := realS3Client(es.srv.URL)
	pages := map[ErrorPages]string{ErrorPagesPlain: ProxyPlainPage, ErrorPagesHTML: ProxyHTMLPage}
	n := 0
	for _, pg := range []ErrorPages{ErrorPagesPlain, ErrorPagesHTML} {
		for _, op := range []string{OpPutObject, OpGetObject, OpHeadObject, OpDeleteObject} {
			for _, status := range []int{403, 404, 409, 412, 429, 500, 502, 503} {
				n++
				rid := formatRequestID(uint64(5000 + n))
				es.set(fakeAnswer{status: status, requestID: rid, page: pages[pg]})
				real := callRealS3(t, client, op)
				sim := ProxiedError(op, status, rid, pg)
				t.Run(fmt.Sprintf("%s %s %d", pg, op, status), func(t *testing.T) {
					assertSameError(t, real, sim)
					var apiErr smithy.APIError
					hasCode := errors.As(sim, &apiErr)
					if want := pg == ErrorPagesPlain || op == OpHeadObject; hasCode != want {
						t.Errorf("an error code: %v, want %v", hasCode, want)
					}
					if hasCode && op != OpHeadObject && apiErr.ErrorCode() != strings.ReplaceAll(http.StatusText(status), " ", "") {
						t.Errorf("code %q, want the status text's", apiErr.ErrorCode())
					}
				})
			}
		}
	}
}
