package leadermgr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Lease is what the application of a SafeManager is told when a term
// begins.
type Lease struct {
	// Identity is the manager's.
	Identity string
	// Token is the term's fencing token: pass it with every write to the
	// resources the leader guards, which admit it with a protocol.Fence.
	Token uint64
}

// SafeConfig configures a SafeManager.
type SafeConfig struct {
	// Store keeps the lease entry (NewS3Store, or pgbackend.NewStore).
	Store LeaseStore
	// Identity names the manager in the entry; "" means a random UUID.
	// Two managers may share one: a term belongs to the write that began
	// it (its nonce), never to a name.
	Identity string

	// Term is the lease: how long the entry stays valid for others without
	// a renewal.
	Term time.Duration
	// RenewDeadline bounds a term: it ends RenewDeadline (at most Term
	// less the drift margin) after the send of its last successful write,
	// on the manager's monotonic clock, whether or not a renewal is in
	// flight.
	RenewDeadline time.Duration
	// Renew is the interval between renewals, from the send of the last
	// successful one.
	Renew time.Duration
	// Retry is the interval between attempts to acquire (plus up to 20%
	// jitter).
	Retry time.Duration
	// RequestTimeout bounds every call to the Store.
	RequestTimeout time.Duration
	// DriftPPM bounds the rate error of every clock involved (the
	// managers', and the SQL server's), in parts per million.
	DriftPPM int64

	// Clock is the manager's only source of time, sleeping and goroutines;
	// nil means protocol.NewRealClock().
	Clock protocol.Clock
	// Entropy is the source of nonces and jitter; nil means crypto/rand.
	Entropy io.Reader

	// OnElected is the application: it runs on a goroutine of its own
	// (Clock.Go) while the manager leads, and must return once ctx is
	// done, which is at the latest at the term's deadline. No new term
	// begins before it returned. Required.
	OnElected func(ctx context.Context, lease Lease)
	// OnOusting is called once a term ended and its application returned
	// (or its deadline passed), on the manager's goroutine.
	OnOusting func(lease Lease)
	// OnError is called with every error of the Store other than ErrHeld,
	// on the manager's goroutine.
	OnError func(err error)

	// noWatchdog breaks the manager for the test that shows the harness
	// catches it: no watchdog ends a term at its deadline.
	noWatchdog bool
}

// timings are the figures the manager derives its term and assumptions
// from.
func (c SafeConfig) timings() lockkit.Timings {
	return lockkit.Timings{Lease: c.Term, RenewDeadline: c.RenewDeadline, DriftPPM: c.DriftPPM,
		Fields: [3]string{"Term", "RenewDeadline", "DriftPPM"}}
}

// TermLength is how long a term lasts after the send of its last
// successful write: protocol.TermLength, min(RenewDeadline, Term less the
// drift margin).
func (c SafeConfig) TermLength() time.Duration { return c.timings().Term() }

// Validate reports what is wrong with the configuration's settings (not
// its Store, Clock or callbacks), as a *protocol.ConfigError naming the
// field: among them a lease, renew deadline or drift bound that leaves no
// margin (lockkit.Timings.Check).
func (c SafeConfig) Validate() error {
	if err := c.timings().Check(); err != nil {
		return err
	}
	switch {
	case c.Renew <= 0 || c.Renew >= c.TermLength():
		return lockkit.Invalid("Renew", "must be positive and less than the term length (%v), got %v", c.TermLength(), c.Renew)
	case c.Retry <= 0:
		return lockkit.Invalid("Retry", "must be positive, got %v", c.Retry)
	case c.RequestTimeout <= 0 || c.RequestTimeout > c.TermLength()/2:
		return lockkit.Invalid("RequestTimeout", "must be positive and at most half the term length (%v), got %v", c.TermLength(), c.RequestTimeout)
	}
	return nil
}

// Assumptions are the conditions under which two terms of managers with
// this configuration never overlap in true time: clock rates (the
// managers', and the SQL server's, which decides expiry there) within
// DriftPPM of true time, and no process pause longer than the slack between
// the end of a term and the earliest takeover, less what drift can eat of
// it (lockkit.Timings.Assumptions). Outside them the fencing token still
// keeps a stale leader's writes out.
func (c SafeConfig) Assumptions() protocol.Assumptions { return c.timings().Assumptions() }

