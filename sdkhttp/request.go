package sdkhttp

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithytime "github.com/aws/smithy-go/time"
)

// op is one of the sim.S3Client operations.
type op uint8

const (
	opNone op = iota
	opPutObject
	opGetObject
	opHeadObject
	opDeleteObject
	opListObjectsV2
)

// request is a parsed S3 REST request: its operation and the input of the
// store call that answers it (one of the pointers is set).
type request struct {
	op   op
	put  *s3.PutObjectInput
	get  *s3.GetObjectInput
	head *s3.HeadObjectInput
	del  *s3.DeleteObjectInput
	list *s3.ListObjectsV2Input
}

// objectQuery lists the query parameters an object operation may carry
// without being another operation (a subresource such as ?tagging, or a
// multipart upload's ?uploadId, names a different operation).
var objectQuery = map[string]bool{
	"x-id": true, "versionId": true, "partNumber": true,
	"response-cache-control": true, "response-content-disposition": true, "response-content-encoding": true,
	"response-content-language": true, "response-content-type": true, "response-expires": true,
}

// listQuery lists the query parameters of ListObjectsV2.
var listQuery = map[string]bool{
	"list-type": true, "prefix": true, "delimiter": true, "start-after": true, "continuation-token": true,
	"max-keys": true, "encoding-type": true, "fetch-owner": true,
}

// parseRequest reads the operation and its input out of an S3 REST request.
func parseRequest(req *http.Request) (request, error) {
	if req.URL == nil {
		return request{}, fmt.Errorf("%w: request without a URL", ErrUnsupported)
	}
	bucket, key, err := address(req.URL)
	if err != nil {
		return request{}, err
	}
	query := req.URL.Query()
	xid := query.Get("x-id")
	switch {
	case key == "" && req.Method == http.MethodGet && query.Get("list-type") == "2" && only(query, listQuery):
		return parseList(bucket, query)
	case key == "" || !only(query, objectQuery):
	case req.Method == http.MethodPut && (xid == "" || xid == "PutObject"):
		return parsePut(req, bucket, key)
	case req.Method == http.MethodGet && (xid == "" || xid == "GetObject"):
		in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
		if err := readConditions(req, &in.IfMatch, &in.IfNoneMatch, &in.IfModifiedSince, &in.IfUnmodifiedSince); err != nil {
			return request{}, err
		}
		in.Range = header(req.Header, "Range")
		in.SSECustomerAlgorithm = header(req.Header, "X-Amz-Server-Side-Encryption-Customer-Algorithm")
		in.VersionId = queryValue(query, "versionId")
		if in.PartNumber, err = queryInt32(query, "partNumber"); err != nil {
			return request{}, err
		}
		return request{op: opGetObject, get: in}, nil
	case req.Method == http.MethodHead && xid == "":
		in := &s3.HeadObjectInput{Bucket: &bucket, Key: &key}
		if err := readConditions(req, &in.IfMatch, &in.IfNoneMatch, &in.IfModifiedSince, &in.IfUnmodifiedSince); err != nil {
			return request{}, err
		}
		in.Range = header(req.Header, "Range")
		in.SSECustomerAlgorithm = header(req.Header, "X-Amz-Server-Side-Encryption-Customer-Algorithm")
		in.VersionId = queryValue(query, "versionId")
		if in.PartNumber, err = queryInt32(query, "partNumber"); err != nil {
			return request{}, err
		}
		return request{op: opHeadObject, head: in}, nil
	case req.Method == http.MethodDelete && (xid == "" || xid == "DeleteObject"):
		in := &s3.DeleteObjectInput{Bucket: &bucket, Key: &key}
		in.IfMatch = header(req.Header, "If-Match")
		in.VersionId = queryValue(query, "versionId")
		if v := header(req.Header, "X-Amz-If-Match-Last-Modified-Time"); v != nil {
			t, err := smithytime.ParseHTTPDate(*v)
			if err != nil {
				return request{}, fmt.Errorf("%w: x-amz-if-match-last-modified-time: %w", ErrUnsupported, err)
			}
			in.IfMatchLastModifiedTime = &t
		}
		if v := header(req.Header, "X-Amz-If-Match-Size"); v != nil {
			n, err := strconv.ParseInt(*v, 10, 64)
			if err != nil {
				return request{}, fmt.Errorf("%w: x-amz-if-match-size: %w", ErrUnsupported, err)
			}
			in.IfMatchSize = &n
		}
		return request{op: opDeleteObject, del: in}, nil
	}
	return request{}, fmt.Errorf("%w: %s %s is not PutObject, GetObject, HeadObject, DeleteObject or ListObjectsV2",
		ErrUnsupported, req.Method, req.URL.RequestURI())
}

