package protocol

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Request fields that never change; the SDK does not modify its inputs.
var (
	contentTypeJSON = "application/json"
	ifNoneMatchAny  = "*"
)

// maxWrites is how many of its recent writes an elector can recognise by
// nonce. Forgetting one is safe: its record then looks foreign.
const maxWrites = 16

// errNoETag is returned when S3 answers without an ETag. It is not an S3
// error, so it classifies as an unknown outcome and the nonce decides.
var errNoETag = errors.New("s3lease: S3 answered without an ETag")

// errNotSent is wrapped by the error of a write that failed before it was
// sent: no nonce could be drawn, or the record does not encode (a bug). The
// write certainly did not happen, so it is no S3 outcome; see classify.
var errNotSent = errors.New("s3lease: write not sent")

// errObjectMissing is wrapped by the error of a write If-Match an ETag that
// S3 answered with a 404 the SDK could not read a code from (ObjectMissing):
// a conditional write on an object finds it missing or the bucket missing,
// and only the first makes the elector read again at once, which it must.
// A create's code-less 404 is not wrapped: the object cannot be missing to
// a create, so the bucket is, and a refusal's wait follows.
var errObjectMissing = errors.New("s3lease: lock object missing")

// classify is ClassifyError for the elector's own calls: a write that was
// never sent is ClassOther (it did not happen, and retrying soon will not
// help), never an unknown outcome that may have applied; a write that found
// the object missing behind a proxy's page is ClassNotFound.
func classify(err error) ErrorClass {
	switch {
	case errors.Is(err, errNotSent):
		return ClassOther
	case errors.Is(err, errObjectMissing):
		return ClassNotFound
	}
	return ClassifyError(err)
}

// snapshot is one read of the lock object.
type snapshot struct {
	exists bool
	etag   string
	rec    Record
	bad    error         // why the body is not a valid record that can be followed, if it is not
	at     time.Duration // Monotonic when the response had arrived
	sent   time.Duration // Monotonic just before the request was sent: S3 served it after
	// What else S3 shows of the object: Last-Modified (S3's clock, to the
	// second), the version id of a versioned bucket, and the body's size.
	lastModified time.Time
	versionID    string
	size         int64
}

// version is everything S3 shows of one state of the lock object. Two reads
// with equal versions may still show two writes of the same bytes within one
// second of S3's clock in an unversioned bucket; see observation.
type version struct {
	exists       bool
	etag, nonce  string
	versionID    string
	lastModified time.Time
	size         int64
}

func (s snapshot) version() version {
	return version{exists: s.exists, etag: s.etag, nonce: s.rec.Nonce, versionID: s.versionID, lastModified: s.lastModified, size: s.size}
}

// same reports whether v and o show the same state of the object: equal in
// every field S3 shows.
func (v version) same(o version) bool {
	return v.exists == o.exists && v.etag == o.etag && v.nonce == o.nonce && v.versionID == o.versionID &&
		v.size == o.size && v.lastModified.Equal(o.lastModified)
}

// sentWrite is one PutObject this elector sent.
type sentWrite struct {
	rec     Record        // the record written, with its nonce
	sent    time.Duration // Monotonic just before sending
	acquire bool          // an acquisition (create or take over), not a renewal
}

// observation is the state of the object a follower is timing (a foreign
// record, a body that is no record, or, once it has seen the object, its
// absence): the first Monotonic reading at which it saw that state. Any
// change S3 shows (ETag, nonce, Last-Modified, version id, size) restarts
// it, so that an outside write of old bytes (same ETag) is timed afresh.
type observation struct {
	ver version
	at  time.Duration
	set bool
}

