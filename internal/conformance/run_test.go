package conformance

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/s3lease/s3lease/sim"
)

// maxBody bounds how much of a GetObject body Run reads.
const maxBody = 1 << 20

// Run performs c's steps on store in bucket, in order, each within
// stepTimeout, and returns the answer of each step as Observe renders it.
// A step's failure does not stop the case: later steps observe whatever
// state it left.
func Run(ctx context.Context, store sim.S3Client, bucket string, c Case, stepTimeout time.Duration) []string {
	r := runner{store: store, bucket: bucket, c: c, etags: make(map[string]string)}
	answers := make([]string, len(c.Steps))
	for i, s := range c.Steps {
		sctx, cancel := context.WithTimeout(ctx, stepTimeout)
		answers[i] = r.step(sctx, s)
		cancel()
	}
	return answers
}

// runner runs one case.
type runner struct {
	store  sim.S3Client
	bucket string
	c      Case
	// etags maps a body to the ETag the store returned for its last
	// successful write in this case.
	etags map[string]string
}

func (r *runner) key(k string) *string {
	full := r.c.Name + "." + k
	return &full
}

// header resolves a Cond to the header value to send, nil for none.
func (r *runner) header(c Cond) *string {
	var v string
	switch c.kind {
	case condNone:
		return nil
	case condETag, condUnquoted:
		v = r.etags[c.arg]
		if v == "" {
			v = etagOf(c.arg)
		}
		if c.kind == condUnquoted {
			v = strings.Trim(v, `"`)
		}
	case condLiteral:
		v = c.arg
	}
	return &v
}

func (r *runner) step(ctx context.Context, s Step) string {
	bucket, key, ifMatch, ifNoneMatch := &r.bucket, r.key(s.Key), r.header(s.IfMatch), r.header(s.IfNoneMatch)
	switch s.Op {
	case Put:
		out, err := r.store.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: key, Body: strings.NewReader(s.Body),
			ContentLength: aws.Int64(int64(len(s.Body))), IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
		if err != nil {
			return Observe(err, 0, nil, "", nil)
		}
		if out.ETag != nil && *out.ETag != "" {
			r.etags[s.Body] = *out.ETag
		}
		return Observe(nil, successStatus(out.ResultMetadata, http.StatusOK), out.ETag, "", r.bodies())
	case Get:
		out, err := r.store.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: key, IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
		if err != nil {
			return Observe(err, 0, nil, "", nil)
		}
		var body []byte
		if out.Body != nil {
			body, err = io.ReadAll(io.LimitReader(out.Body, maxBody))
			out.Body.Close()
			if err != nil {
				return "error reading body: " + err.Error()
			}
		}
		return Observe(nil, successStatus(out.ResultMetadata, http.StatusOK), out.ETag, string(body), r.bodies())
	case Head:
		out, err := r.store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: bucket, Key: key, IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
		if err != nil {
			return Observe(err, 0, nil, "", nil)
		}
		return Observe(nil, successStatus(out.ResultMetadata, http.StatusOK), out.ETag, "", r.bodies())
	case Delete:
		out, err := r.store.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bucket, Key: key, IfMatch: ifMatch})
		if err != nil {
			return Observe(err, 0, nil, "", nil)
		}
		return Observe(nil, successStatus(out.ResultMetadata, http.StatusNoContent), nil, "", nil)
	case List:
		prefix := r.c.Name + "."
		out, err := r.store.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: bucket, Prefix: &prefix})
		if err != nil {
			return Observe(err, 0, nil, "", nil)
		}
		entries := make([]string, 0, len(out.Contents))
		for _, o := range out.Contents {
			k := ""
			if o.Key != nil {
				k = strings.TrimPrefix(*o.Key, prefix)
			}
			entries = append(entries, k+" "+etagLabel(o.ETag, r.bodies()))
		}
		return strconv.Itoa(successStatus(out.ResultMetadata, http.StatusOK)) + " [" + strings.Join(entries, ", ") + "]"
	}
	return "unknown op " + string(s.Op)
}

// bodies returns the case's bodies, by which ETags and bodies are named.
func (r *runner) bodies() []string {
	var bs []string
	for _, s := range r.c.Steps {
		if s.Body != "" {
			bs = append(bs, s.Body)
		}
	}
	return append(bs, StaleBody)
}

// Observe renders one answer. For an error: the HTTP status of the response
// and the S3 error code the SDK reports ("412 PreconditionFailed"), or
// "error: ..." for an error that is no HTTP answer. For a success: status,
// then "etag=NAME" when an ETag came back (NAME is the body among bodies
// whose quoted MD5 it is, "NAME(unquoted)" for the bare MD5, "other" for
// anything else), then "body=NAME" when body is not empty (a body not among
// bodies is quoted). etag is nil when the call returns no ETag.
func Observe(err error, status int, etag *string, body string, bodies []string) string {
	if err != nil {
		return observeError(err)
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(status))
	if etag != nil {
		b.WriteString(" " + etagLabel(etag, bodies))
	}
	if body != "" {
		b.WriteString(" body=" + bodyLabel(body, bodies))
	}
	return b.String()
}

func observeError(err error) string {
	var respErr *awshttp.ResponseError
	if !errors.As(err, &respErr) {
		msg := err.Error()
		if len(msg) > 80 {
			msg = msg[:80] + "..."
		}
		return "error: " + msg
	}
	s := strconv.Itoa(respErr.HTTPStatusCode())
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() != "" {
		s += " " + apiErr.ErrorCode()
	}
	return s
}

func etagLabel(etag *string, bodies []string) string {
	if etag == nil || *etag == "" {
		return "etag=none"
	}
	for _, b := range bodies {
		q := etagOf(b)
		switch *etag {
		case q:
			return "etag=" + b
		case strings.Trim(q, `"`):
			return "etag=" + b + "(unquoted)"
		}
	}
	return "etag=other"
}

func bodyLabel(body string, bodies []string) string {
	for _, b := range bodies {
		if body == b {
			return b
		}
	}
	if len(body) > 40 {
		body = body[:40] + "..."
	}
	return strconv.Quote(body)
}

// successStatus is the HTTP status of the raw response recorded in md, or
// nominal when there is none (the simulator's store has no HTTP exchange).
func successStatus(md middleware.Metadata, nominal int) int {
	if resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok && resp != nil && resp.Response != nil {
		return resp.StatusCode
	}
	return nominal
}
