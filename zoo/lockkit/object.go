package lockkit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
)

// MaxBody is the most of a lock object's body Read reads.
const MaxBody = 64 << 10

// Object is one read of a lock object.
type Object struct {
	// Exists is false if the object is missing.
	Exists bool
	ETag   string
	Body   []byte
	// LastModified is S3's, on S3's clock, to the second.
	LastModified time.Time
	// At is the node's reading once the answer had arrived.
	At time.Duration
}

// Read gets the object at key; a missing object (protocol.ObjectMissing)
// is an Object, not an error. A body that does not match its ETag
// (protocol.ETagMismatch: a torn read, the body of one version under the
// ETag of another) is read again, up to maxReads reads, and never
// returned, unless TrustTornReads; the same bytes under the same ETag
// twice are an ETag that is not an MD5 (SSE-KMS), returned as they are.
// After maxReads reads each torn another way, Read returns errTornRead.
func (n *Node) Read(ctx context.Context, key string) (Object, error) {
	var last Object
	for i := range maxReads {
		o, err := n.readOnce(ctx, key)
		if err != nil || !o.Exists || n.TrustTornReads || !protocol.ETagMismatch(o.ETag, o.Body) ||
			i > 0 && o.ETag == last.ETag && bytes.Equal(o.Body, last.Body) {
			return o, err
		}
		last = o
	}
	return Object{}, errTornRead
}

// maxReads is how many reads Read makes of an object whose body does not
// match its ETag before it gives up.
const maxReads = 3

// errTornRead is Read's error when every read was torn.
var errTornRead = errors.New("lockkit: the lock object's body did not match its ETag on any read (torn reads)")

// readOnce gets the object at key once; see Read.
func (n *Node) readOnce(ctx context.Context, key string) (Object, error) {
	ctx, cancel := n.withTimeout(ctx)
	defer cancel()
	out, err := n.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &n.Bucket, Key: &key})
	if err != nil {
		if protocol.ObjectMissing(err) {
			return Object{At: n.Now()}, nil
		}
		return Object{}, err
	}
	var body []byte
	if out.Body != nil {
		body, err = io.ReadAll(io.LimitReader(out.Body, MaxBody))
		_ = out.Body.Close()
		if err != nil {
			return Object{}, err
		}
	}
	return Object{Exists: true, ETag: aws.ToString(out.ETag), Body: body, LastModified: aws.ToTime(out.LastModified), At: n.Now()}, nil
}

// Condition is a write's precondition: If-Match ETag, or If-None-Match: *
// when ETag is empty; none at all if Unconditional (a mistake of the zoo).
type Condition struct {
	ETag          string
	Unconditional bool
}

// Put writes body at key under c and returns the new ETag.
func (n *Node) Put(ctx context.Context, key string, body []byte, c Condition) (string, error) {
	in := &s3.PutObjectInput{Bucket: &n.Bucket, Key: &key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")}
	switch {
	case c.Unconditional:
	case c.ETag == "":
		in.IfNoneMatch = aws.String("*")
	default:
		in.IfMatch = aws.String(c.ETag)
	}
	ctx, cancel := n.withTimeout(ctx)
	defer cancel()
	out, err := n.Store.PutObject(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.ETag), nil
}

// Delete deletes the object at key, If-Match etag.
func (n *Node) Delete(ctx context.Context, key, etag string) error {
	ctx, cancel := n.withTimeout(ctx)
	defer cancel()
	_, err := n.Store.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &n.Bucket, Key: &key, IfMatch: aws.String(etag)})
	return err
}

func (n *Node) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if n.RequestTimeout <= 0 {
		return ctx, func() {}
	}
	return n.Clock.WithTimeout(ctx, n.RequestTimeout)
}
