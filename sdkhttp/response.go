package sdkhttp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	smithytime "github.com/aws/smithy-go/time"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3lease/s3lease/sim"
)

// newResponse returns a response to req with status and header and an
// empty body.
func newResponse(req *http.Request, status int, header http.Header) *http.Response {
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          http.NoBody,
		ContentLength: 0,
		Request:       req,
	}
}

// withBody gives resp a body of n bytes read from body.
func withBody(resp *http.Response, body io.ReadCloser, n int64) *http.Response {
	resp.Body = body
	resp.ContentLength = n
	resp.Header.Set("Content-Length", strconv.FormatInt(n, 10))
	return resp
}

// bytesBody is a response body over a byte slice.
func bytesBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

func (c *Client) header() http.Header {
	h := make(http.Header, 8)
	h.Set("X-Amz-Request-Id", c.requestID())
	return h
}

// putResponse is the 200 answer to a PutObject.
func (c *Client) putResponse(req *http.Request, out *s3.PutObjectOutput) *http.Response {
	h := c.header()
	setString(h, "ETag", out.ETag)
	setString(h, "X-Amz-Version-Id", out.VersionId)
	h.Set("Content-Length", "0")
	return newResponse(req, http.StatusOK, h)
}

// objectHeader writes the headers GetObject and HeadObject answers share.
func objectHeader(h http.Header, acceptRanges *string, contentLength *int64, contentType, etag *string,
	lastModified *time.Time, meta map[string]string) {
	setString(h, "Accept-Ranges", acceptRanges)
	setString(h, "Content-Type", contentType)
	setString(h, "ETag", etag)
	if lastModified != nil {
		h.Set("Last-Modified", smithytime.FormatHTTPDate(*lastModified))
	}
	if contentLength != nil {
		h.Set("Content-Length", strconv.FormatInt(*contentLength, 10))
	}
	for k, v := range meta {
		h.Set(metaPrefix+k, v)
	}
}

// getResponse is the 200 answer to a GetObject, with the object's body.
func (c *Client) getResponse(req *http.Request, out *s3.GetObjectOutput) *http.Response {
	h := c.header()
	objectHeader(h, out.AcceptRanges, out.ContentLength, out.ContentType, out.ETag, out.LastModified, out.Metadata)
	resp := newResponse(req, http.StatusOK, h)
	body := out.Body
	if body == nil {
		body = http.NoBody
	}
	n := int64(-1)
	if out.ContentLength != nil {
		n = *out.ContentLength
	}
	resp.Body, resp.ContentLength = body, n
	return resp
}

// headResponse is the 200 answer to a HeadObject: the object's headers and
// no body.
func (c *Client) headResponse(req *http.Request, out *s3.HeadObjectOutput) *http.Response {
	h := c.header()
	objectHeader(h, out.AcceptRanges, out.ContentLength, out.ContentType, out.ETag, out.LastModified, out.Metadata)
	resp := newResponse(req, http.StatusOK, h)
	if out.ContentLength != nil {
		resp.ContentLength = *out.ContentLength
	}
	return resp
}

// deleteResponse is the 204 answer to a DeleteObject.
func (c *Client) deleteResponse(req *http.Request) *http.Response {
	return newResponse(req, http.StatusNoContent, c.header())
}

// listBucketResult is the document of a ListObjectsV2 answer.
type listBucketResult struct {
	XMLName               xml.Name       `xml:"http://s3.amazonaws.com/doc/2006-03-01/ ListBucketResult"`
	Name                  *string        `xml:"Name,omitempty"`
	Prefix                *string        `xml:"Prefix,omitempty"`
	Delimiter             *string        `xml:"Delimiter,omitempty"`
	StartAfter            *string        `xml:"StartAfter,omitempty"`
	ContinuationToken     *string        `xml:"ContinuationToken,omitempty"`
	NextContinuationToken *string        `xml:"NextContinuationToken,omitempty"`
	KeyCount              *int32         `xml:"KeyCount,omitempty"`
	MaxKeys               *int32         `xml:"MaxKeys,omitempty"`
	IsTruncated           *bool          `xml:"IsTruncated,omitempty"`
	EncodingType          string         `xml:"EncodingType,omitempty"`
	Contents              []listObject   `xml:"Contents"`
	CommonPrefixes        []commonPrefix `xml:"CommonPrefixes"`
}

