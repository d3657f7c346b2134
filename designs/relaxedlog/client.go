package relaxedlog

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Client is one process's access to the bags: writers, closers and
// readers share it. Every S3 call is bounded by Config.RequestTimeout on
// the process's clock.
type Client struct {
	cfg  Config
	kit  lockkit.Node
	name string
	mu   sync.Mutex
	n    uint64 // bodies written by this process, for unique prelocks and lock objects
	// Hooks observe what the process does; every field may be nil.
	Hooks Hooks
}

// NewClient is the bags' client of a process named name (unique among the
// processes that ever write: a message's key is its writer's name and
// sequence number), on clock and store, in bucket.
func NewClient(cfg Config, name string, clock protocol.Clock, store sim.S3Client, bucket string) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, lockkit.Invalid("name", "must not be empty")
	}
	return &Client{cfg: cfg, name: name, kit: lockkit.Node{Clock: clock, Store: store, Bucket: bucket, RequestTimeout: cfg.RequestTimeout}}, nil
}

// errMissing is returned when an object a step needs is not there.
var errMissing = errors.New("relaxedlog: object missing")

// maxPages bounds a listing, so that a store that never stops paging
// cannot hold a process forever.
const maxPages = 10_000

// list lists every key under prefix after startAfter (if not empty), page
// by page, following continuation tokens, in listing order.
func (c *Client) list(ctx context.Context, prefix, startAfter string) ([]string, error) {
	var out []string
	var token *string
	for range maxPages {
		in := &s3.ListObjectsV2Input{Bucket: &c.kit.Bucket, Prefix: aws.String(prefix), MaxKeys: aws.Int32(c.cfg.PageSize), ContinuationToken: token}
		if startAfter != "" && token == nil {
			in.StartAfter = aws.String(startAfter)
		}
		page, err := c.listPage(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
		if !aws.ToBool(page.IsTruncated) {
			return out, nil
		}
		if token = page.NextContinuationToken; token == nil {
			return nil, fmt.Errorf("relaxedlog: listing %s: a truncated page without a continuation token", prefix)
		}
	}
	return nil, fmt.Errorf("relaxedlog: listing %s takes more than %d pages", prefix, maxPages)
}

func (c *Client) listPage(ctx context.Context, in *s3.ListObjectsV2Input) (*s3.ListObjectsV2Output, error) {
	ctx, cancel := c.kit.Clock.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	return c.kit.Store.ListObjectsV2(ctx, in)
}

// ensure makes sure an object exists at key, creating it with body if it
// does not: nil once it is known to exist, whoever created it.
func (c *Client) ensure(ctx context.Context, key string, body []byte) error {
	_, err := c.kit.Put(ctx, key, body, lockkit.Condition{})
	if err == nil || protocol.ClassifyError(err) == protocol.ClassPreconditionFailed {
		return nil
	}
	o, rerr := c.kit.Read(ctx, key) // an outcome we do not know: look
	switch {
	case rerr != nil:
		return rerr
	case !o.Exists:
		return fmt.Errorf("%w: %s after %w", errMissing, key, err)
	}
	return nil
}

// next is a fresh count for a body this process writes.
func (c *Client) next() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}
