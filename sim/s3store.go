package sim

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Store is the simulator's model of an S3 object store: buckets of objects,
// with the conditional-request semantics of a Dialect.
//
// A Store is pure: it has no goroutines, reads no clock and draws no random
// numbers. The simulator calls one method per request at the single instant
// S3 applies it, passing S3's clock reading; each call is atomic. Its answers
// are the values and errors the SDK's *s3.Client would return, built by the
// constructors of s3errors.go. It never answers 409 or a transient 5xx by
// itself: the simulated client layer injects those.
//
// Request options the model does not cover (versions, ranges, SSE-C,
// directory-bucket conditions, URL encoding of listings) are refused with a
// plain error rather than silently ignored.
//
// A Store is not safe for concurrent use.
type Store struct {
	dialect Dialect
	buckets map[string]*storeBucket
	// last is the bucket named lastName, looked up last: runs use one.
	lastName string
	last     *storeBucket
	// requests counts calls; the n-th call's request id is formatRequestID(n).
	requests uint64
	// opaqueETags: ETags are not the MD5s of the bodies (Config.OpaqueETags).
	opaqueETags bool
}

type storeBucket struct {
	objects map[string]*storedObject
	// cached is objects[cachedKey] (nil if absent), when hasCached: the
	// key looked up or written last, which runs use over and over.
	cachedKey string
	cached    *storedObject
	hasCached bool
	// keys holds the keys of objects in ascending byte (UTF-8 binary) order.
	keys []string
}

// storedObject is one stored object. Its content is never modified once
// stored: a write replaces it.
type storedObject struct {
	body         string
	etag         string // quoted hex MD5 of body
	lastModified time.Time
	contentType  string
	metadata     map[string]string // lower-case keys; nil if none
	// applied is the instant the write applied, on S3's clock (not
	// truncated); prev is the version it replaced (nil if none), kept
	// until a write replaces this one: a read that a write raced may be
	// answered torn between the two (tearPartner).
	applied time.Time
	prev    *storedObject
}

// NewStore returns an empty store with the semantics of dialect d.
func NewStore(d Dialect) *Store {
	return &Store{dialect: d, buckets: make(map[string]*storeBucket)}
}

// Dialect returns the store's dialect.
func (s *Store) Dialect() Dialect { return s.dialect }

// CreateBucket creates an empty bucket. Creating an existing bucket does
// nothing.
func (s *Store) CreateBucket(name string) {
	if s.buckets[name] == nil {
		s.buckets[name] = &storeBucket{objects: make(map[string]*storedObject)}
	}
}

// Object returns a copy of the body and the ETag of the object stored under
// key, for checkers and tests. It is not an S3 call and issues no request id.
func (s *Store) Object(bucketName, key string) (body []byte, etag string, ok bool) {
	b := s.bucket(bucketName)
	if b == nil {
		return nil, "", false
	}
	obj := b.get(key)
	if obj == nil {
		return nil, "", false
	}
	return []byte(obj.body), obj.etag, true
}

// bodyOf returns the body stored under key, and whether there is one.
func (s *Store) bodyOf(bucketName, key string) (string, bool) {
	b := s.bucket(bucketName)
	if b == nil {
		return "", false
	}
	obj := b.get(key)
	if obj == nil {
		return "", false
	}
	return obj.body, true
}

// PutObject applies a PutObject request at S3-clock time now. body is the
// request's payload (in.Body is not read). The store keeps a copy of body.
//
// AWS dialect: If-None-Match "*" fails with 412 when the key exists; If-Match
// fails with 404 NoSuchKey when it does not and with 412 when the ETag
// differs (quoted or unquoted ETags are accepted). If-Match "*" is an ETag
// value like any other, which no object has (PutObject's If-Match "expects
// the ETag value as a string"; unlike DeleteObject's, it gives "*" no
// meaning): 404 on a missing key, 412 on an existing one. If-None-Match with
// any value but "*", and both headers together, are answered 501
// NotImplemented, as S3 was observed to (docs/s3-semantics.md cites where).
// An empty header value counts as absent.
func (s *Store) PutObject(now time.Time, in *s3.PutObjectInput, body []byte) (*s3.PutObjectOutput, error) {
	return s.putObject(now, in, body, "")
}