// parsePut reads a PutObject request, body included.
func parsePut(req *http.Request, bucket, key string) (request, error) {
	in := &s3.PutObjectInput{Bucket: &bucket, Key: &key}
	in.IfMatch = header(req.Header, "If-Match")
	in.IfNoneMatch = header(req.Header, "If-None-Match")
	in.ContentType = header(req.Header, "Content-Type")
	in.Metadata = metadata(req.Header)
	if v := header(req.Header, "X-Amz-Write-Offset-Bytes"); v != nil {
		n, err := strconv.ParseInt(*v, 10, 64)
		if err != nil {
			return request{}, fmt.Errorf("%w: x-amz-write-offset-bytes: %w", ErrUnsupported, err)
		}
		in.WriteOffsetBytes = &n
	}
	body, err := putBody(req)
	if err != nil {
		return request{}, err
	}
	in.Body = bytes.NewReader(body)
	n := int64(len(body))
	in.ContentLength = &n
	return request{op: opPutObject, put: in}, nil
}

// parseList reads a ListObjectsV2 request.
func parseList(bucket string, query url.Values) (request, error) {
	in := &s3.ListObjectsV2Input{Bucket: &bucket}
	in.Prefix = queryValue(query, "prefix")
	in.Delimiter = queryValue(query, "delimiter")
	in.StartAfter = queryValue(query, "start-after")
	in.ContinuationToken = queryValue(query, "continuation-token")
	if v := queryValue(query, "encoding-type"); v != nil {
		in.EncodingType = types.EncodingType(*v)
	}
	if v := queryValue(query, "fetch-owner"); v != nil {
		b, err := strconv.ParseBool(*v)
		if err != nil {
			return request{}, fmt.Errorf("%w: fetch-owner: %w", ErrUnsupported, err)
		}
		in.FetchOwner = &b
	}
	var err error
	if in.MaxKeys, err = queryInt32(query, "max-keys"); err != nil {
		return request{}, err
	}
	return request{op: opListObjectsV2, list: in}, nil
}

// address returns the bucket and key a request URL names, path-style
// (https://s3.host/bucket/key) or virtual-hosted-style
// (https://bucket.s3.host/key). The key is empty for a bucket operation.
func address(u *url.URL) (bucket, key string, err error) {
	host := u.Hostname()
	path := strings.TrimPrefix(u.Path, "/")
	switch {
	case strings.HasPrefix(host, "s3.") || strings.HasPrefix(host, "s3-"):
		bucket, key, _ = strings.Cut(path, "/")
	default:
		i := strings.Index(host, ".s3.")
		if i < 0 {
			i = strings.Index(host, ".s3-")
		}
		if i <= 0 {
			return "", "", fmt.Errorf("%w: host %q is not an S3 endpoint", ErrUnsupported, host)
		}
		bucket, key = host[:i], path
	}
	if bucket == "" {
		return "", "", fmt.Errorf("%w: %s names no bucket", ErrUnsupported, u.Redacted())
	}
	return bucket, key, nil
}

// only reports whether every parameter of query is in allowed.
func only(query url.Values, allowed map[string]bool) bool {
	for k := range query {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// readConditions reads the conditional headers of a GET or HEAD.
func readConditions(req *http.Request, ifMatch, ifNoneMatch **string, ifModifiedSince, ifUnmodifiedSince **time.Time) error {
	*ifMatch = header(req.Header, "If-Match")
	*ifNoneMatch = header(req.Header, "If-None-Match")
	for _, c := range []struct {
		name string
		dst  **time.Time
	}{{"If-Modified-Since", ifModifiedSince}, {"If-Unmodified-Since", ifUnmodifiedSince}} {
		v := header(req.Header, c.name)
		if v == nil {
			continue
		}
		t, err := smithytime.ParseHTTPDate(*v)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrUnsupported, c.name, err)
		}
		*c.dst = &t
	}
	return nil
}

// header returns the value of a header the request carries, even empty, or
// nil if it has none: the SDK sends a header for every input member that
// is set, and the simulated store tells an empty value from an absent one
// where S3 does.
func header(h http.Header, name string) *string {
	vs, ok := h[name]
	if !ok || len(vs) == 0 {
		return nil
	}
	v := vs[0]
	return &v
}

// queryValue returns a query parameter's value, or nil if it is absent.
func queryValue(q url.Values, name string) *string {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return nil
	}
	v := vs[0]
	return &v
}

