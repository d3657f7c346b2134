package zoo

import (
	"context"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// mistakes are the switches of the careful lock: each one, set alone, turns
// it into one variant of the zoo. The zero value is the careful lock.
type mistakes struct {
	// unconditionalAcquire: acquisitions are PUTs without If-Match or
	// If-None-Match, after a read that found the lease free.
	unconditionalAcquire bool
	// wallClockExpiry: records carry the writer's wall clock plus its
	// lease, and a follower takes over once its own wall clock passes it.
	wallClockExpiry bool
	// lastModified: a follower takes over once its wall clock passes S3's
	// Last-Modified plus the lease.
	lastModified bool
	// sameToken: a new term gets the highest token seen, not one more.
	sameToken bool
	// deleteOnRelease: release deletes the object (If-Match its ETag),
	// and with it the token sequence.
	deleteOnRelease bool
	// noNonce: records carry no nonce, so a renewal rewrites an identical
	// body (same ETag), and no write is recognised as one's own.
	noNonce bool
	// conflictAsSuccess: a 409 answered to an acquisition or a renewal is
	// taken as success.
	conflictAsSuccess bool
	// unconditionalRenew: renewals are PUTs without If-Match.
	unconditionalRenew bool
	// unconditionalRelease: the release is a PUT without If-Match.
	unconditionalRelease bool
	// notFoundAsSuccess: a 404 answered to a renewal is taken as success.
	notFoundAsSuccess bool
	// noWatchdog: nothing ends a term at its local deadline; it ends when
	// a renewal is judged lost.
	noWatchdog bool
	// leaderCtxNotCancelled: the application runs under the candidate's
	// context, which the end of a term does not cancel.
	leaderCtxNotCancelled bool
	// deadlineFromAnswer: a term's deadline runs from the moment the
	// leader learned that its write succeeded, not from the write's send.
	deadlineFromAnswer bool
	// followerNoReset: a follower times a term, not a record: renewals by
	// the same holder under the same token do not restart its wait.
	followerNoReset bool
	// wallClockTimer: durations are measured on the node's wall clock.
	wallClockTimer bool
	// termEqualsLease: a term lasts a full lease after its last send,
	// as long as followers wait, with no margin for drift or pauses.
	termEqualsLease bool
	// identityOwnsRecord: a live record naming this candidate's identity
	// is its own term: it renews it, same token, instead of timing it.
	identityOwnsRecord bool
	// trustsTornReads: a read whose body does not match its ETag (a torn
	// read) is acted on as it came, not read again.
	trustsTornReads bool
}

// careful is the lock of the zoo: one JSON record, conditional writes
// (If-None-Match to create, If-Match to take over, renew and release), a
// nonce in every write, followers that time a record on their own monotonic
// clock from their first sight of it, leaders whose term ends at a deadline
// measured from the send of their last successful write, enforced by a
// watchdog, and a release that keeps the token. m breaks it.
type careful struct {
	s settings
	m mistakes
}

func (c careful) candidate() sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		term := c.s.Assumptions().Term
		if c.m.termEqualsLease {
			term = c.s.LeaseDuration
		}
		n := &node{s: c.s, m: c.m, env: env, Node: lockkit.Node{Clock: env.Clock, Entropy: env.Entropy,
			Store: env.Store, Bucket: env.Bucket, RequestTimeout: c.s.requestTimeout(), Retry: c.s.RetryPeriod,
			Term: term, Renew: c.s.Config(env).RenewInterval(), NoWatchdog: c.m.noWatchdog, WallClockTimer: c.m.wallClockTimer,
			TrustTornReads: c.m.trustsTornReads}}
		if env.ReportLease != nil {
			env.ReportLease(n.lease)
		}
		lockkit.Run(ctx, env.Clock, n.step, n.lead)
		return nil
	}
}

// node is one incarnation of a candidate running the lock.
type node struct {
	lockkit.Node
	s   settings
	m   mistakes
	env sim.Env

	mu  sync.Mutex // guards cur; never held across a blocking call
	cur *term      // the term in progress, nil between terms

	// Owned by the goroutine in run.
	highest   uint64                    // highest token seen in a record or written by this node
	lastGrant uint64                    // token of the last acquisition judged (a term began, or it came too late)
	writes    lockkit.Writes[sentWrite] // this incarnation's recent writes
	seen      observation               // the record being timed as a follower
}

// observation is the record a follower is timing and the first instant it
// saw it.
type observation struct {
	key string
	at  time.Duration
}

