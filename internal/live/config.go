package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/s3lease/s3lease/protocol"
)

// ErrInvalidConfig is wrapped by every error Run returns for a Config it
// cannot run.
var ErrInvalidConfig = errors.New("live: invalid config")

// Defaults for a short run on loopback. The lease, renew deadline and retry
// period are those of the protocol's integration tests on loopback, so that
// a run of a few seconds sees dozens of renewals and reads; the request
// timeout is twice theirs, to leave room for injected latency (with
// DefaultFaults, up to 60 ms a request). DefaultDuration gives
// DefaultPhases some thirty creation races, thirty restart races and a
// crash takeover.
const (
	DefaultNodes          = 3
	DefaultDuration       = 20 * time.Second
	DefaultBucket         = "s3lease-live"
	DefaultLeaseDuration  = 1500 * time.Millisecond
	DefaultRenewDeadline  = 1000 * time.Millisecond
	DefaultRetryPeriod    = 150 * time.Millisecond
	DefaultRequestTimeout = 300 * time.Millisecond
	DefaultWriteInterval  = 50 * time.Millisecond
	DefaultS3CheckTimeout = 30 * time.Second
	// DefaultRegion is the region used when neither Config.Region nor
	// AWS_REGION nor AWS_DEFAULT_REGION names one.
	DefaultRegion = "us-east-1"
)

// Faults are the proxy's fault probabilities, each drawn per HTTP request
// from a math/rand/v2 source seeded by Config.Seed. Latency is drawn
// independently; of the other faults at most one hits a request, so their
// probabilities must add up to at most 1. The zero value injects nothing.
type Faults struct {
	// Latency is the probability that a request is held for a delay drawn
	// uniformly from [MinLatency, MaxLatency] before it is forwarded (or
	// answered by the proxy).
	Latency                float64
	MinLatency, MaxLatency time.Duration

	// Conflict is the probability of answering 409
	// ConditionalRequestConflict without forwarding: not applied, as S3
	// promises for that answer.
	Conflict float64
	// InternalError is the probability of answering 500 InternalError
	// without forwarding.
	InternalError float64
	// Unavailable is the probability of answering 503 SlowDown without
	// forwarding.
	Unavailable float64
	// InternalErrorAfter is the probability of forwarding the request,
	// discarding the store's answer and answering 500 InternalError: the
	// request was applied (if the store accepted it) but the client is
	// told it failed.
	InternalErrorAfter float64
	// DropAnswer is the probability of forwarding the request, discarding
	// the store's answer and closing the client's connection: the client
	// gets a transport error for a request that was applied (if the store
	// accepted it).
	DropAnswer float64
	// Cut is the probability of cutting the connection: a request other
	// than a GET is never forwarded (the connection is closed after the
	// request was read); a GET is forwarded and its answer cut after the
	// headers and half of the body if it is a 200 with a body, or not
	// sent at all otherwise (a read changes nothing, so the two are alike
	// to the store).
	Cut float64

	// StripConditions is a broken setup, not a fault: the proxy removes
	// If-Match and If-None-Match from every request before forwarding it,
	// which turns the store into one that ignores conditions. The history
	// still records the conditions the client sent, so the checkers judge
	// the run against the store the client believed it had. The headers
	// are signed, so only a store that does not check signatures (the
	// embedded gofakes3) accepts the stripped requests.
	StripConditions bool
}

// any reports whether f injects any fault or breaks the store.
func (f Faults) any() bool {
	return f.Latency > 0 || f.sum() > 0 || f.StripConditions
}

func (f Faults) sum() float64 {
	return f.Conflict + f.InternalError + f.Unavailable + f.InternalErrorAfter + f.DropAnswer + f.Cut
}

// DefaultFaults is a fault mix for a short run that every checker must
// pass: frequent latency, and about one request in five failing in one of
// the ways the proxy knows.
func DefaultFaults() Faults {
	return Faults{
		Latency: 0.3, MinLatency: 5 * time.Millisecond, MaxLatency: 60 * time.Millisecond,
		Conflict: 0.04, InternalError: 0.03, Unavailable: 0.03, InternalErrorAfter: 0.03,
		DropAnswer: 0.04, Cut: 0.03,
	}
}

