package relaxedlog

import (
	"context"
	"slices"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Close closes bag b, or helps whoever is closing it, and returns the
// messages that count in it: the lock object's list, sorted. It is
// wait-free: it never waits for another closer, whatever step that one
// stopped at. The steps are the essay's (docs/sources.md#leases-over-a-blob-store,
// its appendix) on S3:
//
//  1. announce the close: make sure the prelock exists (a create; a 412
//     means someone else announced it, which is as good);
//  2. (S3 has no read-only mark: a writer checks for the prelock after
//     creating its message instead, see Writer);
//  3. list the bag's messages, every page, after the prelock exists;
//  4. make sure the lock object exists: create it, listing what step 3
//     found; a 412 means another closer's list won, and that list is the
//     bag's;
//  5. (no read-only directory either: the lock object is the close).
//
// Whoever's lock object the create lets in is the bag's, for good: its
// listing came after the prelock, so it holds every message whose writer
// found no prelock after creating it.
func (c *Client) Close(ctx context.Context, b Bag) ([]string, error) {
	if items, ok, err := c.lockList(ctx, b); err != nil || ok {
		return items, err
	}
	if err := c.ensure(ctx, c.cfg.PrelockObject(b), encodeJSON(prelock{Closer: c.name, N: c.next()})); err != nil {
		return nil, err
	}
	keys, err := c.list(ctx, c.cfg.DataPrefix(b), "")
	if err != nil {
		return nil, err
	}
	body := encodeJSON(lockList{Closer: c.name, N: c.next(), Items: keys})
	_, err = c.kit.Put(ctx, c.cfg.LockObject(b), body, lockkit.Condition{Unconditional: c.cfg.Variant.UnconditionalLock})
	if err == nil {
		slices.Sort(keys)
		return keys, nil
	}
	if protocol.ClassifyError(err) != protocol.ClassPreconditionFailed && protocol.ClassifyError(err) != protocol.ClassUnknownOutcome {
		return nil, err
	}
	items, ok, rerr := c.lockList(ctx, b) // someone else's list won, or ours did unanswered
	switch {
	case rerr != nil:
		return nil, rerr
	case !ok:
		return nil, err
	}
	return items, nil
}

// lockList reads b's lock object: its list, sorted, and whether it exists.
func (c *Client) lockList(ctx context.Context, b Bag) ([]string, bool, error) {
	o, err := c.kit.Read(ctx, c.cfg.LockObject(b))
	if err != nil || !o.Exists {
		return nil, false, err
	}
	items, err := decodeLock(o.Body)
	return items, err == nil, err
}
