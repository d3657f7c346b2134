package protocol

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// newTestClient returns an SDK client for an endpoint on loopback, set up as
// config.LoadDefaultConfig would for a real bucket: path-style addressing,
// static credentials, and the SDK's default checksums (WhenSupported: over
// plain http the CRC32 is sent as an x-amz-checksum-crc32 header, which
// gofakes3 accepts and ignores; s3.New alone would leave it unset, meaning
// no checksum). retryer nil keeps the SDK's standard retryer.
func newTestClient(url string, retryer aws.Retryer) *s3.Client {
	return s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(url),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", ""),
		Retryer:                    retryer,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenSupported,
	})
}

// errorServer answers every request for key "<status>-<code>" with that
// status and an S3 XML error body carrying code ("none" sends no body).
// Key "hang" answers only when the test ends.
func errorServer(t *testing.T) *httptest.Server {
	testDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if key == "hang" {
			<-testDone
			return
		}
		statusText, code, _ := strings.Cut(key, "-")
		status, err := strconv.Atoi(statusText)
		if err != nil {
			http.Error(w, "bad test key", http.StatusTeapot)
			return
		}
		if code == "none" || r.Method == http.MethodHead {
			w.WriteHeader(status)
			return
		}
		if code == "html" { // a proxy's page, which the SDK cannot read as XML
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			fmt.Fprint(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Error</title></head>\n"+
				"<body><h1>The server could not complete your request.</h1><br></body></html>\n")
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+
			`<Error><Code>%s</Code><Message>test message</Message><RequestId>REQ1</RequestId><HostId>HOST1</HostId></Error>`, code)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(testDone) }) // runs first
	return srv
}

func put(ctx context.Context, c *s3.Client, key string) error {
	_, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket:  aws.String("b"),
		Key:     aws.String(key),
		Body:    strings.NewReader("{}"),
		IfMatch: aws.String(`"0123"`),
	})
	return err
}

func TestClassifySDKErrors(t *testing.T) {
	srv := errorServer(t)
	c := newTestClient(srv.URL, aws.NopRetryer{})
	ctx := context.Background()
	tests := []struct {
		key  string
		want ErrorClass
	}{
		{"412-PreconditionFailed", ClassPreconditionFailed},
		{"409-ConditionalRequestConflict", ClassConflict},
		{"409-OperationAborted", ClassConflict},
		{"404-NoSuchKey", ClassNotFound},
		{"404-NoSuchBucket", ClassOther},
		{"500-InternalError", ClassUnknownOutcome},
		{"502-none", ClassUnknownOutcome},
		{"503-SlowDown", ClassUnknownOutcome},
		{"504-none", ClassUnknownOutcome},
		{"400-RequestTimeout", ClassUnknownOutcome},
		{"403-AccessDenied", ClassOther},
		{"400-InvalidArgument", ClassOther},
		// Empty bodies: the SDK falls back to the status text.
		{"412-none", ClassPreconditionFailed},
		{"409-none", ClassConflict},
		{"404-none", ClassNotFound}, // code "NotFound", as HeadObject's 404 for a missing key
	}
	for _, tt := range tests {
		err := put(ctx, c, tt.key)
		if got := ClassifyError(err); got != tt.want {
			t.Errorf("PutObject answered %s: ClassifyError = %v, want %v (%v)", tt.key, got, tt.want, err)
		}
	}

	// GetObject of a missing key: the typed *types.NoSuchKey.
	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String("404-NoSuchKey")})
	if got := ClassifyError(err); got != ClassNotFound {
		t.Errorf("GetObject 404 NoSuchKey: %v (%v)", got, err)
	}
	// HeadObject has no body: code "NotFound" from the status text.
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("b"), Key: aws.String("404-x")})
	if got := ClassifyError(err); got != ClassNotFound {
		t.Errorf("HeadObject 404: %v (%v)", got, err)
	}

	// The per-call timeout.
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = put(tctx, c, "hang")
	if got := ClassifyError(err); got != ClassUnknownOutcome || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timed-out PutObject: %v (%v)", got, err)
	}

	// A connection refused: nothing listens any more.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	err = put(ctx, newTestClient(closed.URL, aws.NopRetryer{}), "412-PreconditionFailed")
	if got := ClassifyError(err); got != ClassUnknownOutcome {
		t.Errorf("PutObject to a closed port: %v (%v)", got, err)
	}

	if got := ClassifyError(nil); got != ClassNone {
		t.Errorf("ClassifyError(nil) = %v", got)
	}
}

// TestObjectMissing holds the GetObject path to the real SDK: a 404 that
// carries no S3 code (a proxy's page the SDK cannot read) means the lock
// object is missing, as NoSuchKey does; NoSuchBucket, a 403 page and a
// write's code-less 404 do not.
func TestObjectMissing(t *testing.T) {
	c := newTestClient(errorServer(t).URL, aws.NopRetryer{})
	ctx := context.Background()
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"404-NoSuchKey", true},
		{"404-html", true},
		{"404-NoSuchBucket", false},
		{"403-html", false},
		{"500-html", false},
		{"412-html", false},
	} {
		_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b"), Key: aws.String(tt.key)})
		if err == nil {
			t.Fatalf("GetObject %s: no error", tt.key)
		}
		if got := ObjectMissing(err); got != tt.want {
			t.Errorf("GetObject answered %s: ObjectMissing = %v, want %v (%v)", tt.key, got, tt.want, err)
		}
	}
	// A write's code-less 404 stays a refusal: it may be NoSuchBucket.
	if got := ClassifyError(put(ctx, c, "404-html")); got != ClassOther {
		t.Errorf("PutObject answered a 404 page: ClassifyError = %v, want other", got)
	}
}

// TestSDKErrorChain pins down the shape the classifier relies on: a
// smithy.APIError with the code, and an *awshttp.ResponseError with the
// status, both reachable with errors.As from the *smithy.OperationError the
// client returns.
func TestSDKErrorChain(t *testing.T) {
	c := newTestClient(errorServer(t).URL, aws.NopRetryer{})
	err := put(context.Background(), c, "412-PreconditionFailed")

	var chain []string
	for e := error(err); e != nil; e = errors.Unwrap(e) {
		chain = append(chain, reflect.TypeOf(e).String())
	}
	t.Logf("error chain: %s", strings.Join(chain, " -> "))

	var op *smithy.OperationError
	if !errors.As(err, &op) || op.Operation() != "PutObject" {
		t.Errorf("no *smithy.OperationError for PutObject in %v", err)
	}
	var resp *awshttp.ResponseError
	if !errors.As(err, &resp) || resp.HTTPStatusCode() != 412 {
		t.Errorf("no *awshttp.ResponseError with status 412 in %v", err)
	}
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "PreconditionFailed" || api.ErrorMessage() != "test message" {
		t.Errorf("no smithy.APIError with code PreconditionFailed in %v", err)
	}
}

func TestErrorClassString(t *testing.T) {
	if s := ClassUnknownOutcome.String(); s != "unknown-outcome" {
		t.Errorf("String() = %q", s)
	}
	if s := ErrorClass(99).String(); s != "ErrorClass(?)" {
		t.Errorf("String() = %q", s)
	}
}