type listObject struct {
	Key          *string `xml:"Key,omitempty"`
	LastModified string  `xml:"LastModified,omitempty"`
	ETag         *string `xml:"ETag,omitempty"`
	Size         *int64  `xml:"Size,omitempty"`
	StorageClass string  `xml:"StorageClass,omitempty"`
}

type commonPrefix struct {
	Prefix *string `xml:"Prefix,omitempty"`
}

// listResponse is the 200 answer to a ListObjectsV2.
func (c *Client) listResponse(req *http.Request, out *s3.ListObjectsV2Output) (*http.Response, error) {
	doc := listBucketResult{
		Name: out.Name, Prefix: out.Prefix, Delimiter: out.Delimiter, StartAfter: out.StartAfter,
		ContinuationToken: out.ContinuationToken, NextContinuationToken: out.NextContinuationToken,
		KeyCount: out.KeyCount, MaxKeys: out.MaxKeys, IsTruncated: out.IsTruncated,
		EncodingType: string(out.EncodingType),
	}
	for _, o := range out.Contents {
		lo := listObject{Key: o.Key, ETag: o.ETag, Size: o.Size, StorageClass: string(o.StorageClass)}
		if o.LastModified != nil {
			lo.LastModified = smithytime.FormatDateTime(*o.LastModified)
		}
		doc.Contents = append(doc.Contents, lo)
	}
	for _, p := range out.CommonPrefixes {
		doc.CommonPrefixes = append(doc.CommonPrefixes, commonPrefix{Prefix: p.Prefix})
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	if err := xml.NewEncoder(&buf).Encode(doc); err != nil {
		return nil, fmt.Errorf("sdkhttp: encoding the ListObjectsV2 answer: %w", err)
	}
	h := c.header()
	h.Set("Content-Type", "application/xml")
	return withBody(newResponse(req, http.StatusOK, h), bytesBody(buf.Bytes()), int64(buf.Len())), nil
}

func setString(h http.Header, name string, v *string) {
	if v != nil {
		h.Set(name, *v)
	}
}

// statusError is implemented by the SDK's (and the simulator's) HTTP
// response errors.
type statusError interface{ HTTPStatusCode() int }

// answerError turns the store's error for req into the answer S3 sent, or,
// if the store's error is no S3 answer (no HTTP status), into the error
// net/http returns.
func answerError(req *http.Request, err error) (*http.Response, error) {
	var se statusError
	if !errors.As(err, &se) || se.HTTPStatusCode() == 0 {
		return nil, sendError(req, err)
	}
	status := se.HTTPStatusCode()
	var requestID, hostID string
	var rid interface{ ServiceRequestID() string }
	if errors.As(err, &rid) {
		requestID = rid.ServiceRequestID()
	}
	var hid interface{ ServiceHostID() string }
	if errors.As(err, &hid) {
		hostID = hid.ServiceHostID()
	}
	h := make(http.Header, 4)
	if requestID != "" {
		h.Set("X-Amz-Request-Id", requestID)
	}
	if hostID != "" {
		h.Set("X-Amz-Id-2", hostID)
	}
	resp := newResponse(req, status, h)
	if req.Method == http.MethodHead || status == http.StatusNotModified {
		// S3 sends these answers without a body: the SDK derives the error
		// code from the status.
		return resp, nil
	}
	if sim.HTMLPage(err) {
		// A proxy's page in place of S3's document (sim.ErrorPages).
		h.Set("Content-Type", "text/html")
		return withBody(resp, bytesBody([]byte(sim.ProxyHTMLPage)), int64(len(sim.ProxyHTMLPage))), nil
	}
	var code, message string
	var api smithy.APIError
	if errors.As(err, &api) {
		code, message = api.ErrorCode(), errorMessage(api)
	}
	body := errorDocument(code, message, requestID, hostID)
	h.Set("Content-Type", "application/xml")
	return withBody(resp, bytesBody(body), int64(len(body))), nil
}

// errorMessage is the <Message> of an API error: the typed errors of
// service/s3/types answer their code when they have no message, which
// means the document had none.
func errorMessage(api smithy.APIError) string {
	switch e := api.(type) {
	case *types.NoSuchKey:
		return deref(e.Message)
	case *types.NotFound:
		return deref(e.Message)
	case *types.NoSuchBucket:
		return deref(e.Message)
	case *types.InvalidObjectState:
		return deref(e.Message)
	case *types.EncryptionTypeMismatch:
		return deref(e.Message)
	case *types.InvalidRequest:
		return deref(e.Message)
	case *types.InvalidWriteOffset:
		return deref(e.Message)
	case *types.TooManyParts:
		return deref(e.Message)
	}
	return api.ErrorMessage()
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// errorDocument is the XML <Error> document of an S3 error answer; empty
// elements are left out.
func errorDocument(code, message, requestID, hostID string) []byte {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString("<Error>")
	for _, el := range [...]struct{ name, value string }{
		{"Code", code}, {"Message", message}, {"RequestId", requestID}, {"HostId", hostID},
	} {
		if el.value == "" {
			continue
		}
		b.WriteString("<" + el.name + ">")
		_ = xml.EscapeText(&b, []byte(el.value))
		b.WriteString("</" + el.name + ">")
	}
	b.WriteString("</Error>")
	return []byte(b.String())
}

// sendError is the error net/http's Client.Do returns when req fails
// without an answer: a *url.Error naming the method and URL, around the
// transport's error. Do's own errors and the store's errors that are
// neither answers nor transport failures are wrapped so that the SDK does
// not retry them (see unansweredError). The simulated store's errors of that kind come
// wrapped as the SDK wraps them (*smithy.OperationError, the response
// errors around an empty response, *smithyhttp.RequestSendError or
// *smithy.CanceledError); they are unwrapped down to the transport's own
// error (a dial error, net/http's client timeout, the context's error), so
// that the SDK wraps it again as it wraps a real one.
func sendError(req *http.Request, err error) error {
	var inner error
	var canceled *smithy.CanceledError
	var send *smithyhttp.RequestSendError
	switch {
	case errors.As(err, &canceled):
		inner = canceled.Err
	case errors.As(err, &send):
		inner = send.Err
	default:
		var u *unansweredError
		if inner = err; !errors.As(err, &u) {
			inner = &unansweredError{err}
		}
	}
	var ue *url.Error
	if errors.As(inner, &ue) {
		inner = ue.Err
	}
	u := ""
	if req.URL != nil {
		u = req.URL.String()
	}
	return &url.Error{Op: urlErrorOp(req.Method), URL: u, Err: inner}
}

// unansweredError is a failure that is neither an S3 answer nor a
// transport failure: a request Do does not support, or an option the
// simulated store does not model. It is not retryable: the SDK's standard
// retryer (and the simulator's retry layer, which asks it) does not try
// again, as the simulator does not on its fast path.
type unansweredError struct{ err error }

func (e *unansweredError) Error() string { return e.err.Error() }

// Unwrap returns the store's or Do's own error.
func (e *unansweredError) Unwrap() error { return e.err }

// RetryableError reports false: see retry.RetryableError.
func (e *unansweredError) RetryableError() bool { return false }

// urlErrorOp is url.Error's Op for an HTTP method, as net/http spells it:
// "Get", "Put", "Head", "Delete".
func urlErrorOp(method string) string {
	if method == "" {
		return "Get"
	}
	return method[:1] + strings.ToLower(method[1:])
}