// Config describes a live run. Zero fields take the defaults above, except
// Seed (0 is a seed like any other) and Faults (zero injects nothing).
type Config struct {
	// Nodes is the number of electors.
	Nodes int
	// Duration is how long the electors run before the history is closed.
	Duration time.Duration
	// Seed seeds the proxy's fault draws.
	Seed uint64
	// Faults are what the proxy injects.
	Faults Faults

	// Endpoints are the S3 endpoint URLs (http or https) of the store the
	// proxy forwards to: one, or several gateways of one deployment, over
	// which the electors are spread (node i talks to Endpoints[i mod
	// len(Endpoints)]), as a multi-gateway deployment runs them. Empty
	// means an embedded gofakes3 server on loopback. With endpoints,
	// Credentials (or the environment) and Region apply to every one.
	Endpoints []string
	// Region is the signing region; empty means AWS_REGION, then
	// AWS_DEFAULT_REGION, then DefaultRegion.
	Region string
	// Credentials sign the requests to Endpoints; nil means static
	// credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
	// AWS_SESSION_TOKEN. They are never printed or recorded. The embedded
	// server does not check signatures and gets placeholder credentials.
	Credentials aws.CredentialsProvider
	// VirtualHosted addresses the bucket as a host name
	// (bucket.endpoint-host) instead of a path; path style is the default,
	// as loopback servers need it.
	VirtualHosted bool
	// CreateBucket creates Bucket through the first endpoint before the run (an existing
	// bucket owned by the caller is fine). The embedded server's bucket is
	// always created.
	CreateBucket bool
	// KeepObject leaves the lock objects at Endpoints after the run; by
	// default they are deleted once the electors stopped.
	KeepObject bool

	// Bucket holds the lock object.
	Bucket string
	// Key is the lock object's key; empty means a fresh key under
	// "s3lease-live/" for every run. The rounds of PhaseCreationRaces use
	// keys of their own, Key followed by ".create-" and the round's number.
	// The checkers assume every key is absent when the run starts and
	// written by no one else.
	Key string

	// Phases is how the run spends its time, in order: each phase runs
	// for its Duration. Empty means DefaultPhases(Duration), the schedule
	// that stresses the store's conditional semantics. With phases,
	// Duration is their total (0 sets it so; any other value is refused).
	Phases []Phase

	// The electors' protocol.Config durations.
	LeaseDuration, RenewDeadline, RetryPeriod, RequestTimeout time.Duration
	// RestartLeaderEvery, if positive, restarts the leader of the moment
	// at this interval during a PhaseSteady, as a new incarnation of its
	// node with the same identity: alternately a stop (it releases its
	// lease, and a follower takes over at once) and a crash (it is cut off
	// from the store first, so the lease is abandoned and followers wait
	// it out). Without it a short steady run may see a single term.
	RestartLeaderEvery time.Duration
	// WriteInterval is the cadence of a leader's fenced writes.
	WriteInterval time.Duration
	// StopTimeout bounds the wait for the electors to return after the
	// run; 0 means LeaseDuration + 5s.
	StopTimeout time.Duration
	// S3CheckTimeout bounds the linearizability check of the S3 history.
	S3CheckTimeout time.Duration

	// Logger receives the electors' logs (each with a "node" attribute)
	// and the run's own; nil discards them. Neither logs request headers.
	Logger *slog.Logger
}

