package zoo

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
)

// maxWrites is how many recent writes a node recognises by nonce.
const maxWrites = 16

// snapshot is one read of the lock object.
type snapshot struct {
	exists       bool
	etag         string
	rec          record
	bad          bool          // the body is not a record
	at           time.Duration // node.now() once the answer had arrived
	lastModified time.Time     // S3's Last-Modified, on S3's clock
}

// sentWrite is one PutObject this node sent.
type sentWrite struct {
	rec     record        // with its nonce
	at      time.Duration // node.now() just before sending
	acquire bool          // an acquisition, not a renewal or release
}

// condition is a write's precondition: If-Match etag, If-None-Match: *
// when etag is empty, or none.
type condition struct {
	etag string
	none bool
}

func ifMatch(etag string) condition { return condition{etag: etag} }

var unconditional = condition{none: true}

// read gets the lock object; a missing object is a snapshot, not an error.
func (n *node) read(ctx context.Context) (snapshot, error) {
	cctx, cancel := n.clk.WithTimeout(ctx, n.s.reqTimeout)
	defer cancel()
	out, err := n.env.Store.GetObject(cctx, &s3.GetObjectInput{Bucket: &n.env.Bucket, Key: &n.env.Key})
	if err != nil {
		if protocol.ObjectMissing(err) {
			return snapshot{at: n.now()}, nil
		}
		return snapshot{}, err
	}
	var body []byte
	if out.Body != nil {
		body, err = io.ReadAll(io.LimitReader(out.Body, 64<<10))
		_ = out.Body.Close()
		if err != nil {
			return snapshot{}, err
		}
	}
	s := snapshot{exists: true, etag: aws.ToString(out.ETag), at: n.now(), lastModified: aws.ToTime(out.LastModified)}
	rec, ok := decodeRecord(body)
	s.rec, s.bad = rec, !ok
	return s, nil
}

// put writes rec under condition c, with a fresh nonce, and remembers the
// write before sending it so that a later read can recognise it whatever
// the answer.
func (n *node) put(ctx context.Context, rec record, c condition, acquire bool) (string, sentWrite, error) {
	if !n.m.noNonce {
		rec.Nonce = n.nonce()
	}
	if n.m.wallClockExpiry {
		rec.Expires = n.clk.Now().Add(n.s.lease)
	}
	body := rec.encode()
	in := &s3.PutObjectInput{Bucket: &n.env.Bucket, Key: &n.env.Key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")}
	switch {
	case c.none:
	case c.etag == "":
		in.IfNoneMatch = aws.String("*")
	default:
		in.IfMatch = aws.String(c.etag)
	}
	cctx, cancel := n.clk.WithTimeout(ctx, n.s.reqTimeout)
	defer cancel()
	w := sentWrite{rec: rec, at: n.now(), acquire: acquire}
	n.remember(w)
	out, err := n.env.Store.PutObject(cctx, in)
	if err != nil {
		return "", w, err
	}
	return aws.ToString(out.ETag), w, nil
}

// del deletes the object, If-Match etag.
func (n *node) del(ctx context.Context, etag string) error {
	cctx, cancel := n.clk.WithTimeout(ctx, n.s.reqTimeout)
	defer cancel()
	_, err := n.env.Store.DeleteObject(cctx, &s3.DeleteObjectInput{Bucket: &n.env.Bucket, Key: &n.env.Key, IfMatch: aws.String(etag)})
	return err
}

func (n *node) remember(w sentWrite) {
	if len(n.writes) == maxWrites {
		n.writes = append(n.writes[:0], n.writes[1:]...)
	}
	n.writes = append(n.writes, w)
}

// ours returns the write of this incarnation that a record is, by nonce.
// Without nonces no record can be told from another with the same body.
func (n *node) ours(r record) (sentWrite, bool) {
	if n.m.noNonce || r.Nonce == "" {
		return sentWrite{}, false
	}
	for _, w := range n.writes {
		if w.rec.Nonce == r.Nonce {
			return w, true
		}
	}
	return sentWrite{}, false
}

// nonce returns 16 fresh hex digits.
func (n *node) nonce() string {
	var b [8]byte
	_, _ = io.ReadFull(n.env.Entropy, b[:])
	return hex.EncodeToString(b[:])
}

// jitter returns a duration in [0, limit].
func (n *node) jitter(limit time.Duration) time.Duration {
	var b [8]byte
	_, _ = io.ReadFull(n.env.Entropy, b[:])
	return time.Duration(binary.BigEndian.Uint64(b[:]) % uint64(limit+1))
}

// pollWait is a follower's interval between reads: a retry period plus up
// to 20% jitter.
func (n *node) pollWait() time.Duration { return n.s.retry + n.jitter(n.s.retry/5) }

// backoff is the short pause after a 409 or an unknown outcome: 10-20% of a
// retry period.
func (n *node) backoff() time.Duration { return n.s.retry/10 + n.jitter(n.s.retry/10) }