// putObject is PutObject with body's ETag, if the caller has computed it
// (Store.etag(body)), or "".
func (s *Store) putObject(now time.Time, in *s3.PutObjectInput, body []byte, etag string) (*s3.PutObjectOutput, error) {
	const op = OpPutObject
	seq := s.begin()
	if in == nil {
		in = &s3.PutObjectInput{}
	}
	if err := checkObjectParams(op, "PutObjectInput", in.Bucket, in.Key); err != nil {
		return nil, err
	}
	if in.WriteOffsetBytes != nil {
		return nil, notModeled(op, "WriteOffsetBytes")
	}
	b := s.bucket(*in.Bucket)
	if b == nil {
		return nil, NoSuchBucket(op, formatRequestID(seq))
	}
	key := *in.Key
	old := b.get(key)
	ifMatch, hasIfMatch := condition(in.IfMatch)
	ifNone, hasIfNone := condition(in.IfNoneMatch)

	switch s.dialect {
	case DialectGoFakeS3:
		// gofakes3 CheckPutConditions (backend.go:166-191).
		if hasIfNone && ifNone == "*" && old != nil {
			return nil, PreconditionFailed(op, formatRequestID(seq))
		}
		if hasIfMatch && (old == nil || !goFakeS3PutETagMatch(ifMatch, old.etag)) {
			return nil, PreconditionFailed(op, formatRequestID(seq))
		}
	default:
		switch {
		case hasIfMatch && hasIfNone, hasIfNone && ifNone != "*":
			return nil, notImplemented(op, formatRequestID(seq))
		case hasIfNone && old != nil:
			return nil, PreconditionFailed(op, formatRequestID(seq))
		case hasIfMatch && old == nil:
			return nil, NoSuchKey(op, formatRequestID(seq))
		case hasIfMatch && !etagMatch(ifMatch, old.etag):
			return nil, PreconditionFailed(op, formatRequestID(seq))
		}
	}

	if etag == "" {
		etag = s.etag(body)
	}
	obj := &storedObject{
		body:         string(body),
		etag:         etag,
		lastModified: lastModifiedAt(now),
		contentType:  "application/octet-stream",
		metadata:     copyMetadata(in.Metadata),
		applied:      now,
		prev:         old,
	}
	if old != nil {
		old.prev = nil // one version back is all a torn read needs
	}
	if in.ContentType != nil {
		obj.contentType = *in.ContentType
	}
	if s.dialect == DialectGoFakeS3 && old != nil && len(old.metadata) > 0 {
		// gofakes3 MergeMetadata (backend.go:425-445): user metadata of the
		// object being replaced survives unless the new request sets it.
		merged := make(map[string]string, len(old.metadata)+len(obj.metadata))
		for k, v := range old.metadata {
			merged[k] = v
		}
		for k, v := range obj.metadata {
			merged[k] = v
		}
		obj.metadata = merged
	}
	b.put(key, obj)
	out := &struct {
		out  s3.PutObjectOutput
		etag string
	}{etag: obj.etag}
	out.out.ETag = &out.etag
	return &out.out, nil
}

