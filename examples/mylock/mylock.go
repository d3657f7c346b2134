// Package mylock is a small lease lock on one S3 object, written as a user
// of the harness would write their own, and tested with it (mylock_test.go).
//
// The object is one JSON record. A follower reads it every retry period. If
// there is none, it creates one with If-None-Match: *. If the record is
// released, or kept its ETag for a full lease on the follower's own
// monotonic clock since it first saw that ETag, the follower takes it over
// with If-Match that ETag and the next token. A leader renews every retry
// period with If-Match its last ETag and leads until the send time of its
// last successful write plus Term; a watchdog ends the term then, even while
// a renewal is in flight.
package mylock

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Config are the lock's timings.
type Config struct {
	Lease          time.Duration // how long a follower waits on an unchanged record
	Term           time.Duration // how long a leader leads after sending its last successful write
	Retry          time.Duration // between renewals, and between a follower's reads
	RequestTimeout time.Duration // bound on every S3 call
	DriftPPM       int64         // assumed bound on every clock's rate error
}

// Default is a 6 s lease renewed every second.
var Default = Config{Lease: 6 * time.Second, Term: 4 * time.Second, Retry: time.Second,
	RequestTimeout: time.Second, DriftPPM: 1000}

// Protocol is the lock with the Default timings, for the harness.
func Protocol() harness.Protocol { return Default.Protocol() }

// Protocol describes the lock to the harness with the assumptions under
// which two leaders never overlap.
//
// A write sent at a leader's monotonic reading s ends its term at s+Term on
// that clock: at most Term/(1-ρ) of true time later (ρ the drift bound),
// plus however long the process is paused when the watchdog is due. A
// follower sees the write only after it applied, so after s, and takes over
// only once its own clock shows a lease since then: Lease/(1+ρ) of true time
// at least. So the term is over in time if Term/(1-ρ) + pause < Lease/(1+ρ),
// which holds for any pause up to Lease - Term - 4ρ·Lease (for ρ ≤ 1%, 4ρ·Lease
// exceeds the drift terms ρ·Lease + 2ρ·Term): MaxPause, the slack between
// the term and the lease, less the drift (protocol.PauseBound).
//
// After faults heal, a write sent before may still land a retry period and
// a request later; a follower sees the last record within a retry period and
// a request, waits a lease, and takes over with one request; a retry period
// and a request more cover a lost race: LivenessBound.
func (c Config) Protocol() harness.Protocol {
	return harness.Protocol{
		Name:      "mylock",
		Candidate: c.Candidate,
		Assumptions: protocol.Assumptions{Lease: c.Lease, MaxDriftPPM: c.DriftPPM,
			MaxPause: protocol.PauseBound(c.Lease, c.Term, c.DriftPPM)},
		LivenessBound: c.Lease + 3*c.Retry + 3*c.RequestTimeout,
	}
}

type node struct {
	cfg      Config
	env      sim.Env
	clk      protocol.Clock
	seenETag string        // the ETag this follower is timing
	seenAt   time.Duration // when it first read it
}

// Candidate runs one node of the lock until ctx is done.
func (c Config) Candidate(ctx context.Context, env sim.Env) error {
	n := &node{cfg: c, env: env, clk: env.Clock}
	for ctx.Err() == nil {
		if wait, t := n.follow(ctx); t != nil {
			n.lead(ctx, t)
		} else {
			_ = n.clk.Sleep(ctx, wait)
		}
	}
	return nil
}

// follow reads the object once; it returns the wait before the next read,
// or a term that began.
func (n *node) follow(ctx context.Context) (time.Duration, *term) {
	etag, rec, at, err := n.read(ctx)
	switch {
	case err != nil:
		return n.cfg.Retry, nil
	case etag == "":
		return n.acquire(ctx, "", 1)
	case etag != n.seenETag:
		n.seenETag, n.seenAt = etag, at
	}
	if rec.Released || n.expired(rec, at-n.seenAt) {
		return n.acquire(ctx, etag, rec.Token+1)
	}
	return min(n.cfg.Retry, max(n.seenAt+n.cfg.Lease-at, n.cfg.Retry/10)), nil
}