// queryInt32 returns an integer query parameter, or nil if it is absent.
func queryInt32(q url.Values, name string) (*int32, error) {
	v := queryValue(q, name)
	if v == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*v, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnsupported, name, err)
	}
	n32 := int32(n)
	return &n32, nil
}

// metaPrefix is the canonical prefix of user-metadata headers.
const metaPrefix = "X-Amz-Meta-"

// metadata returns the user metadata the x-amz-meta-* headers carry, keys
// lower-cased as S3 stores them, or nil if there is none.
func metadata(h http.Header) map[string]string {
	var m map[string]string
	for k, vs := range h {
		if len(k) <= len(metaPrefix) || !strings.EqualFold(k[:len(metaPrefix)], metaPrefix) || len(vs) == 0 {
			continue
		}
		if m == nil {
			m = make(map[string]string)
		}
		m[strings.ToLower(k[len(metaPrefix):])] = vs[0]
	}
	return m
}

// putBody reads a PutObject's payload: the request body, or the payload
// it carries in aws-chunked encoding, which the SDK uses to send a
// trailing checksum (its default over HTTPS). A checksum the request
// carries, in a header or a trailer, is verified when its algorithm is one
// the standard library computes.
func putBody(req *http.Request) ([]byte, error) {
	var body []byte
	checksums := map[string]string{}
	for name, vs := range req.Header {
		if strings.HasPrefix(name, "X-Amz-Checksum-") && name != "X-Amz-Checksum-Type" && len(vs) > 0 {
			checksums[strings.ToLower(name)] = vs[0]
		}
	}
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		chunked := false
		for _, enc := range strings.Split(req.Header.Get("Content-Encoding"), ",") {
			chunked = chunked || strings.TrimSpace(enc) == "aws-chunked"
		}
		if chunked {
			body, err = decodeAWSChunked(req.Body, checksums)
		} else {
			body, err = readBody(req.Body, req.ContentLength)
		}
		_ = req.Body.Close()
		if err != nil {
			return nil, &unansweredError{fmt.Errorf("sdkhttp: reading the request body: %w", err)}
		}
	}
	for name, want := range checksums {
		if got, ok := checksum(name, body); ok && got != want {
			return nil, &unansweredError{fmt.Errorf("sdkhttp: %s is %s, the body's is %s", name, want, got)}
		}
	}
	return body, nil
}

// decodeAWSChunked decodes an aws-chunked body: chunks of a hexadecimal
// size line and that many bytes, a last chunk of size 0, then trailers,
// "name:value" lines, which it adds to trailers, up to an empty line.
func decodeAWSChunked(r io.Reader, trailers map[string]string) ([]byte, error) {
	br := bufio.NewReader(r)
	line := func() (string, error) {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("aws-chunked body: %w", err)
		}
		return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"), nil
	}
	var body []byte
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		sizeText, _, _ := strings.Cut(l, ";") // a chunk signature, if any
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		if err != nil || size < 0 || size > 64<<20 {
			return nil, fmt.Errorf("aws-chunked body: bad chunk size %q", l)
		}
		if size == 0 {
			break
		}
		chunk := make([]byte, size)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, fmt.Errorf("aws-chunked body: chunk of %d bytes: %w", size, err)
		}
		body = append(body, chunk...)
		if l, err := line(); err != nil || l != "" {
			return nil, fmt.Errorf("aws-chunked body: no CRLF after a chunk (%q, %v)", l, err)
		}
	}
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		if l == "" {
			return body, nil
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("aws-chunked body: bad trailer %q", l)
		}
		trailers[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(value)
	}
}

// checksum returns the base64 checksum the header name (x-amz-checksum-*)
// carries for body, if the standard library computes its algorithm.
func checksum(name string, body []byte) (string, bool) {
	var sum []byte
	switch strings.TrimPrefix(name, "x-amz-checksum-") {
	case "crc32":
		sum = binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(body))
	case "crc32c":
		sum = binary.BigEndian.AppendUint32(nil, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	case "sha1":
		s := sha1.Sum(body)
		sum = s[:]
	case "sha256":
		s := sha256.Sum256(body)
		sum = s[:]
	default:
		return "", false
	}
	return base64.StdEncoding.EncodeToString(sum), true
}

// readBody reads a request body, sized in one allocation when its length
// is known.
func readBody(r io.Reader, length int64) ([]byte, error) {
	if length >= 0 && length <= 64<<20 {
		b := make([]byte, length)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("body shorter than its Content-Length %d: %w", length, err)
		}
		return b, nil
	}
	return io.ReadAll(r)
}
