package epochfile

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// client makes one incarnation's S3 calls, each bounded by the request
// timeout on the node's clock, and remembers its recent writes.
type client struct {
	lockkit.Node
	cfg    Config
	env    sim.Env
	files  layout
	writes lockkit.Writes[sentWrite] // this incarnation's recent writes
}

func newClient(cfg Config, env sim.Env) *client {
	return &client{cfg: cfg, env: env, files: newLayout(cfg.Prefix, env.Key), Node: lockkit.Node{
		Clock: env.Clock, Entropy: env.Entropy, Store: env.Store, Bucket: env.Bucket, RequestTimeout: cfg.RequestTimeout,
		Retry: cfg.Retry, Term: cfg.termLen(), Renew: cfg.Retry}}
}

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
			out.at = c.Clock.Monotonic()
			return out, nil
		}
		token = page.NextContinuationToken
	}
	return listing{}, fmt.Errorf("epochfile: listing %s takes more than %d pages", c.files.prefix, maxPages)
}

func (c *client) listPage(ctx context.Context, token *string) (*s3.ListObjectsV2Output, error) {
	cctx, cancel := c.Clock.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	return c.env.Store.ListObjectsV2(cctx, &s3.ListObjectsV2Input{Bucket: &c.env.Bucket,
		Prefix: aws.String(c.files.prefix), MaxKeys: aws.Int32(c.cfg.PageSize), ContinuationToken: token})
}

// snapshot is one read of a lock file.
type snapshot struct {
	lockkit.Object
	file lockFile
	bad  bool // the body is not a lock file
}

// get reads a lock file; a missing file is a snapshot, not an error.
func (c *client) get(ctx context.Context, key string) (snapshot, error) {
	o, err := c.Read(ctx, key)
	if err != nil || !o.Exists {
		return snapshot{Object: o}, err
	}
	f, ok := decodeFile(o.Body)
	return snapshot{Object: o, file: f, bad: !ok}, nil
}

// head reads a lock file's Last-Modified (S3's clock, to the second).
func (c *client) head(ctx context.Context, key string) (time.Time, error) {
	cctx, cancel := c.Clock.WithTimeout(ctx, c.cfg.RequestTimeout)
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
	f.Nonce = c.Nonce()
	w := sentWrite{key: key, file: f, at: c.Clock.Monotonic(), create: etag == ""}
	c.writes.Remember(w)
	tag, err := c.Put(ctx, key, f.encode(), lockkit.Condition{ETag: etag})
	return tag, w, err
}

// ours returns the write of this incarnation that the file at key is, by
// nonce.
func (c *client) ours(key string, f lockFile) (sentWrite, bool) {
	if f.Nonce == "" {
		return sentWrite{}, false
	}
	return c.writes.Find(func(w sentWrite) bool { return w.key == key && w.file.Nonce == f.Nonce })
}