// read gets the lock object. A missing object is a snapshot with exists
// false, not an error. A record holding the largest token, which no record
// can follow, is refused like a body that does not decode (snapshot.bad),
// though the snapshot keeps it. A body that its ETag says is not the
// object's (ETagMismatch: a torn read) is read again, not acted on, up to
// maxReads reads in all; see the package documentation, "Torn reads".
func (e *Elector) read(ctx context.Context, purpose Purpose) (snapshot, error) {
	var last snapshot
	var lastSum [md5.Size]byte
	for i := range maxReads {
		s, body, err := e.readOnce(ctx, purpose)
		if err != nil || !s.exists {
			return s, err
		}
		want, ok := md5ETag(s.etag)
		if !ok || len(body) > maxRecordSize {
			return s, nil // nothing to check it against
		}
		sum := md5.Sum(body)
		switch {
		case sum == want:
			e.etagsNotMD5 = false
			return s, nil
		case e.etagsNotMD5:
			return s, nil
		case i > 0 && s.etag == last.etag && sum == lastSum:
			// The same bytes under the same ETag twice: not a race, but
			// a store (or an object) whose ETags are not MD5s.
			e.log.Info("the lock object's ETag is not the MD5 of its body; taking it as it is", "etag", s.etag)
			e.etagsNotMD5 = true
			return s, nil
		}
		e.log.Warn("the lock object's body does not match its ETag (a torn read?); reading it again", "etag", s.etag, "read", i+1)
		last, lastSum = s, sum
	}
	return snapshot{}, errTornRead
}

// maxReads is how many reads read makes of an object whose body does not
// match its ETag before it gives up with errTornRead.
const maxReads = 3

// errTornRead is read's error when every read showed a body that did not
// match its ETag, each another: not an S3 error, so it classifies as an
// unknown outcome, and the caller reads again later.
var errTornRead = errors.New("s3lease: the lock object's body did not match its ETag on any read (torn reads)")

// ETagMismatch reports whether a GetObject answered with etag and body is
// torn as far as S3's ETags tell: etag looks like an MD5 (32 hex digits,
// quoted: S3's ETag of an object written in one part without SSE-KMS or
// SSE-C), body is at most 64 KiB, and its MD5 is not etag. A read that S3
// answered so is the body of one version with the ETag of another (a
// store that broke the atomicity of an update), or an object whose ETag
// is not its MD5 though it looks like one (SSE-KMS, SSE-C): only a read
// again tells them apart, as the first is a race and the second is not.
func ETagMismatch(etag string, body []byte) bool {
	want, ok := md5ETag(etag)
	return ok && len(body) <= maxRecordSize && md5.Sum(body) != want
}

// md5ETag returns the MD5 that etag names, if it looks like one: 32 hex
// digits, quoted.
func md5ETag(etag string) (sum [md5.Size]byte, ok bool) {
	if len(etag) != 2+2*md5.Size || etag[0] != '"' || etag[len(etag)-1] != '"' {
		return sum, false
	}
	_, err := hex.Decode(sum[:], []byte(etag[1:len(etag)-1]))
	return sum, err == nil
}

// readOnce gets the lock object once; see read. It returns the body too.
func (e *Elector) readOnce(ctx context.Context, purpose Purpose) (s snapshot, body []byte, err error) {
	cctx, cancel := e.clock.WithTimeout(ctx, e.reqTimeout)
	defer cancel()
	start := e.clock.Monotonic()
	defer func() {
		answer := causeOf(err)
		if err == nil && !s.exists {
			answer = CauseNotFound
		}
		e.reportRequest("GetObject", purpose, answer, start)
	}()
	out, err := e.cfg.Store.GetObject(cctx, &s3.GetObjectInput{
		Bucket: e.bucket,
		Key:    e.key,
	})
	if err != nil {
		if ObjectMissing(err) {
			return snapshot{at: e.clock.Monotonic(), sent: start}, nil, nil
		}
		return snapshot{}, nil, err
	}
	if out.Body != nil {
		defer out.Body.Close()
		body, err = readRecordBody(out.Body, out.ContentLength)
		if err != nil {
			return snapshot{}, nil, fmt.Errorf("s3lease: read lock object body: %w", err)
		}
	}
	s = snapshot{exists: true, at: e.clock.Monotonic(), sent: start, size: int64(len(body))}
	if out.ETag == nil || *out.ETag == "" {
		return snapshot{}, nil, errNoETag
	}
	s.etag = *out.ETag
	if out.LastModified != nil {
		s.lastModified = *out.LastModified
	}
	if out.VersionId != nil {
		s.versionID = *out.VersionId
	}
	s.rec, s.bad = DecodeRecord(body)
	if s.bad == nil && s.rec.Token == math.MaxUint64 {
		s.bad = fmt.Errorf("s3lease: %w: token %d has no successor", ErrMalformedRecord, s.rec.Token)
	}
	return s, body, nil
}