// GetObject applies a GetObject request at S3-clock time now. The output's
// Body reads a copy of the stored body.
//
// A missing key is 404 NoSuchKey (*types.NoSuchKey) whatever the conditions.
// AWS dialect, on an existing object: If-Match ("*" or an ETag, quoted or
// not) that does not match is 412; without If-Match, an If-Unmodified-Since
// older than Last-Modified is 412; then If-None-Match ("*" or an ETag) that
// matches is 304; without If-None-Match, an If-Modified-Since not older
// than Last-Modified is 304 (RFC 7232 section 6, as S3 documents).
func (s *Store) GetObject(now time.Time, in *s3.GetObjectInput) (*s3.GetObjectOutput, error) {
	const op = OpGetObject
	seq := s.begin()
	if in == nil {
		in = &s3.GetObjectInput{}
	}
	if err := checkObjectParams(op, "GetObjectInput", in.Bucket, in.Key); err != nil {
		return nil, err
	}
	if err := readOptions(op, in.VersionId, in.Range, in.PartNumber, in.SSECustomerAlgorithm); err != nil {
		return nil, err
	}
	obj, err := s.read(op, seq, *in.Bucket, *in.Key, in.IfMatch, in.IfNoneMatch, in.IfModifiedSince, in.IfUnmodifiedSince)
	if err != nil {
		return nil, err
	}
	// The output, its body reader and its fields in one allocation.
	a := &struct {
		out    s3.GetObjectOutput
		body   bodyReader
		fields objectFields
	}{}
	a.body.b = obj.body
	a.out.Body = &a.body
	fillObjectOutput(obj, &a.fields, &a.out.AcceptRanges, &a.out.ContentLength, &a.out.ContentType, &a.out.ETag, &a.out.LastModified, &a.out.Metadata)
	return &a.out, nil
}

// readOptions refuses the GetObject and HeadObject options the store does
// not model, rather than ignoring them.
func readOptions(op string, versionID, rng *string, partNumber *int32, sseC *string) error {
	switch {
	case versionID != nil:
		return notModeled(op, "VersionId")
	case rng != nil:
		return notModeled(op, "Range")
	case partNumber != nil:
		return notModeled(op, "PartNumber")
	case sseC != nil:
		return notModeled(op, "SSE-C")
	}
	return nil
}

// HeadObject applies a HeadObject request at S3-clock time now, with the
// conditions of GetObject. Its errors are those of a response without a
// body: a missing key is 404 *types.NotFound.
func (s *Store) HeadObject(now time.Time, in *s3.HeadObjectInput) (*s3.HeadObjectOutput, error) {
	const op = OpHeadObject
	seq := s.begin()
	if in == nil {
		in = &s3.HeadObjectInput{}
	}
	if err := checkObjectParams(op, "HeadObjectInput", in.Bucket, in.Key); err != nil {
		return nil, err
	}
	if err := readOptions(op, in.VersionId, in.Range, in.PartNumber, in.SSECustomerAlgorithm); err != nil {
		return nil, err
	}
	obj, err := s.read(op, seq, *in.Bucket, *in.Key, in.IfMatch, in.IfNoneMatch, in.IfModifiedSince, in.IfUnmodifiedSince)
	if err != nil {
		return nil, err
	}
	a := &struct {
		out    s3.HeadObjectOutput
		fields objectFields
	}{}
	fillObjectOutput(obj, &a.fields, &a.out.AcceptRanges, &a.out.ContentLength, &a.out.ContentType, &a.out.ETag, &a.out.LastModified, &a.out.Metadata)
	return &a.out, nil
}

