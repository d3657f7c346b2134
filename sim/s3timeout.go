package sim

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// simEndpoint is the S3 endpoint the simulated client's requests name in
// errors that carry their URL: the SDK's default for us-east-1.
const simEndpoint = "https://s3.us-east-1.amazonaws.com"

// msgClientTimeout is the text of net/http's error when http.Client.Timeout
// passes before the response headers arrive.
const msgClientTimeout = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"

// clientTimeout returns the error aws-sdk-go-v2 returns, without retries,
// when its HTTP client's Timeout passes before the answer to op, sent to
// rawURL, arrives:
//
//	*smithy.OperationError{ServiceID: "S3", OperationName: op}
//	  -> *s3ResponseError, *awshttp.ResponseError and *smithyhttp.ResponseError
//	     around an empty response (status 0, no request id)
//	  -> *smithyhttp.RequestSendError
//	  -> *url.Error{Op: "Get", "Put", "Head" or "Delete", URL: rawURL}
//	  -> *clientTimeoutError (net/http's timeoutError)
//
// It is a timeout (net.Error's Timeout reports true), it matches
// context.DeadlineExceeded with errors.Is, it carries no S3 error code and no
// status, and the SDK's standard retryer retries it.
func clientTimeout(op, rawURL string) error {
	resp := &http.Response{Header: http.Header{}, Body: http.NoBody}
	send := &smithyhttp.RequestSendError{Err: &url.Error{Op: methodOf(op), URL: rawURL, Err: &clientTimeoutError{msgClientTimeout}}}
	return &smithy.OperationError{ServiceID: s3ServiceID, OperationName: op, Err: &s3ResponseError{
		ResponseError: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: send},
		},
	}}
}

// clientTimeoutError mirrors net/http's timeoutError, which cannot be built
// outside net/http: same text, same methods.
type clientTimeoutError struct{ err string }

func (e *clientTimeoutError) Error() string { return e.err }

// Timeout reports true: the error is a timeout.
func (e *clientTimeoutError) Timeout() bool { return true }

// Temporary reports true, as net/http's does.
func (e *clientTimeoutError) Temporary() bool { return true }

// Is matches context.DeadlineExceeded.
func (e *clientTimeoutError) Is(err error) bool { return err == context.DeadlineExceeded }

// methodOf is the url.Error Op of an operation: its HTTP method as net/http
// spells it there.
func methodOf(op string) string {
	switch op {
	case OpPutObject:
		return "Put"
	case OpHeadObject:
		return "Head"
	case OpDeleteObject:
		return "Delete"
	}
	return "Get"
}

// requestURL is the URL the SDK sends op to for bucket and key (for
// ListObjectsV2, key is the prefix), at endpoint: virtual-hosted style
// (https://bucket.s3...) unless pathStyle, as the SDK does for a bucket
// whose name cannot be a host name.
func requestURL(endpoint string, pathStyle bool, op, bucket, key string) string {
	base, path := endpoint, "/"+bucket
	if !pathStyle {
		scheme, host, _ := strings.Cut(endpoint, "://")
		base, path = scheme+"://"+bucket+"."+host, ""
	}
	switch op {
	case OpListObjectsV2:
		if path == "" {
			path = "/"
		}
		u := base + path + "?list-type=2"
		if key != "" {
			u += "&prefix=" + escape(key, false)
		}
		return u
	case OpHeadObject:
		return base + path + "/" + escape(key, true)
	}
	return base + path + "/" + escape(key, true) + "?x-id=" + op
}

// simRequestURL is requestURL at the simulator's endpoint.
func simRequestURL(op, bucket, key string) string {
	return requestURL(simEndpoint, !hostableBucket(bucket), op, bucket, key)
}

// hostableBucket reports whether the SDK puts bucket in the host name over
// HTTPS: 3 to 63 lower-case letters, digits and hyphens, beginning and
// ending with a letter or digit.
func hostableBucket(bucket string) bool {
	if len(bucket) < 3 || len(bucket) > 63 || bucket[0] == '-' || bucket[len(bucket)-1] == '-' {
		return false
	}
	for i := 0; i < len(bucket); i++ {
		if c := bucket[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// escape percent-encodes every byte of s but the unreserved characters (and
// '/' if keepSlash), as the SDK encodes a key in a path or a query value.
func escape(s string, keepSlash bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && keepSlash {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