// term is one leadership term.
type term struct {
	ctx      context.Context // the application's: cancelled when the term ends
	cancel   context.CancelFunc
	deadline atomic.Int64             // monotonic instant at which the term ends
	last     write                    // the last write known to have succeeded
	unknown  map[string]time.Duration // nonce -> send time of renewals of unknown outcome
}

// acquire writes a record with token over etag (If-None-Match: * if etag is
// empty) and begins a term if the write succeeded in time. On any failure
// it reads again: a write that may have applied is a record like any other.
func (n *node) acquire(ctx context.Context, etag string, token uint64) (time.Duration, *term) {
	w, err := n.put(ctx, record{Token: token}, etag)
	if err != nil || n.clk.Monotonic() >= w.sent+n.cfg.Term {
		return n.cfg.Retry / 10, nil
	}
	t := &term{last: w, unknown: map[string]time.Duration{}}
	t.ctx, t.cancel = context.WithCancel(ctx)
	t.deadline.Store(int64(w.sent + n.cfg.Term))
	n.seenETag = ""
	n.clk.Go(func() { n.watchdog(t) })
	return 0, t
}

// watchdog ends the term at its deadline, even while a renewal is in flight.
func (n *node) watchdog(t *term) {
	for {
		left := time.Duration(t.deadline.Load()) - n.clk.Monotonic()
		if left <= 0 {
			t.cancel()
			return
		}
		if n.clk.Sleep(t.ctx, left) != nil {
			return
		}
	}
}

// lead runs the application and renews every retry period until the term
// ends; then it waits for the application to return and, if the node is
// stopping, releases the lock.
func (n *node) lead(ctx context.Context, t *term) {
	appDone, markDone := context.WithCancel(context.Background())
	n.clk.Go(func() { defer markDone(); n.env.Lead(t.ctx, t.last.rec.Token) })
	wait := t.last.sent + n.cfg.Retry - n.clk.Monotonic()
	for n.clk.Sleep(t.ctx, wait) == nil {
		wait = n.renew(t)
	}
	t.cancel()
	for appDone.Err() == nil {
		_ = n.clk.Sleep(appDone, n.cfg.Lease)
	}
	if ctx.Err() != nil {
		rec := t.last.rec
		rec.Released = true
		_, _ = n.put(context.WithoutCancel(ctx), rec, t.last.etag)
	}
}

// renew writes the term's record again, If-Match its ETag, and returns the
// wait before the next renewal. On a failure (412, 5xx, a timeout) it reads
// the object: a renewal of ours that did apply extends the term, an
// unchanged object means none did and it tries again, anything else ends
// the term. Until it knows, the term lasts only to its deadline.
func (n *node) renew(t *term) time.Duration {
	w, err := n.put(t.ctx, t.last.rec, t.last.etag)
	if err == nil {
		return n.extend(t, w)
	}
	if w.rec.Nonce != "" {
		t.unknown[w.rec.Nonce] = w.sent
	}
	etag, rec, _, err := n.read(t.ctx)
	sent, ours := t.unknown[rec.Nonce]
	switch {
	case t.ctx.Err() != nil:
		return 0
	case err != nil || etag == t.last.etag:
		return n.cfg.Retry / 4
	case ours && !rec.Released:
		return n.extend(t, write{rec: rec, etag: etag, sent: sent})
	}
	t.cancel() // someone else wrote the object
	return 0
}

// extend makes w the term's last successful write and moves the deadline to
// its send time plus Term, unless the term ran out already.
func (n *node) extend(t *term, w write) time.Duration {
	now, deadline := n.clk.Monotonic(), time.Duration(t.deadline.Load())
	if now >= deadline {
		t.cancel()
		return 0
	}
	t.deadline.Store(int64(max(deadline, w.sent+n.cfg.Term)))
	t.last = w
	clear(t.unknown)
	return w.sent + n.cfg.Retry - now
}