// DeleteObject applies a DeleteObject request at S3-clock time now.
//
// Deleting a missing key succeeds (204). AWS dialect: with If-Match, a
// missing key is 404 NoSuchKey and a different ETag is 412; "*" matches any
// existing object. GoFakeS3 dialect: If-Match is ignored and the delete is
// unconditional.
func (s *Store) DeleteObject(now time.Time, in *s3.DeleteObjectInput) (*s3.DeleteObjectOutput, error) {
	const op = OpDeleteObject
	seq := s.begin()
	if in == nil {
		in = &s3.DeleteObjectInput{}
	}
	if err := checkObjectParams(op, "DeleteObjectInput", in.Bucket, in.Key); err != nil {
		return nil, err
	}
	switch {
	case in.VersionId != nil:
		return nil, notModeled(op, "VersionId")
	case in.IfMatchLastModifiedTime != nil:
		return nil, notModeled(op, "IfMatchLastModifiedTime")
	case in.IfMatchSize != nil:
		return nil, notModeled(op, "IfMatchSize")
	}
	b := s.bucket(*in.Bucket)
	if b == nil {
		return nil, NoSuchBucket(op, formatRequestID(seq))
	}
	key := *in.Key
	if ifMatch, ok := condition(in.IfMatch); ok && s.dialect == DialectAWS {
		obj := b.get(key)
		if obj == nil {
			return nil, NoSuchKey(op, formatRequestID(seq))
		}
		if ifMatch != "*" && !etagMatch(ifMatch, obj.etag) {
			return nil, PreconditionFailed(op, formatRequestID(seq))
		}
	}
	b.remove(key)
	return &s3.DeleteObjectOutput{}, nil
}

// ListObjectsV2 applies a ListObjectsV2 request at S3-clock time now.
//
// Keys are listed in ascending UTF-8 binary order. Prefix, Delimiter
// (CommonPrefixes, which count towards MaxKeys and KeyCount), StartAfter
// and ContinuationToken behave as on AWS in both dialects. MaxKeys defaults
// to 1000, is capped at 1000, and 0 lists nothing and is not truncated; a
// negative MaxKeys or an undecodable continuation token is 400
// InvalidArgument. Continuation tokens are deterministic and opaque.
func (s *Store) ListObjectsV2(now time.Time, in *s3.ListObjectsV2Input) (*s3.ListObjectsV2Output, error) {
	const op = OpListObjectsV2
	seq := s.begin()
	if in == nil {
		in = &s3.ListObjectsV2Input{}
	}
	if in.Bucket == nil {
		return nil, missingParams(op, "ListObjectsV2Input", true, false)
	}
	if *in.Bucket == "" {
		return nil, emptyMember(op, "Bucket")
	}
	if len(in.EncodingType) > 0 {
		return nil, notModeled(op, "EncodingType")
	}
	b := s.bucket(*in.Bucket)
	if b == nil {
		return nil, NoSuchBucket(op, formatRequestID(seq))
	}

	maxKeys := int32(1000)
	if in.MaxKeys != nil {
		if *in.MaxKeys < 0 {
			return nil, invalidArgument(op, msgBadMaxKeys, formatRequestID(seq))
		}
		if *in.MaxKeys < maxKeys {
			maxKeys = *in.MaxKeys
		}
	}
	start, ok := listStart(b.keys, in)
	if !ok {
		return nil, invalidArgument(op, msgBadToken, formatRequestID(seq))
	}
	out := &s3.ListObjectsV2Output{
		Name:              cloneString(in.Bucket),
		Prefix:            cloneString(in.Prefix),
		Delimiter:         cloneString(in.Delimiter),
		StartAfter:        cloneString(in.StartAfter),
		ContinuationToken: cloneString(in.ContinuationToken),
	}
	b.listPage(out, start, maxKeys)
	return out, nil
}

// listStart returns the position in keys at which a listing begins: the
// first key after StartAfter and after the continuation token's marker (a
// marker that is a common prefix also skips every key under it), and not
// before Prefix. ok is false if the token does not decode.
func listStart(keys []string, in *s3.ListObjectsV2Input) (start int, ok bool) {
	if in.StartAfter != nil {
		start = firstAfter(keys, *in.StartAfter, 0)
	}
	if in.ContinuationToken != nil {
		marker, isPrefix, ok := decodeToken(*in.ContinuationToken)
		if !ok {
			return 0, false
		}
		i := firstAfter(keys, marker, 0)
		if isPrefix {
			i = skipPrefix(keys, i, marker)
		}
		if i > start {
			start = i
		}
	}
	if in.Prefix != nil && *in.Prefix != "" {
		if i := sort.SearchStrings(keys, *in.Prefix); i > start {
			start = i
		}
	}
	return start, true
}

