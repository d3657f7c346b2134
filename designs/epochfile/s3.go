package epochfile

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// client makes one incarnation's S3 calls, each bounded by the request
// timeout on the node's clock, and remembers its recent writes.
type client struct {
	cfg    Config
	env    sim.Env
	clk    protocol.Clock
	files  layout
	writes []sentWrite // this incarnation's recent writes, oldest first
}

func newClient(cfg Config, env sim.Env) *client {
	return &client{cfg: cfg, env: env, clk: env.Clock, files: newLayout(cfg.Prefix, env.Key)}
}

// maxWrites is how many recent writes a node recognises by nonce.
const maxWrites = 16

// listed is one lock file as a listing shows it.
type listed struct {
	epoch uint64
	key   string
	etag  string
}

// listing is a whole listing of the prefix, every page of it, in epoch
// order.
type listing struct {
	files []listed
	at    time.Duration // monotonic reading once the last page had arrived
}

// latest is the file of the highest epoch; ok is false if there is none.
func (l listing) latest() (listed, bool) {
	if len(l.files) == 0 {
		return listed{}, false
	}
	return l.files[len(l.files)-1], true
}

// list lists the lock files under the prefix, following continuation
// tokens page by page. Keys that are not lock files are skipped.
func (c *client) list(ctx context.Context) (listing, error) {
	var out listing
	var token *string
	for range maxPages {
		page, err := c.listPage(ctx, token)
		if err != nil {
			return listing{}, err
		}
		for _, o := range page.Contents {
			if e, ok := c.files.epoch(aws.ToString(o.Key)); ok {
				out.files = append(out.files, listed{epoch: e, key: aws.ToString(o.Key), etag: aws.ToString(o.ETag)})
			}
		}
		if !aws.ToBool(page.IsTruncated) {
			slices.SortFunc(out.files, func(a, b listed) int { return cmp.Compare(a.epoch, b.epoch) })
			out.at = c.clk.Monotonic()
			return out, nil
		}
		token = page.NextContinuationToken
	}
	return listing{}, fmt.Errorf("epochfile: listing %s takes more than %d pages", c.files.prefix, maxPages)
}

func (c *client) listPage(ctx context.Context, token *string) (*s3.ListObjectsV2Output, error) {
	cctx, cancel := c.clk.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	return c.env.Store.ListObjectsV2(cctx, &s3.ListObjectsV2Input{Bucket: &c.env.Bucket,
		Prefix: aws.String(c.files.prefix), MaxKeys: aws.Int32(c.cfg.PageSize), ContinuationToken: token})
}

// snapshot is one read of a lock file.
type snapshot struct {
	exists       bool
	etag         string
	file         lockFile
	bad          bool          // the body is not a lock file
	lastModified time.Time     // S3's Last-Modified, on S3's clock, to the second
	at           time.Duration // monotonic reading once the answer had arrived
}

// get reads a lock file; a missing file is a snapshot, not an error.
func (c *client) get(ctx context.Context, key string) (snapshot, error) {
	cctx, cancel := c.clk.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	out, err := c.env.Store.GetObject(cctx, &s3.GetObjectInput{Bucket: &c.env.Bucket, Key: &key})
	if err != nil {
		if protocol.ObjectMissing(err) {
			return snapshot{at: c.clk.Monotonic()}, nil
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
	s := snapshot{exists: true, etag: aws.ToString(out.ETag), lastModified: aws.ToTime(out.LastModified), at: c.clk.Monotonic()}
	f, ok := decodeFile(body)
	s.file, s.bad = f, !ok
	return s, nil
}

// head reads a lock file's Last-Modified (S3's clock, to the second).
func (c *client) head(ctx context.Context, key string) (time.Time, error) {
	cctx, cancel := c.clk.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	out, err := c.env.Store.HeadObject(cctx, &s3.HeadObjectInput{Bucket: &c.env.Bucket, Key: &key})
	if err != nil {
		return time.Time{}, err
	}
	return aws.ToTime(out.LastModified), nil
}

// sentWrite is one PutObject this incarnation sent.
type sentWrite struct {
	key    string
	file   lockFile      // with its nonce
	at     time.Duration // monotonic reading just before sending
	create bool          // a create (If-None-Match: *), not a touch or an expiry mark
}

// put writes f to key with a fresh nonce: If-Match etag, or If-None-Match: *
// when etag is empty. It remembers the write before sending it, so that a
// later read recognises it whatever the answer.
func (c *client) put(ctx context.Context, key string, f lockFile, etag string) (string, sentWrite, error) {
	f.Nonce = c.nonce()
	body := f.encode()
	in := &s3.PutObjectInput{Bucket: &c.env.Bucket, Key: &key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")}
	if etag == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(etag)
	}
	cctx, cancel := c.clk.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	w := sentWrite{key: key, file: f, at: c.clk.Monotonic(), create: etag == ""}
	c.remember(w)
	out, err := c.env.Store.PutObject(cctx, in)
	if err != nil {
		return "", w, err
	}
	return aws.ToString(out.ETag), w, nil
}

// del deletes a lock file, If-Match etag.
func (c *client) del(ctx context.Context, key, etag string) error {
	cctx, cancel := c.clk.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	_, err := c.env.Store.DeleteObject(cctx, &s3.DeleteObjectInput{Bucket: &c.env.Bucket, Key: &key, IfMatch: aws.String(etag)})
	return err
}

func (c *client) remember(w sentWrite) {
	if len(c.writes) == maxWrites {
		c.writes = append(c.writes[:0], c.writes[1:]...)
	}
	c.writes = append(c.writes, w)
}

// ours returns the write of this incarnation that the file at key is, by
// nonce.
func (c *client) ours(key string, f lockFile) (sentWrite, bool) {
	if f.Nonce == "" {
		return sentWrite{}, false
	}
	for _, w := range c.writes {
		if w.key == key && w.file.Nonce == f.Nonce {
			return w, true
		}
	}
	return sentWrite{}, false
}

// nonce returns 16 fresh hex digits from the node's entropy.
func (c *client) nonce() string {
	var b [8]byte
	_, _ = io.ReadFull(c.env.Entropy, b[:])
	return hex.EncodeToString(b[:])
}

// jitter returns a duration in [0, limit].
func (c *client) jitter(limit time.Duration) time.Duration {
	var b [8]byte
	_, _ = io.ReadFull(c.env.Entropy, b[:])
	return time.Duration(binary.BigEndian.Uint64(b[:]) % uint64(limit+1))
}

// pollWait is a follower's interval between listings: a retry period plus
// up to 20% jitter.
func (c *client) pollWait() time.Duration { return c.cfg.Retry + c.jitter(c.cfg.Retry/5) }

// backoff is the short pause after a 409 or an unknown outcome: 10-20% of
// a retry period.
func (c *client) backoff() time.Duration { return c.cfg.Retry/10 + c.jitter(c.cfg.Retry/10) }

// spawn runs f via Clock.Go and returns a context that is done once f
// returned: the way to join it with Clock.Sleep.
func (c *client) spawn(f func()) context.Context {
	done, markDone := context.WithCancel(context.Background())
	c.clk.Go(func() {
		defer markDone()
		f()
	})
	return done
}