// step reads the object once and acts on it.
func (n *node) step(ctx context.Context) (time.Duration, *term) {
	s, err := n.read(ctx)
	switch {
	case err != nil:
		return n.PollWait(), nil
	case !s.Exists:
		return n.acquire(ctx, s)
	case s.bad:
		// No record, or one holding the largest token: time it for the
		// lease it states, if any, and at least ours.
		return n.await(ctx, s, max(max(s.rec.lease(), 0), n.s.LeaseDuration))
	}
	n.highest = max(n.highest, s.rec.Token)
	if n.m.identityOwnsRecord && s.rec.Holder == n.env.Identity && !s.rec.Released {
		return n.claim(ctx, s, s.rec.Token)
	}
	if w, ok := n.ours(s.rec); ok {
		return n.resumeOwn(ctx, s, w)
	}
	if s.rec.Released {
		return n.acquire(ctx, s)
	}
	return n.await(ctx, s, max(s.rec.lease(), n.s.LeaseDuration))
}

// resumeOwn handles a record this incarnation wrote. An acquisition whose
// answer was lost begins its term now, measured from its send; any other
// record of ours belongs to a term that is over, and nobody replaced it:
// take it again with a new token.
func (n *node) resumeOwn(ctx context.Context, s snapshot, w sentWrite) (time.Duration, *term) {
	if w.acquire && !s.rec.Released && w.rec.Token > n.lastGrant {
		if t := n.begin(ctx, s.ETag, w); t != nil {
			return 0, t
		}
	}
	return n.acquire(ctx, s)
}

// await times a record someone else wrote, from the first read that
// returned it, and takes it over once it stayed unchanged for wait.
func (n *node) await(ctx context.Context, s snapshot, wait time.Duration) (time.Duration, *term) {
	key := s.ETag + " " + s.rec.Nonce
	if n.m.followerNoReset {
		key = s.rec.Holder + " " + strconv.FormatUint(s.rec.Token, 10)
	}
	if key != n.seen.key {
		n.seen = observation{key: key, at: s.At}
	}
	elapsed := s.At - n.seen.at
	expired := elapsed >= wait
	left := wait - elapsed
	switch {
	case n.m.wallClockExpiry && !s.rec.Expires.IsZero():
		now := n.Clock.Now()
		expired, left = now.After(s.rec.Expires), s.rec.Expires.Sub(now)
	case n.m.lastModified:
		now, until := n.Clock.Now(), s.LastModified.Add(wait)
		expired, left = !now.Before(until), until.Sub(now)
	}
	if !expired {
		return max(0, min(n.PollWait(), left)), nil
	}
	return n.acquire(ctx, s)
}

// acquire writes a new term's record over the snapshot, with the next token.
func (n *node) acquire(ctx context.Context, s snapshot) (time.Duration, *term) {
	token := n.highest + 1
	if n.highest == math.MaxUint64 {
		token = n.highest // the largest token has no successor: never wrap to 0
	}
	if n.m.sameToken {
		token = max(n.highest, 1)
	}
	return n.claim(ctx, s, token)
}

// claim writes a record with token over the snapshot, If-Match its
// ETag or If-None-Match if there was no object, and begins a term if the
// write succeeded in time.
func (n *node) claim(ctx context.Context, s snapshot, token uint64) (time.Duration, *term) {
	if n.AppRunning() {
		return n.PollWait(), nil // the last term's application has not returned
	}
	n.highest = max(n.highest, token)
	rec := record{Holder: n.env.Identity, Token: token, LeaseMS: n.s.LeaseDuration.Milliseconds()}
	etag, w, err := n.put(ctx, rec, lockkit.Condition{ETag: s.ETag, Unconditional: n.m.unconditionalAcquire}, true)
	class := protocol.ClassifyError(err)
	if n.m.conflictAsSuccess && class == protocol.ClassConflict {
		class, etag = protocol.ClassNone, s.ETag
	}
	switch class {
	case protocol.ClassNone:
		if t := n.begin(ctx, etag, w); t != nil {
			return 0, t
		}
		return n.PollWait(), nil
	case protocol.ClassPreconditionFailed, protocol.ClassNotFound:
		return 0, nil // lost the race, or our earlier attempt won: read again now
	case protocol.ClassConflict, protocol.ClassUnknownOutcome:
		return n.Backoff(), nil
	}
	return n.PollWait(), nil
}

// lease answers an application's "do I lead?": the current term's token,
// if it has not ended and, but for a lock without a watchdog (whose terms
// end only when a renewal fails), its deadline has not passed.
func (n *node) lease() (uint64, bool) {
	n.mu.Lock()
	t := n.cur
	n.mu.Unlock()
	if t == nil || !n.Leads(t.Term) {
		return 0, false
	}
	return t.token, true
}