// listPage fills out with up to maxKeys keys and common prefixes from
// position start, under out.Prefix and grouped by out.Delimiter, and with
// the count, the truncation and the token that continues the listing.
func (b *storeBucket) listPage(out *s3.ListObjectsV2Output, start int, maxKeys int32) {
	var prefix, delimiter string
	if out.Prefix != nil {
		prefix = *out.Prefix
	}
	if out.Delimiter != nil {
		delimiter = *out.Delimiter
	}
	var (
		count      int32
		truncated  bool
		lastMarker string
		lastPrefix bool
	)
	if maxKeys > 0 {
		for i := start; i < len(b.keys); i++ {
			key := b.keys[i]
			if !strings.HasPrefix(key, prefix) {
				break // keys under prefix are contiguous
			}
			if delimiter != "" {
				if j := strings.Index(key[len(prefix):], delimiter); j >= 0 {
					if count == maxKeys {
						truncated = true
						break
					}
					cp := key[:len(prefix)+j+len(delimiter)]
					out.CommonPrefixes = append(out.CommonPrefixes, types.CommonPrefix{Prefix: &cp})
					count++
					lastMarker, lastPrefix = cp, true
					i = skipPrefix(b.keys, i, cp) - 1
					continue
				}
			}
			if count == maxKeys {
				truncated = true
				break
			}
			obj := b.objects[key]
			k, etag, lm, size := key, obj.etag, obj.lastModified, int64(len(obj.body))
			out.Contents = append(out.Contents, types.Object{
				Key:          &k,
				ETag:         &etag,
				LastModified: &lm,
				Size:         &size,
				StorageClass: types.ObjectStorageClassStandard,
			})
			count++
			lastMarker, lastPrefix = key, false
		}
	}
	out.KeyCount = &count
	out.MaxKeys = &maxKeys
	out.IsTruncated = &truncated
	if truncated {
		tok := encodeToken(lastMarker, lastPrefix)
		out.NextContinuationToken = &tok
	}
}

// read looks up an object for GetObject or HeadObject and evaluates the
// read conditions.
func (s *Store) read(op string, seq uint64, bucketName, key string, ifMatchP, ifNoneP *string, ims, ius *time.Time) (*storedObject, error) {
	b := s.bucket(bucketName)
	if b == nil {
		return nil, NoSuchBucket(op, formatRequestID(seq))
	}
	obj := b.get(key)
	if obj == nil {
		return nil, NoSuchKey(op, formatRequestID(seq))
	}
	ifMatch, hasIfMatch := condition(ifMatchP)
	ifNone, hasIfNone := condition(ifNoneP)

	if s.dialect == DialectGoFakeS3 {
		// gofakes3 writeGetOrHeadObjectResponse (gofakes3.go:537-549).
		if hasIfNone && ifNone == obj.etag {
			return nil, NotModified(op, formatRequestID(seq))
		}
		if ims != nil && !ims.Truncate(time.Second).Before(obj.lastModified) {
			return nil, NotModified(op, formatRequestID(seq))
		}
		return obj, nil
	}

	if hasIfMatch {
		if ifMatch != "*" && !etagMatch(ifMatch, obj.etag) {
			return nil, PreconditionFailed(op, formatRequestID(seq))
		}
	} else if ius != nil && obj.lastModified.After(ius.Truncate(time.Second)) {
		return nil, PreconditionFailed(op, formatRequestID(seq))
	}
	if hasIfNone {
		if ifNone == "*" || etagMatch(ifNone, obj.etag) {
			return nil, NotModified(op, formatRequestID(seq))
		}
	} else if ims != nil && !obj.lastModified.After(ims.Truncate(time.Second)) {
		return nil, NotModified(op, formatRequestID(seq))
	}
	return obj, nil
}

// objectFields holds the values an output's pointer fields point to.
type objectFields struct {
	acceptRanges, contentType, etag string
	contentLength                   int64
	lastModified                    time.Time
}

