package protocol

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// ErrAlreadyRunning is returned by Run when another call of Run on the same
// Elector has not returned yet.
var ErrAlreadyRunning = errors.New("s3lease: Run is already running")

// Lease describes one leadership term.
type Lease struct {
	// Token is the term's fencing token. Tokens of successive terms
	// strictly increase; hand it to every fenced resource.
	Token uint64
	// Holder is this elector's identity.
	Holder string
	// LeaseDuration is the elector's configured LeaseDuration.
	LeaseDuration time.Duration
	// AcquireTime is the wall-clock time written into the record when the
	// term was acquired; for humans only.
	AcquireTime time.Time
	// Previous is the watermark the previous holder handed over: every
	// timestamp written under earlier terms is at or below Previous.At,
	// so write only above it (see Elector.SetWatermark). Zero if the
	// object was created anew, or no holder ever published one.
	Previous Watermark
}

// Elector campaigns for, holds and gives up one S3 lease. Create it with
// NewElector and drive it with Run; IsLeader and Lease may be called from any
// goroutine.
type Elector struct {
	cfg        Config
	clock      Clock
	entropy    entropySource
	log        *slog.Logger
	termLen    time.Duration // how long a term lasts after a successful send
	renewEvery time.Duration // when the next renewal is due after a successful send
	reqTimeout time.Duration
	bucket     *string // cfg.Bucket and cfg.Key, for request inputs
	key        *string

	mu        sync.Mutex
	running   bool
	cur       *term         // the term in progress, nil between terms
	lingering *term         // the last term, once over, while its OnStartedLeading may still run
	phase     Phase         // where Run's goroutine is; written by it
	progress  time.Duration // Monotonic when Run's goroutine last finished an S3 call or a wait
	observed  leaderSeen    // the last observation of who leads

	// Owned by the goroutine in Run.
	highest      uint64          // highest token seen in a record or written by us
	seenObject   bool            // a read showed the lock object, or we wrote it
	lastLease    time.Duration   // the lease of the last valid record read
	lastGrant    uint64          // token of the last acquisition judged: a term began, or it came too late
	writes       []sentWrite     // this Run's most recent writes, oldest first
	seen         observation     // the foreign record whose lease is being timed
	announced    string          // last identity passed to OnNewLeader
	etagsNotMD5  bool            // the last read whose ETag looked like an MD5 showed the same body of another MD5 twice
	prevCallback context.Context // done once the last term's OnStartedLeading returned
}

// NewElector validates cfg and returns an Elector. Errors are *ConfigError
// values wrapping ErrInvalidConfig; see Config for the rules.
func NewElector(cfg Config) (*Elector, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = NewRealClock()
	}
	if cfg.Entropy == nil {
		cfg.Entropy = defaultEntropy()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.ClockDriftPPM = cfg.driftPPM()
	cfg.RequestTimeout = cfg.requestTimeout()
	e := &Elector{
		cfg:        cfg,
		clock:      cfg.Clock,
		log:        cfg.Logger.With("identity", cfg.Identity, "bucket", cfg.Bucket, "key", cfg.Key),
		termLen:    cfg.termLength(),
		renewEvery: cfg.RenewInterval(),
		reqTimeout: cfg.RequestTimeout,
		bucket:     &cfg.Bucket,
		key:        &cfg.Key,
	}
	e.entropy = entropySource{r: cfg.Entropy, log: e.log}
	return e, nil
}

// Run campaigns for the lease, leads while it holds it, and campaigns again
// after a term ends, until ctx is done. It then ends any term (releasing the
// lease if ReleaseOnCancel), waits for OnStartedLeading to return or the local
// deadline to pass, and returns nil: the end of ctx is a normal shutdown,
// whether the caller cancelled it or its deadline passed. The only error is
// ErrAlreadyRunning. A later Run on the same Elector continues its token
// sequence but treats every record it finds as foreign.
func (e *Elector) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.running {
		e.mu.Unlock()
		return ErrAlreadyRunning
	}
	e.running = true
	e.progress = e.clock.Monotonic()
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.running = false
		e.mu.Unlock()
	}()

	e.writes, e.seen = nil, observation{}
	e.to(PhaseReading, CauseStart)
	for {
		t := e.campaign(ctx)
		if t == nil {
			return nil
		}
		e.lead(ctx, t)
		if ctx.Err() != nil {
			if e.phase != PhaseStopped { // the term ended before ctx did
				e.to(PhaseStopped, CauseShutdown)
			}
			return nil
		}
	}
}