// LivenessBound is how long after faults heal a manager leads: a read (a
// retry period with jitter and a request), a full lease, a write, and a
// retry period to spare for a conflict.
func (c SafeConfig) LivenessBound() time.Duration {
	return c.Term + 3*c.Retry + 3*c.RequestTimeout
}

// SafeManager is a leader manager over a LeaseStore with the production
// elector's guarantees (see the package documentation): a term ends at a
// local deadline on the monotonic clock, each term carries a fencing token
// that strictly increases, and a write whose outcome is unknown is
// resolved by reading the entry back and comparing nonces.
type SafeManager struct {
	cfg SafeConfig
	kit lockkit.Node // the term, its timings, nonces and jitter

	// Owned by the goroutine in Run.
	writes lockkit.Writes[sentWrite] // this manager's recent writes
}

// sentWrite is one write this manager sent.
type sentWrite struct {
	nonce   string
	at      time.Duration // Monotonic() just before the call
	acquire bool
}

// NewSafeManager checks cfg and returns its manager.
func NewSafeManager(cfg SafeConfig) (*SafeManager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Store == nil {
		return nil, errors.New("leadermgr: SafeConfig.Store is nil")
	}
	if cfg.OnElected == nil {
		return nil, errors.New("leadermgr: SafeConfig.OnElected is nil")
	}
	if cfg.Clock == nil {
		cfg.Clock = protocol.NewRealClock()
	}
	if cfg.Entropy == nil {
		cfg.Entropy = systemEntropy()
	}
	if cfg.Identity == "" {
		id, err := randomUUID(cfg.Entropy)
		if err != nil {
			return nil, fmt.Errorf("leadermgr: identity: %w", err)
		}
		cfg.Identity = id
	}
	return &SafeManager{cfg: cfg, kit: lockkit.Node{Clock: cfg.Clock, Entropy: cfg.Entropy, Retry: cfg.Retry,
		Term: cfg.TermLength(), Renew: cfg.Renew, NoWatchdog: cfg.noWatchdog}}, nil
}

// Identity returns the manager's identity.
func (m *SafeManager) Identity() string { return m.cfg.Identity }

// term is one leadership term: its timing (lockkit.Term) and its lease.
type term struct {
	*lockkit.Term
	lease Lease
	entry Entry // the term's current entry; owned by the goroutine in Run
}

// Run campaigns and leads until ctx is done, then ends the term it has,
// waits for its application, releases the lease if the application
// returned before the deadline, and returns nil. A manager runs once.
func (m *SafeManager) Run(ctx context.Context) error {
	lockkit.Run(ctx, m.kit.Clock, m.attempt, m.lead)
	return nil
}

// attempt makes one acquisition attempt and returns the term it began, or
// how long to wait before the next.
func (m *SafeManager) attempt(ctx context.Context) (time.Duration, *term) {
	if m.kit.AppRunning() {
		return m.kit.PollWait(), nil // the last term's application has not returned
	}
	w := sentWrite{nonce: m.kit.Nonce(), acquire: true}
	cctx, cancel := m.kit.Clock.WithTimeout(ctx, m.cfg.RequestTimeout)
	w.at = m.kit.Clock.Monotonic()
	m.writes.Remember(w)
	e, err := m.cfg.Store.Acquire(cctx, m.cfg.Identity, w.nonce, m.cfg.Term)
	cancel()
	switch {
	case err == nil:
		if t := m.begin(ctx, e, w); t != nil {
			return 0, t
		}
		return m.kit.PollWait(), nil
	case errors.Is(err, ErrHeld):
		return m.kit.PollWait(), nil
	}
	m.onError(err)
	// The outcome is unknown, or the condition failed (which may hide an
	// earlier attempt of ours that applied): read what the entry holds.
	e, ok, rerr := m.read(ctx)
	if rerr != nil {
		m.onError(rerr)
		return m.kit.PollWait(), nil
	}
	if own, mine := m.ours(e); ok && mine && own.acquire && !e.Released {
		if t := m.begin(ctx, e, own); t != nil {
			return 0, t
		}
	}
	return m.kit.Backoff(), nil
}

// begin starts a term on the acquisition w, which wrote e, unless its
// deadline (from w's send) has passed already. Each acquisition begins at
// most one term: the writes it and older ones made are forgotten.
func (m *SafeManager) begin(ctx context.Context, e Entry, w sentWrite) *term {
	m.writes = lockkit.Writes[sentWrite]{}
	lease := Lease{Identity: m.cfg.Identity, Token: e.Token}
	kt := m.kit.Begin(ctx, w.at, func(lctx context.Context) { m.cfg.OnElected(lctx, lease) })
	if kt == nil {
		return nil // granted too late: the entry expires unused
	}
	return &term{Term: kt, lease: lease, entry: e}
}

