package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"time"
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
	// \u003c, a byte that is not UTF-8 as \ufffd), so a record naming two
	// such identities, its own holder and the previous term's, takes under
	// 13 KiB, well within the 64 KiB that DecodeRecord accepts.
	MaxIdentityLen = 1024
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

	// Bucket and Key name the one lock object.
	Bucket, Key string
	// Identity names this candidate in the lock record; it is at most
	// MaxIdentityLen bytes. Electors that share an identity still exclude
	// each other (records are told apart by nonce), but the record can then
	// not tell humans which one holds it.
	Identity string

	// LeaseDuration is how long followers wait, on their own clocks, after
	// first seeing a record unchanged before they take it over. It is
	// written into every record this elector writes.
	LeaseDuration time.Duration
	// RenewDeadline is how long a term lasts after the leader sent its last
	// successful write: the leader's context is cancelled once it passes.
	RenewDeadline time.Duration
	// RetryPeriod is the interval between renewals, and (plus up to 20%
	// jitter) between a follower's reads.
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
//     Identity is at most MaxIdentityLen bytes.
//   - LeaseDuration, RenewDeadline, RetryPeriod are > 0; RequestTimeout >= 0;
//     LeaseDuration <= MaxLeaseDuration.
//   - ClockDriftPPM is in [0, MaxClockDriftPPM].
//   - LeaseDuration > RenewDeadline > RetryPeriod*6/5: a renewal scheduled
//     with up to 20% jitter still fits before the deadline.
//   - RenewDeadline <= LeaseDuration - driftMargin: the leader stops before
//     any follower, whose clock may run fast, can think the lease is over.
//   - RequestTimeout (after its default) <= RenewDeadline/2, so a hung
//     request is abandoned early enough for at least one more attempt
//     before the deadline.
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
	case c.Key == "":
		return bad("Key", "is empty")
	case c.Identity == "":
		return bad("Identity", "is empty")
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
	if limit := c.LeaseDuration - driftMargin(c.LeaseDuration, ppm); c.RenewDeadline > limit {
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

// driftMargin is how much shorter than a lease a leader's term must be so
// that no follower can end the lease while the leader still leads, when every
// clock rate is within ppm of true time (rho = ppm/1e6).
//
// A follower takes over only after it measured lease on its own clock from
// the moment it first saw the leader's record; its clock may run fast, so at
// least lease/(1+rho) of true time has passed. The leader sent that record
// before the follower saw it, and ends its term once term has passed on its
// own clock from the send; its clock may run slow, so at most term/(1-rho) of
// true time has passed. The term ends first when
//
//	term/(1-rho) <= lease/(1+rho)  <=>  term <= lease - lease*2*rho/(1+rho)
//
// so the margin is lease*2*ppm/(1e6+ppm), rounded up. It is computed exactly
// in 128-bit integer arithmetic: no floating point, no overflow. Outside the
// validated ranges (lease in (0, MaxLeaseDuration], ppm in [0,
// MaxClockDriftPPM]) the result means nothing, but it does not panic.
func driftMargin(lease time.Duration, ppm int64) time.Duration {
	hi, lo := bits.Mul64(uint64(lease), uint64(2*ppm))
	d := uint64(1_000_000 + ppm)
	if hi >= d { // Div64 would panic; in the validated ranges hi < 2^18 < d
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, d)
	if r != 0 {
		q++
	}
	return time.Duration(q)
}

// termLength is how long a term lasts after the send of its last successful
// write: min(RenewDeadline, LeaseDuration - driftMargin). Validation makes it
// RenewDeadline; the min keeps the safety rule local.
func (c Config) termLength() time.Duration {
	return min(c.RenewDeadline, c.LeaseDuration-driftMargin(c.LeaseDuration, c.driftPPM()))
}

// Assumptions are what an elector needs of the world for its guarantee, that
// no two terms overlap in true time, and what it promises once faults heal,
// as numbers computed from its Config; see Config.Assumptions. Beyond them
// the guarantee needs what the package documentation lists: monotonic clocks
// that do not stop, a strongly consistent S3, no writes of the lock object
// except by electors, and applications that stop when their context ends.
//
// # The pause bound
//
// Let rho = ClockDriftPPM/1e6, and let a leader send its last successful
// write at true time t. Its term ends once Term has passed on its monotonic
// clock, read just before t; that clock runs at least 1-rho times as fast as
// true time, so the term ends by t + Term/(1-rho). A process pause of p at
// the worst moment (just before its watchdog fires, or between the
// application's check of leadership and its action) lets it act until
// t + Term/(1-rho) + p. A follower first read that write after t and takes
// over once LeaseDuration has passed on its own clock, which runs at most
// 1+rho times as fast: not before t + LeaseDuration/(1+rho). The two do not
// overlap if
//
//	p <= LeaseDuration/(1+rho) - Term/(1-rho)
//	   = LeaseDuration - Term - rho*LeaseDuration/(1+rho) - rho*Term/(1-rho).
//
// With p = 0 this is the drift margin that NewElector requires of
// RenewDeadline. As Term < LeaseDuration and rho <= 0.1, the two drift terms
// together are less than 2.03*rho*LeaseDuration. MaxPause subtracts
// 4*rho*LeaseDuration instead, about twice that: it is conservative (to the
// nanosecond it is rounded to), deliberately so, and it is the bound the
// project's simulator has always judged runs by.
//
// MaxPause is negative when RenewDeadline is within 4*rho*LeaseDuration of
// LeaseDuration, which NewElector accepts down to the drift margin of about
// 2*rho*LeaseDuration; for example a 15 s lease at 1000 ppm with a
// RenewDeadline of 14.95 s. Such a configuration is safe without pauses but
// promises to survive none: read a negative MaxPause as zero.
type Assumptions struct {
	// ClockDriftPPM bounds how far every node's monotonic clock rate may
	// differ from true time, in parts per million (Config.ClockDriftPPM
	// after its default).
	ClockDriftPPM int64
	// LeaseDuration is how long a follower waits, on its own clock, after
	// first seeing a record unchanged before it takes the record over.
	LeaseDuration time.Duration
	// RenewDeadline is Config.RenewDeadline.
	RenewDeadline time.Duration
	// Term is how long a term lasts, on the leader's clock, after the send
	// of its last successful write: min(RenewDeadline, LeaseDuration minus
	// the drift margin), which validation makes RenewDeadline.
	Term time.Duration
	// RequestTimeout bounds each S3 call (Config.RequestTimeout after its
	// default).
	RequestTimeout time.Duration
	// MaxPause is the longest process pause, in true time, that the
	// guarantee survives: LeaseDuration - RenewDeadline -
	// LeaseDuration*4*ClockDriftPPM/1e6, rounded down to the nanosecond.
	// It may be negative; see above.
	MaxPause time.Duration
	// LivenessBound is how long after faults heal (S3 answers within
	// RequestTimeout, no node pauses) a leader must be in place: a follower
	// reads the abandoned record (a RetryPeriod with jitter, and a request),
	// waits a lease, and writes (another request), with a RetryPeriod and a
	// request to spare for a conflict: LeaseDuration + 3*RetryPeriod +
	// 3*RequestTimeout.
	LivenessBound time.Duration
}

// Assumptions returns the assumptions and promises of an elector with
// configuration c. They are meaningful only for a Config that NewElector
// accepts; for another the values mean nothing, though computing them does
// not panic. Only the duration and drift fields of c are read.
func (c Config) Assumptions() Assumptions {
	ppm := c.driftPPM()
	lease := c.LeaseDuration
	// lease*4*ppm/1e6 rounded down, without forming the product, which
	// could overflow: lease <= MaxLeaseDuration < 2^47, 4*ppm < 2^19.
	k := time.Duration(4 * ppm)
	drift := lease/1e6*k + lease%1e6*k/1e6
	rt := c.requestTimeout()
	return Assumptions{
		ClockDriftPPM:  ppm,
		LeaseDuration:  lease,
		RenewDeadline:  c.RenewDeadline,
		Term:           c.termLength(),
		RequestTimeout: rt,
		MaxPause:       lease - c.RenewDeadline - drift,
		LivenessBound:  lease + 3*c.RetryPeriod + 3*rt,
	}
}