// withDefaults returns c with its zero fields defaulted, or an error
// wrapping ErrInvalidConfig.
func (c Config) withDefaults() (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Nodes == 0 {
		c.Nodes = DefaultNodes
	}
	var total time.Duration
	for _, p := range c.Phases {
		if !p.Kind.valid() {
			return bad("unknown phase kind %q (want one of %s)", p.Kind, phaseKindList())
		}
		if p.Duration <= 0 {
			return bad("phase %s: duration must be positive, got %v", p.Kind, p.Duration)
		}
		total += p.Duration
	}
	switch {
	case len(c.Phases) > 0 && c.Duration == 0:
		c.Duration = total
	case len(c.Phases) > 0 && c.Duration != total:
		return bad("Duration %v differs from the phases' total %v", c.Duration, total)
	}
	def(&c.Duration, DefaultDuration)
	if len(c.Phases) == 0 {
		c.Phases = DefaultPhases(c.Duration)
	} else {
		c.Phases = slices.Clone(c.Phases)
	}
	def(&c.LeaseDuration, DefaultLeaseDuration)
	def(&c.RenewDeadline, DefaultRenewDeadline)
	def(&c.RetryPeriod, DefaultRetryPeriod)
	def(&c.RequestTimeout, DefaultRequestTimeout)
	def(&c.WriteInterval, DefaultWriteInterval)
	def(&c.StopTimeout, c.LeaseDuration+5*time.Second)
	def(&c.S3CheckTimeout, DefaultS3CheckTimeout)
	if c.Bucket == "" {
		c.Bucket = DefaultBucket
	}
	if c.Key == "" {
		c.Key = "s3lease-live/" + randomHex(8) + "/leader.json"
	}
	f := c.Faults
	switch {
	case c.Nodes < 1:
		return bad("Nodes must be positive, got %d", c.Nodes)
	case c.Duration < 0 || c.WriteInterval < 0 || c.StopTimeout < 0 || c.S3CheckTimeout < 0 || c.RestartLeaderEvery < 0:
		return bad("durations must not be negative")
	case !prob(f.Latency) || !prob(f.Conflict) || !prob(f.InternalError) || !prob(f.Unavailable) ||
		!prob(f.InternalErrorAfter) || !prob(f.DropAnswer) || !prob(f.Cut):
		return bad("fault probabilities must be in [0, 1]")
	case f.sum() > 1:
		return bad("the probabilities of Conflict, InternalError, Unavailable, InternalErrorAfter, DropAnswer and Cut add up to %g, more than 1", f.sum())
	case f.MinLatency < 0 || f.MaxLatency < f.MinLatency || f.MaxLatency > time.Hour:
		return bad("latency range [%v, %v] is not a range within [0, 1h]", f.MinLatency, f.MaxLatency)
	}
	if _, err := parseEndpoints(c.Endpoints); err != nil {
		return c, err
	}
	// The electors' configuration is validated by the protocol itself.
	if _, err := protocol.NewElector(c.electorConfig(nopStore{}, "check", protocol.LeaderCallbacks{
		OnStartedLeading: func(context.Context, protocol.Lease) {},
	}, nil)); err != nil {
		return c, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return c, nil
}

func prob(p float64) bool { return p >= 0 && p <= 1 }

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// nopStore is an ObjectStore that is never called: it lets withDefaults ask
// protocol.NewElector to validate the electors' configuration.
type nopStore struct{ protocol.ObjectStore }

// parseEndpoints parses the endpoints' URLs, each http or https with a
// host, on distinct hosts; an error wraps ErrInvalidConfig.
func parseEndpoints(endpoints []string) ([]*url.URL, error) {
	var out []*url.URL
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if err != nil {
			return nil, fmt.Errorf("%w: endpoint: %w", ErrInvalidConfig, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: an endpoint must be an http or https URL with a host, got scheme %q host %q", ErrInvalidConfig, u.Scheme, u.Host)
		}
		if slices.ContainsFunc(out, func(v *url.URL) bool { return v.Host == u.Host }) {
			return nil, fmt.Errorf("%w: endpoint %s is given twice", ErrInvalidConfig, redactURL(u))
		}
		out = append(out, u)
	}
	return out, nil
}

// electorConfig is the protocol.Config of one elector, with the run's key.
func (c Config) electorConfig(store protocol.ObjectStore, identity string, cb protocol.LeaderCallbacks, log *slog.Logger) protocol.Config {
	return protocol.Config{
		Store:           store,
		Clock:           protocol.NewRealClock(),
		Bucket:          c.Bucket,
		Key:             c.Key,
		Identity:        identity,
		LeaseDuration:   c.LeaseDuration,
		RenewDeadline:   c.RenewDeadline,
		RetryPeriod:     c.RetryPeriod,
		RequestTimeout:  c.RequestTimeout,
		ReleaseOnCancel: true,
		Callbacks:       cb,
		Logger:          log,
	}
}

// assumptions are the electors' protocol.Assumptions.
func (c Config) assumptions() protocol.Assumptions {
	return c.electorConfig(nil, "", protocol.LeaderCallbacks{}, nil).Assumptions()
}