// lead renews the term every Renew, counted from the send of its last
// successful write, until the term ends, then finishes it (see
// lockkit.Node.Lead) and calls OnOusting.
func (m *SafeManager) lead(ctx context.Context, t *term) {
	m.kit.Lead(ctx, t.Term, func() time.Duration { return m.renew(t) },
		func(ctx context.Context) bool { return m.releaseOnce(ctx, t) })
	if m.cfg.OnOusting != nil {
		m.cfg.OnOusting(t.lease)
	}
}

// renew writes the term's entry again, same token, conditioned on its
// current version, and returns how long to wait before the next renewal.
func (m *SafeManager) renew(t *term) time.Duration {
	w := sentWrite{nonce: m.kit.Nonce()}
	cctx, cancel := m.kit.Clock.WithTimeout(t.Ctx, m.cfg.RequestTimeout)
	w.at = m.kit.Clock.Monotonic()
	m.writes.Remember(w)
	e, err := m.cfg.Store.Renew(cctx, t.entry, w.nonce, m.cfg.Term)
	cancel()
	class := protocol.ClassNone
	if err != nil {
		class = protocol.ClassUnknownOutcome // the store's errors all leave the outcome to a read
		if t.Ctx.Err() == nil {
			m.onError(err)
		}
	}
	var cur Entry
	return m.kit.Settle(t.Term, class, func() time.Duration { return m.extend(t, e, w) }, t.entry.Version,
		func() (lockkit.Object, error) {
			var ok bool
			var err error
			cur, ok, err = m.read(t.Ctx)
			if err != nil {
				m.onError(err)
			}
			return lockkit.Object{Exists: ok, ETag: cur.Version}, err
		},
		func() (time.Duration, bool) {
			own, mine := m.ours(cur)
			if mine && !own.acquire && cur.Token == t.lease.Token && cur.Holder == m.cfg.Identity && !cur.Released {
				return m.extend(t, cur, own), true
			}
			return 0, false
		})
}

// extend moves the term's deadline after its successful write w (see
// lockkit.Node.Extend) and, if the term is still alive, makes e its entry.
func (m *SafeManager) extend(t *term, e Entry, w sentWrite) time.Duration {
	wait, ok := m.kit.Extend(t.Term, w.at, w.at)
	if ok {
		t.entry = e
	}
	return wait
}

// releaseOnce marks the term's entry released, so that the next manager
// takes over at once with the next token, and reports whether there is
// nothing more to do.
func (m *SafeManager) releaseOnce(ctx context.Context, t *term) bool {
	w := sentWrite{nonce: m.kit.Nonce(), at: m.kit.Clock.Monotonic()}
	m.writes.Remember(w)
	cctx, cancel := m.kit.Clock.WithTimeout(ctx, m.cfg.RequestTimeout)
	err := m.cfg.Store.Release(cctx, t.entry, w.nonce)
	cancel()
	if err == nil {
		return true
	}
	m.onError(err)
	cur, ok, rerr := m.read(ctx)
	if rerr != nil {
		m.onError(rerr)
		return false
	}
	own, mine := m.ours(cur)
	if !ok || !mine || cur.Released || cur.Token != t.lease.Token || own.acquire {
		return true // released, or someone else's now
	}
	t.entry = cur // a renewal of ours applied after all: release that
	return false
}

// read reads the entry under a request timeout.
func (m *SafeManager) read(ctx context.Context) (Entry, bool, error) {
	cctx, cancel := m.kit.Clock.WithTimeout(ctx, m.cfg.RequestTimeout)
	defer cancel()
	return m.cfg.Store.Read(cctx)
}

func (m *SafeManager) onError(err error) {
	if m.cfg.OnError != nil {
		m.cfg.OnError(err)
	}
}

// ours returns the write of this manager that e is, by nonce.
func (m *SafeManager) ours(e Entry) (sentWrite, bool) {
	if e.Nonce == "" || e.Holder != m.cfg.Identity {
		return sentWrite{}, false
	}
	return m.writes.Find(func(w sentWrite) bool { return w.nonce == e.Nonce })
}