// fillObjectOutput sets the fields GetObjectOutput and HeadObjectOutput
// share, pointing into v. It is not inlined, so as to keep its locals (a
// map iterator) out of its callers' frames: the synctest side of package
// comparison calls the store on goroutines with small stacks.
//
//go:noinline
func fillObjectOutput(obj *storedObject, v *objectFields, acceptRanges **string, contentLength **int64, contentType, etag **string, lastModified **time.Time, metadata *map[string]string) {
	v.acceptRanges, v.contentType, v.etag = "bytes", obj.contentType, obj.etag
	v.contentLength, v.lastModified = int64(len(obj.body)), obj.lastModified
	*acceptRanges = &v.acceptRanges
	*contentType = &v.contentType
	*etag = &v.etag
	*contentLength = &v.contentLength
	*lastModified = &v.lastModified
	if len(obj.metadata) > 0 {
		m := make(map[string]string, len(obj.metadata))
		for k, val := range obj.metadata {
			m[k] = val
		}
		*metadata = m
	}
}

func (b *storeBucket) put(key string, obj *storedObject) {
	if b.get(key) == nil {
		i := sort.SearchStrings(b.keys, key)
		b.keys = append(b.keys, "")
		copy(b.keys[i+1:], b.keys[i:])
		b.keys[i] = key
	}
	b.objects[key] = obj
	b.cachedKey, b.cached, b.hasCached = key, obj, true
}

func (b *storeBucket) remove(key string) {
	if b.get(key) == nil {
		return
	}
	delete(b.objects, key)
	i := sort.SearchStrings(b.keys, key)
	b.keys = append(b.keys[:i], b.keys[i+1:]...)
	b.cachedKey, b.cached, b.hasCached = key, nil, true
}

// get returns the object stored under key, or nil.
func (b *storeBucket) get(key string) *storedObject {
	if b.hasCached && b.cachedKey == key {
		return b.cached
	}
	obj := b.objects[key]
	b.cachedKey, b.cached, b.hasCached = key, obj, true
	return obj
}

// bucket returns the bucket named name, or nil.
func (s *Store) bucket(name string) *storeBucket {
	if s.last != nil && s.lastName == name {
		return s.last
	}
	b := s.buckets[name]
	if b != nil {
		s.lastName, s.last = name, b
	}
	return b
}

// firstAfter returns the index of the first key in keys[from:] greater than
// marker.
func firstAfter(keys []string, marker string, from int) int {
	return from + sort.Search(len(keys)-from, func(n int) bool { return keys[from+n] > marker })
}

// skipPrefix returns the index of the first key in keys[from:] that does
// not start with prefix, given that keys[from:] are all >= prefix (so those
// that start with it come first).
func skipPrefix(keys []string, from int, prefix string) int {
	return from + sort.Search(len(keys)-from, func(n int) bool { return !strings.HasPrefix(keys[from+n], prefix) })
}

// begin counts a request and returns its sequence number.
func (s *Store) begin() uint64 {
	s.requests++
	return s.requests
}

// formatRequestID formats the n-th request id: "SIM" and 13 decimal digits.
func formatRequestID(n uint64) string {
	var buf [16]byte
	copy(buf[:], "SIM")
	for i := len(buf) - 1; i >= 3; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[:])
}

// checkObjectParams validates Bucket and Key as the SDK does before sending.
func checkObjectParams(op, inputName string, bucketName, key *string) error {
	if bucketName == nil || key == nil {
		return missingParams(op, inputName, bucketName == nil, key == nil)
	}
	if *key == "" {
		return emptyMember(op, "Key")
	}
	if *bucketName == "" {
		return emptyMember(op, "Bucket")
	}
	return nil
}

// condition returns a conditional header's value and whether it is present;
// an empty value counts as absent.
func condition(p *string) (string, bool) {
	if p == nil || *p == "" {
		return "", false
	}
	return *p, true
}