// write puts rec, with a fresh nonce, conditioned on If-Match: ifMatch, or on
// If-None-Match: * when ifMatch is empty. It remembers the write before
// sending it, so that a later read can recognise it whatever the answer. An
// error from before the send wraps errNotSent.
func (e *Elector) write(ctx context.Context, rec Record, ifMatch string, purpose Purpose) (string, sentWrite, error) {
	nonce, err := e.entropy.nonce()
	if err != nil {
		err = fmt.Errorf("%w: %w", errNotSent, err)
		e.reportRequest("PutObject", purpose, CauseNotSent, e.clock.Monotonic())
		return "", sentWrite{}, err
	}
	rec.Nonce = nonce
	body, err := rec.Encode()
	if err != nil {
		err = fmt.Errorf("%w: %w", errNotSent, err)
		e.reportRequest("PutObject", purpose, CauseNotSent, e.clock.Monotonic())
		return "", sentWrite{}, err
	}
	in := &s3.PutObjectInput{
		Bucket:        e.bucket,
		Key:           e.key,
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		ContentType:   &contentTypeJSON,
	}
	if ifMatch == "" {
		in.IfNoneMatch = &ifNoneMatchAny
	} else {
		in.IfMatch = aws.String(ifMatch)
	}
	cctx, cancel := e.clock.WithTimeout(ctx, e.reqTimeout)
	defer cancel()
	w := sentWrite{rec: rec, acquire: purpose == PurposeAcquire, sent: e.clock.Monotonic()}
	e.remember(w)
	out, err := e.cfg.Store.PutObject(cctx, in)
	if err == nil && (out.ETag == nil || *out.ETag == "") {
		err = errNoETag
	}
	if err != nil && ifMatch != "" && ObjectMissing(err) {
		err = fmt.Errorf("%w: %w", errObjectMissing, err)
	}
	e.reportRequest("PutObject", purpose, causeOf(err), w.sent)
	if err != nil {
		return "", w, err
	}
	return *out.ETag, w, nil
}

// reportRequest marks progress and reports an S3 call that began at
// Monotonic start to Metrics.Request.
func (e *Elector) reportRequest(op string, purpose Purpose, answer Cause, start time.Duration) {
	e.markProgress()
	if f := e.cfg.Metrics.Request; f != nil {
		f(Request{Op: op, Purpose: purpose, Answer: answer, Latency: e.clock.Monotonic() - start})
	}
}

func (e *Elector) remember(w sentWrite) {
	if len(e.writes) == maxWrites {
		copy(e.writes, e.writes[1:])
		e.writes = e.writes[:maxWrites-1]
	}
	e.writes = append(e.writes, w)
}

// ours returns the write of this Run whose nonce a record carries.
func (e *Elector) ours(nonce string) (sentWrite, bool) {
	for _, w := range e.writes {
		if w.rec.Nonce == nonce {
			return w, true
		}
	}
	return sentWrite{}, false
}

// readRecordBody reads at most maxRecordSize+1 bytes of a GetObject body,
// in one allocation when S3 announced the length.
func readRecordBody(r io.Reader, length *int64) ([]byte, error) {
	if length == nil || *length < 0 || *length > maxRecordSize {
		return io.ReadAll(io.LimitReader(r, maxRecordSize+1))
	}
	// One byte more than announced, to notice a body longer than that.
	buf := make([]byte, *length+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	// The body is longer than announced: read the rest, within the limit.
	rest, err := io.ReadAll(io.LimitReader(r, maxRecordSize+1-int64(n)))
	return append(buf, rest...), err
}
