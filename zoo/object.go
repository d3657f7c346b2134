package zoo

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/zoo/lockkit"
)

// snapshot is one read of the lock object.
type snapshot struct {
	lockkit.Object
	rec record
	bad bool // the body is not a record
}

// sentWrite is one PutObject this node sent.
type sentWrite struct {
	rec     record        // with its nonce
	at      time.Duration // node.Now() just before sending
	acquire bool          // an acquisition, not a renewal or release
}

// read gets the lock object; a missing object is a snapshot, not an error.
func (n *node) read(ctx context.Context) (snapshot, error) {
	o, err := n.Read(ctx, n.env.Key)
	if err != nil || !o.Exists {
		return snapshot{Object: o}, err
	}
	rec, ok := decodeRecord(o.Body)
	return snapshot{Object: o, rec: rec, bad: !ok}, nil
}

// put writes rec under condition c, with a fresh nonce, and remembers the
// write before sending it so that a later read can recognise it whatever
// the answer.
func (n *node) put(ctx context.Context, rec record, c lockkit.Condition, acquire bool) (string, sentWrite, error) {
	if !n.m.noNonce {
		rec.Nonce = n.Nonce()
	}
	if n.m.wallClockExpiry {
		rec.Expires = n.Clock.Now().Add(n.s.LeaseDuration)
	}
	w := sentWrite{rec: rec, at: n.Now(), acquire: acquire}
	n.writes.Remember(w)
	etag, err := n.Put(ctx, n.env.Key, rec.encode(), c)
	return etag, w, err
}

// ours returns the write of this incarnation that a record is, by nonce.
// Without nonces no record can be told from another with the same body.
func (n *node) ours(r record) (sentWrite, bool) {
	if n.m.noNonce || r.Nonce == "" {
		return sentWrite{}, false
	}
	return n.writes.Find(func(w sentWrite) bool { return w.rec.Nonce == r.Nonce })
}
