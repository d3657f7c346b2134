package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"
	"unicode/utf8"
)

// Defaults in the spirit of client-go's leader election. NewElector does not
// fill them in: a zero duration in a Config is an error, so copy these
// explicitly.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second

	// DefaultClockDriftPPM is the clock-rate bound used when
	// Config.ClockDriftPPM is 0: 1000 parts per million (0.1%), far above
	// the tens of ppm of an ordinary quartz oscillator.
	DefaultClockDriftPPM = 1000

	// MaxClockDriftPPM is the largest accepted Config.ClockDriftPPM (10%).
	MaxClockDriftPPM = 100_000

	// MaxLeaseDuration bounds LeaseDuration, which keeps every sum of
	// monotonic readings and durations far from overflow.
	MaxLeaseDuration = 24 * time.Hour

	// MaxIdentityLen is the longest accepted Config.Identity, in bytes. JSON
	// writes a byte as at most 6 (a control character as \u0000, '<' as
	// \u003c), so a record naming two such identities, its own holder and
	// the previous term's, takes under 13 KiB, well within the 64 KiB that
	// DecodeRecord accepts.
	MaxIdentityLen = 1024

	// MaxKeyLen is the longest accepted Config.Key, in bytes: S3's limit on
	// an object key.
	MaxKeyLen = 1024
)

// ErrInvalidConfig is wrapped by every error NewElector returns for a bad
// Config; the error is a *ConfigError naming the field.
var ErrInvalidConfig = errors.New("invalid config")

