package mylock

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
)

// The lock's two S3 calls, each bounded by RequestTimeout on the node's
// Clock.

// record is the object's body. WrittenAt is the writer's wall clock, for
// people reading the object: nothing decides by it.
type record struct {
	Holder    string    `json:"holder"`
	Token     uint64    `json:"token"`
	Nonce     string    `json:"nonce"` // fresh for every write: every write has a new ETag
	LeaseMS   int64     `json:"lease_ms"`
	Released  bool      `json:"released,omitempty"`
	WrittenAt time.Time `json:"written_at"`
}

// read gets the object: its ETag ("" if there is none), its record (zero if
// the body is not one) and the monotonic instant the answer arrived.
func (n *node) read(ctx context.Context) (string, record, time.Duration, error) {
	cctx, cancel := n.clk.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	out, err := n.env.Store.GetObject(cctx, &s3.GetObjectInput{Bucket: &n.env.Bucket, Key: &n.env.Key})
	if protocol.ObjectMissing(err) {
		return "", record{}, n.clk.Monotonic(), nil
	} else if err != nil {
		return "", record{}, 0, err
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, 64<<10))
	if err != nil {
		return "", record{}, 0, err
	}
	var rec record
	if json.Unmarshal(body, &rec) != nil {
		rec = record{}
	}
	return aws.ToString(out.ETag), rec, n.clk.Monotonic(), nil
}

// write is a PutObject this node sent: the record with its nonce, the ETag
// S3 answered, and the monotonic instant just before the request left.
type write struct {
	rec  record
	etag string
	sent time.Duration
}

// put writes rec as this node's, with a fresh nonce, If-Match etag (or
// If-None-Match: * if etag is empty). The write it returns holds the record
// and the send time whatever the outcome.
func (n *node) put(ctx context.Context, rec record, etag string) (write, error) {
	var nonce [8]byte
	if _, err := io.ReadFull(n.env.Entropy, nonce[:]); err != nil {
		return write{}, err
	}
	rec.Holder, rec.Nonce, rec.LeaseMS, rec.WrittenAt = n.env.Identity, hex.EncodeToString(nonce[:]), n.cfg.Lease.Milliseconds(), n.clk.Now()
	body, _ := json.Marshal(rec) // plain fields: never fails
	in := &s3.PutObjectInput{Bucket: &n.env.Bucket, Key: &n.env.Key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}
	if etag == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(etag)
	}
	cctx, cancel := n.clk.WithTimeout(ctx, n.cfg.RequestTimeout)
	defer cancel()
	w := write{rec: rec, sent: n.clk.Monotonic()}
	out, err := n.env.Store.PutObject(cctx, in)
	if err != nil {
		return w, err
	}
	w.etag = aws.ToString(out.ETag)
	return w, nil
}