// etagMatch reports whether a conditional header's ETag names the object's
// quoted ETag; S3 accepts it with or without the quotes.
func etagMatch(header, etag string) bool {
	return strings.Trim(header, `"`) == etag[1:len(etag)-1]
}

// goFakeS3PutETagMatch is gofakes3's If-Match comparison for PutObject: one
// pair of surrounding quotes removed, then compared with the hex MD5.
func goFakeS3PutETagMatch(header, etag string) bool {
	if len(header) >= 2 && header[0] == '"' && header[len(header)-1] == '"' {
		header = header[1 : len(header)-1]
	}
	return header == etag[1:len(etag)-1]
}

// etag is the ETag the store gives an object written with body: its MD5
// (S3's ETag for a single-part, unencrypted or SSE-S3 upload), or, with
// opaqueETags, the MD5 of opaqueKey and body, which looks like the MD5
// of the body and is not (an SSE-KMS or SSE-C upload's).
func (s *Store) etag(body []byte) string {
	if !s.opaqueETags {
		return quotedHex(md5.Sum(body))
	}
	h := md5.New()
	h.Write([]byte(opaqueKey))
	h.Write(body)
	return quotedHex([md5.Size]byte(h.Sum(nil)))
}

// opaqueKey is the key of the simulated store's opaque ETags.
const opaqueKey = "s3lease-sim-sse-kms-etag\x00"

// quotedHex is sum in hex, quoted: the form of an ETag.
func quotedHex(sum [md5.Size]byte) string {
	var buf [2 + 2*md5.Size]byte
	buf[0] = '"'
	hex.Encode(buf[1:], sum[:])
	buf[len(buf)-1] = '"'
	return string(buf[:])
}

// lastModifiedAt is the Last-Modified S3 records for a write at now: UTC,
// truncated to the second.
func lastModifiedAt(now time.Time) time.Time {
	return now.UTC().Truncate(time.Second)
}

// copyMetadata copies user metadata the way it travels through HTTP and the
// SDK: keys lower-cased, values trimmed. Keys equal but for case collapse to
// the one that sorts last, so the result does not depend on map order.
func copyMetadata(in map[string]string) map[string]string {
	if len(in) == 0 {
		return nil
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(in))
	for _, k := range keys {
		out[strings.ToLower(k)] = strings.TrimSpace(in[k])
	}
	return out
}

func cloneString(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// bodyReader is GetObject's Body: a reader over the object's bytes, which
// are never modified (a put stores a new object) and which it does not
// hand out. Like an HTTP response body, it has only Read and Close. It is
// small, so that a GetObjectOutput and its body fit one allocation of the
// next size down.
type bodyReader struct {
	b string
	i int
}

// Read reads as bytes.Reader does.
func (r *bodyReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

// Close does nothing.
func (*bodyReader) Close() error { return nil }

var _ io.ReadCloser = (*bodyReader)(nil)

// Continuation tokens: base64 of tokenMagic, a kind byte ('K' when the
// marker is the last key returned, 'P' when it is the last common prefix)
// and the marker.
const tokenMagic = "sim1"

func encodeToken(marker string, isPrefix bool) string {
	raw := make([]byte, 0, len(tokenMagic)+1+len(marker))
	raw = append(raw, tokenMagic...)
	if isPrefix {
		raw = append(raw, 'P')
	} else {
		raw = append(raw, 'K')
	}
	raw = append(raw, marker...)
	return base64.StdEncoding.EncodeToString(raw)
}

func decodeToken(tok string) (marker string, isPrefix, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil || len(raw) <= len(tokenMagic)+1 || string(raw[:len(tokenMagic)]) != tokenMagic {
		return "", false, false
	}
	switch raw[len(tokenMagic)] {
	case 'K':
	case 'P':
		isPrefix = true
	default:
		return "", false, false
	}
	return string(raw[len(tokenMagic)+1:]), isPrefix, true
}
