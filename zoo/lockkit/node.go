package lockkit

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Node is one incarnation of a candidate running a careful lock.
type Node struct {
	// Clock is the node's only source of time, sleeping and goroutines.
	Clock protocol.Clock
	// Entropy is the source of nonces and jitter.
	Entropy io.Reader
	// Store and Bucket hold the lock object (or objects) Read, Put and
	// Delete name by key.
	Store  sim.S3Client
	Bucket string
	// RequestTimeout bounds every call to Store; 0 leaves them to the
	// caller's context.
	RequestTimeout time.Duration
	// Retry is a follower's interval between reads (PollWait).
	Retry time.Duration
	// Term is how long a term lasts after the start of its last successful
	// write; Renew is the interval between renewals, from its send.
	Term, Renew time.Duration
	// NoWatchdog, set only to model a broken lock, leaves a term running
	// past its deadline until the lock stops it.
	NoWatchdog bool
	// WallClockTimer, set only to model a broken lock, measures every
	// duration on the wall clock instead of the monotonic clock.
	WallClockTimer bool
	// TrustTornReads, set only to model a broken lock, makes Read return
	// a body that does not match its ETag (a torn read) as it came.
	TrustTornReads bool

	lastApp context.Context // done once the last term's application returned
}

// Now is the reading every duration is measured on: the monotonic clock.
func (n *Node) Now() time.Duration {
	if n.WallClockTimer {
		return time.Duration(n.Clock.Now().UnixNano())
	}
	return n.Clock.Monotonic()
}

// AppRunning reports whether the application of the node's last term has
// not returned yet: no new term may begin before it has.
func (n *Node) AppRunning() bool { return n.lastApp != nil && n.lastApp.Err() == nil }

// Nonce returns 16 fresh hex digits from the node's entropy.
func (n *Node) Nonce() string {
	var b [8]byte
	_, _ = io.ReadFull(n.Entropy, b[:])
	return hex.EncodeToString(b[:])
}

// Jitter returns a duration in [0, limit].
func (n *Node) Jitter(limit time.Duration) time.Duration {
	var b [8]byte
	_, _ = io.ReadFull(n.Entropy, b[:])
	return time.Duration(binary.BigEndian.Uint64(b[:]) % uint64(limit+1))
}

// PollWait is a follower's interval between reads: a retry period plus up
// to 20% jitter.
func (n *Node) PollWait() time.Duration { return n.Retry + n.Jitter(n.Retry/5) }

// Backoff is the short pause after a 409 or an unknown outcome: 10-20% of
// a retry period.
func (n *Node) Backoff() time.Duration { return n.Retry/10 + n.Jitter(n.Retry/10) }

// Spawn runs f via Clock.Go and returns a context that is done once f
// returned: the way to join it with Clock.Sleep.
func (n *Node) Spawn(f func()) context.Context {
	done, markDone := context.WithCancel(context.Background())
	n.Clock.Go(func() {
		defer markDone()
		f()
	})
	return done
}

// Run campaigns and leads until ctx is done: step makes one campaign step
// and returns the term it began or the wait before the next step; lead
// leads a term until it is over.
func Run[T any](ctx context.Context, clk protocol.Clock, step func(context.Context) (time.Duration, *T), lead func(context.Context, *T)) {
	for ctx.Err() == nil {
		wait, t := step(ctx)
		if t != nil {
			lead(ctx, t)
			continue
		}
		if clk.Sleep(ctx, wait) != nil {
			return
		}
	}
}

// MaxWrites is how many recent writes Writes keeps.
const MaxWrites = 16

// Writes are an incarnation's recent writes, oldest first: every write
// carries a fresh nonce and is remembered before it is sent, so that a
// later read recognises it whatever the answer.
type Writes[W any] struct{ list []W }

// Remember adds w, forgetting the oldest beyond MaxWrites.
func (ws *Writes[W]) Remember(w W) {
	if len(ws.list) == MaxWrites {
		ws.list = append(ws.list[:0], ws.list[1:]...)
	}
	ws.list = append(ws.list, w)
}

// Find returns the remembered write that is, and reports whether there is
// one.
func (ws *Writes[W]) Find(is func(W) bool) (W, bool) {
	for _, w := range ws.list {
		if is(w) {
			return w, true
		}
	}
	var none W
	return none, false
}