// ConfigError reports one invalid Config field.
type ConfigError struct {
	Field   string // the Config field, e.g. "RenewDeadline" or "Callbacks.OnStartedLeading"
	Problem string // what is wrong with it
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("s3lease: %v: %s %s", ErrInvalidConfig, e.Field, e.Problem)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// Config configures an Elector. Every field without a stated default is
// required.
type Config struct {
	// Store is the S3 client; a *s3.Client satisfies ObjectStore.
	Store ObjectStore
	// Clock is the source of time and goroutines; nil means NewRealClock().
	Clock Clock
	// Entropy supplies nonces and jitter; nil means crypto/rand.Reader. It
	// is read only from the goroutine running Run.
	Entropy io.Reader

	// Bucket and Key name the one lock object: UTF-8, as S3 names are, and
	// Key at most MaxKeyLen bytes.
	Bucket, Key string
	// Identity names this candidate in the lock record: UTF-8 of at most
	// MaxIdentityLen bytes, which every record and audit link carries
	// byte for byte (JSON could not carry a byte that is not UTF-8).
	// Electors that share an identity still exclude each other (records
	// are told apart by nonce), but the record can then not tell humans
	// which one holds it.
	Identity string

	// LeaseDuration is how long followers wait, on their own clocks, after
	// first seeing a record unchanged before they take it over. It is
	// written into every record this elector writes, in milliseconds,
	// rounded up (a follower never waits less).
	LeaseDuration time.Duration
	// RenewDeadline is how long a term lasts after the leader sent its last
	// successful write: the leader's context is cancelled once it passes.
	RenewDeadline time.Duration
	// RetryPeriod is the interval between a follower's reads (plus up to
	// 20% jitter) and between a leader's renewals, counted from the send
	// of its last successful write; but a leader renews sooner when a
	// RetryPeriod would leave its renewal less than RequestTimeout before
	// the term's deadline (see RenewInterval).
	RetryPeriod time.Duration
	// RequestTimeout bounds each S3 call; 0 means RetryPeriod.
	RequestTimeout time.Duration

	// ClockDriftPPM bounds how far any node's monotonic clock rate may
	// differ from true time, in parts per million; 0 means
	// DefaultClockDriftPPM.
	ClockDriftPPM int64

	// ReleaseOnCancel makes Run mark the record released when its context
	// ends during a term, so that a follower takes over at once instead of
	// after a lease.
	ReleaseOnCancel bool

	Callbacks LeaderCallbacks

	// Metrics receives measurements and every transition of the elector's
	// phase machine; every field is optional.
	Metrics Metrics

	// Logger receives the elector's log; nil discards it.
	Logger *slog.Logger
}

// LeaderCallbacks are the application's hooks. OnStoppedLeading and
// OnNewLeader run on Run's goroutine and must return quickly.
type LeaderCallbacks struct {
	// OnStartedLeading is called, via Clock.Go, when a term begins. ctx is
	// cancelled when the term ends, no later than the local deadline.
	// Required.
	OnStartedLeading func(ctx context.Context, lease Lease)
	// OnStoppedLeading is called when a term ends, after ctx of
	// OnStartedLeading was cancelled and either that callback returned or
	// the local deadline passed.
	OnStoppedLeading func()
	// OnNewLeader is called when the holder named by the current live
	// record changes, including to this elector's own identity.
	OnNewLeader func(identity string)
}

// validate checks c and returns a copy with the documented defaults filled
// in (Clock, Entropy, RequestTimeout, ClockDriftPPM, Logger are filled by
// NewElector). The rules:
//
//   - Store, Bucket, Key, Identity and Callbacks.OnStartedLeading are set;
//     Bucket, Key and Identity are UTF-8; Key is at most MaxKeyLen bytes,
//     Identity at most MaxIdentityLen: every value the elector writes
//     reads back exactly as written, or is refused here.
//   - LeaseDuration, RenewDeadline, RetryPeriod are > 0; RequestTimeout >= 0;
//     LeaseDuration <= MaxLeaseDuration.
//   - ClockDriftPPM is in [0, MaxClockDriftPPM].
//   - LeaseDuration > RenewDeadline > RetryPeriod*6/5, client-go's rule
//     (LeaseDuration > RenewDeadline > JitterFactor*RetryPeriod, with its
//     JitterFactor of 1.2): a follower's read, RetryPeriod plus up to 20%
//     jitter, comes within the deadline.
//   - RenewDeadline <= LeaseDuration - driftMargin: the leader stops before
//     any follower, whose clock may run fast, can think the lease is over.
//   - RequestTimeout (after its default) <= RenewDeadline/2, so a hung
//     request is abandoned early enough for at least one more attempt
//     before the deadline.
//
// No rule ties RetryPeriod to RequestTimeout, and client-go has none (its
// leader tries again every RetryPeriod until RenewDeadline passes). Yet a
// renewal sent a RetryPeriod after the last write may have less than a
// round trip left before the deadline (RenewDeadline 367 ms, RetryPeriod
// 300 ms: 67 ms), and a leader would lose its term with no fault at all.
// So the leader renews by the deadline less RequestTimeout when that comes
// first (RenewInterval): with every accepted configuration a leader keeps
// its term while S3 answers within RequestTimeout.
//
// Every comparison is exact: a product is formed only of durations already
// bounded by MaxLeaseDuration, so none overflows.
func (c Config) validate() error {
	bad := func(field, problem string, args ...any) error {
		return &ConfigError{Field: field, Problem: fmt.Sprintf(problem, args...)}
	}
	switch {
	case c.Store == nil:
		return bad("Store", "is nil")
	case c.Bucket == "":
		return bad("Bucket", "is empty")
	case !utf8.ValidString(c.Bucket):
		return bad("Bucket", "is not UTF-8")
	case c.Key == "":
		return bad("Key", "is empty")
	case !utf8.ValidString(c.Key):
		return bad("Key", "is not UTF-8")
	case len(c.Key) > MaxKeyLen:
		return bad("Key", "must be at most %d bytes, got %d", MaxKeyLen, len(c.Key))
	case c.Identity == "":
		return bad("Identity", "is empty")
	case !utf8.ValidString(c.Identity):
		return bad("Identity", "is not UTF-8")
	case len(c.Identity) > MaxIdentityLen:
		return bad("Identity", "must be at most %d bytes, got %d", MaxIdentityLen, len(c.Identity))
	case c.Callbacks.OnStartedLeading == nil:
		return bad("Callbacks.OnStartedLeading", "is nil")
	case c.LeaseDuration <= 0:
		return bad("LeaseDuration", "must be positive, got %v", c.LeaseDuration)
	case c.LeaseDuration > MaxLeaseDuration:
		return bad("LeaseDuration", "must be at most %v, got %v", MaxLeaseDuration, c.LeaseDuration)
	case c.RenewDeadline <= 0:
		return bad("RenewDeadline", "must be positive, got %v", c.RenewDeadline)
	case c.RetryPeriod <= 0:
		return bad("RetryPeriod", "must be positive, got %v", c.RetryPeriod)
	case c.RequestTimeout < 0:
		return bad("RequestTimeout", "must not be negative, got %v", c.RequestTimeout)
	case c.ClockDriftPPM < 0 || c.ClockDriftPPM > MaxClockDriftPPM:
		return bad("ClockDriftPPM", "must be in [0, %d], got %d", MaxClockDriftPPM, c.ClockDriftPPM)
	case c.RenewDeadline >= c.LeaseDuration:
		return bad("RenewDeadline", "(%v) must be less than LeaseDuration (%v)", c.RenewDeadline, c.LeaseDuration)
	case c.RetryPeriod >= c.RenewDeadline || c.RenewDeadline*5 <= c.RetryPeriod*6:
		// RenewDeadline < LeaseDuration <= MaxLeaseDuration, so once
		// RetryPeriod < RenewDeadline neither product overflows.
		return bad("RetryPeriod", "(%v) times 1.2 must be less than RenewDeadline (%v)", c.RetryPeriod, c.RenewDeadline)
	}
	ppm := c.driftPPM()
	if limit := c.LeaseDuration - DriftMargin(c.LeaseDuration, ppm); c.RenewDeadline > limit {
		return bad("RenewDeadline", "(%v) must be at most LeaseDuration minus the clock-drift margin for %d ppm (%v)",
			c.RenewDeadline, ppm, limit)
	}
	if rt := c.requestTimeout(); rt > c.RenewDeadline/2 {
		return bad("RequestTimeout", "(%v, 0 means RetryPeriod) must be at most RenewDeadline/2 (%v)", rt, c.RenewDeadline/2)
	}
	return nil
}

func (c Config) driftPPM() int64 {
	if c.ClockDriftPPM == 0 {
		return DefaultClockDriftPPM
	}
	return c.ClockDriftPPM
}

func (c Config) requestTimeout() time.Duration {
	if c.RequestTimeout == 0 {
		return c.RetryPeriod
	}
	return c.RequestTimeout
}

// termLength is how long a term lasts after the send of its last successful
// write: min(RenewDeadline, LeaseDuration - driftMargin). Validation makes it
// RenewDeadline; the min keeps the safety rule local.
func (c Config) termLength() time.Duration {
	return TermLength(c.LeaseDuration, c.RenewDeadline, c.driftPPM())
}

// RenewInterval is how long after the send of its last successful write a
// leader sends its next renewal: RetryPeriod, or less if a renewal sent
// then would have less than RequestTimeout (after its default) left before
// the term's deadline; min(RetryPeriod, TermLength - RequestTimeout). A
// renewal that S3 answers within RequestTimeout therefore always lands in
// time to extend the term. For a Config that NewElector accepts it is at
// least the smaller of RetryPeriod and RenewDeadline/2, which is above
// 0.6 RetryPeriod.
func (c Config) RenewInterval() time.Duration {
	return min(c.RetryPeriod, c.termLength()-c.requestTimeout())
}

// Assumptions returns what an elector with configuration c needs of the
// world for its guarantee, that no two terms overlap in true time: clock
// rates within ClockDriftPPM (after its default), its Term (TermLength,
// which validation makes RenewDeadline) against its LeaseDuration, and
// pauses within PauseBound of them; see Assumptions for the derivation.
// Beyond them the guarantee needs what the package documentation lists:
// monotonic clocks that do not stop, a strongly consistent S3, no writes of
// the lock object except by electors, and applications that stop when their
// context ends. It tolerates torn reads (TornReads) from a store whose ETags
// are MD5s, and works on one whose ETags are not (OpaqueETags). The values
// are meaningful only for a Config that NewElector accepts; for another
// they mean nothing, though computing them does not panic. Only the duration and drift fields of c are read.
func (c Config) Assumptions() Assumptions {
	ppm := c.driftPPM()
	return Assumptions{
		Lease:       c.LeaseDuration,
		Term:        c.termLength(),
		MaxDriftPPM: ppm,
		MaxPause:    PauseBound(c.LeaseDuration, c.RenewDeadline, ppm),
		TornReads:   true,
		OpaqueETags: true,
	}
}

// LivenessBound is how long after faults heal (S3 answers within
// RequestTimeout, no node pauses) an elector with configuration c promises
// a leader in place: a follower reads the abandoned record (a RetryPeriod
// with jitter, and a request), waits a lease, and writes (another
// request), with a RetryPeriod and a request to spare for a conflict:
// LeaseDuration + 3*RetryPeriod + 3*RequestTimeout (after its default).
func (c Config) LivenessBound() time.Duration {
	return c.LeaseDuration + 3*c.RetryPeriod + 3*c.requestTimeout()
}