// LeaderInfo is who leads, as an elector last observed it.
type LeaderInfo struct {
	// Identity is the holder named by the last record observed, if that
	// record was live (not released); "" if the last observation showed
	// no live holder (a released record, a missing object, a body that is
	// no record) or there was none yet.
	Identity string
	// Token is that record's fencing token, 0 if Identity is "".
	Token uint64
	// Self reports that this elector leads now: a term is in progress and
	// its local deadline has not passed (IsLeader).
	Self bool
	// Observed reports that there was an observation: a read of the lock
	// object, or a successful write of this elector's.
	Observed bool
	// Age is how long ago, on this elector's monotonic clock, the
	// observation was made, counted from the send of the request that
	// made it (the read, or the write of this elector's that S3 applied):
	// the record it names was the lock object's content at some instant
	// within Age, however slow the answer, and whatever pause came before
	// the elector looked at it. A follower reads every RetryPeriod and a
	// leader renews as often, so an Age well beyond that means the elector
	// cannot reach S3.
	Age time.Duration
}

// leaderSeen is the last observation of who leads.
type leaderSeen struct {
	identity string
	token    uint64
	at       time.Duration
	set      bool
}

// Leader returns who leads as this elector last observed it, and how old
// that observation is. It may be called from any goroutine.
func (e *Elector) Leader() LeaderInfo {
	now := e.clock.Monotonic()
	e.mu.Lock()
	defer e.mu.Unlock()
	o := e.observed
	info := LeaderInfo{Identity: o.identity, Token: o.token, Observed: o.set}
	if o.set {
		info.Age = now - o.at
	}
	if t := e.cur; t != nil && !t.ended && now < t.deadline {
		info.Self = true
	}
	return info
}

// Phase returns where the elector is in its cycle. It may be called from
// any goroutine; the answer may be out of date as soon as it is returned.
func (e *Elector) Phase() Phase {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.phase
}

// observe records who leads according to a record that was the lock
// object's content after Monotonic at (the send of the request that
// showed it): holder, or no one if holder is "".
func (e *Elector) observe(holder string, token uint64, at time.Duration) {
	if holder == "" {
		token = 0
	}
	e.mu.Lock()
	e.observed = leaderSeen{identity: holder, token: token, at: at, set: true}
	e.mu.Unlock()
}

// to moves Run's goroutine to phase p because of c, and reports the
// transition. A transition that Transitions does not list is a bug, logged
// as an error.
func (e *Elector) to(p Phase, c Cause) {
	e.mu.Lock()
	t := Transition{From: e.phase, Cause: c, To: p}
	e.phase = p
	e.mu.Unlock()
	if !t.Declared() {
		e.log.Error("undeclared transition", "transition", t.String())
	}
	if f := e.cfg.Metrics.Transition; f != nil {
		f(t)
	}
}

// markProgress notes that Run's goroutine finished an S3 call or a wait.
func (e *Elector) markProgress() {
	now := e.clock.Monotonic()
	e.mu.Lock()
	e.progress = now
	e.mu.Unlock()
}

// sleep is Clock.Sleep on Run's goroutine, which marks progress when the
// wait is over.
func (e *Elector) sleep(ctx context.Context, d time.Duration) error {
	err := e.clock.Sleep(ctx, d)
	e.markProgress()
	return err
}

// IsLeader reports whether a term is in progress and its local deadline has
// not passed.
func (e *Elector) IsLeader() bool {
	_, ok := e.Lease()
	return ok
}

// Lease returns the current term, if one is in progress and its local
// deadline has not passed.
func (e *Elector) Lease() (Lease, bool) {
	now := e.clock.Monotonic()
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.cur
	if t == nil || t.ended || now >= t.deadline {
		return Lease{}, false
	}
	return t.lease, true
}

// announce reports holder to OnNewLeader if it differs from the last one.
func (e *Elector) announce(holder string) {
	if holder == e.announced {
		return
	}
	e.announced = holder
	e.log.Info("new leader observed", "holder", holder)
	if f := e.cfg.Callbacks.OnNewLeader; f != nil {
		f(holder)
	}
}

// spawn runs f via Clock.Go and returns a context that is done once f
// returned: the way to join it with Clock.Sleep.
func (e *Elector) spawn(f func()) context.Context {
	done, markDone := context.WithCancel(context.Background())
	e.clock.Go(func() {
		defer markDone()
		f()
	})
	return done
}

// pollWait is a follower's interval between reads: RetryPeriod plus up to
// 20% jitter.
func (e *Elector) pollWait() time.Duration {
	return e.cfg.RetryPeriod + e.entropy.jitter(e.cfg.RetryPeriod/5)
}

// backoff is the short jittered pause after a 409 or an unknown outcome:
// between 10% and 20% of RetryPeriod.
func (e *Elector) backoff() time.Duration {
	return e.cfg.RetryPeriod/10 + e.entropy.jitter(e.cfg.RetryPeriod/10)
}

// wallTime is the wall clock (Clock.Now) as records carry it: in UTC, an
// offset RFC 3339 holds exactly (a local zone's offset may have seconds,
// which it drops, and Encode refuses a time it would not read back).
func (e *Elector) wallTime() time.Time {
	return e.clock.Now().UTC()
}
