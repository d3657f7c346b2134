package sim

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("sim: invalid config")

// Config is everything one run needs. A run is a pure function of its
// Config: the same Config (including Seed) gives the same trace.
type Config struct {
	// Seed seeds the default chooser and so every decision of the run.
	Seed uint64
	// Nodes is the number of candidates, from 1.
	Nodes int
	// Duration is how much true time the run lasts.
	Duration time.Duration
	// Candidate is the protocol every node runs.
	Candidate Candidate
	// Identities optionally names each node's first incarnation, and every
	// later one restarted without an identity of its own; empty entries
	// (or a nil slice) mean "n<index>".
	Identities []string
	// Bucket and Key name the lock object; the bucket exists from the start.
	Bucket, Key string
	// Dialect selects the S3 semantics (AWS by default).
	Dialect Dialect
	// TornReadPPM makes the store break the atomicity of its updates as
	// versitygw v1.8.0 does as a single gateway: of the GetObjects that a
	// write of their key races (one applied between their send and their
	// answer), it answers this many in a million with the body of one
	// version and the ETag of another (a torn read; see
	// RequestFault.TornPPM for a fault plan's). 0, as S3 and both
	// dialects: never; versitygw was measured at a few hundred.
	TornReadPPM int64
	// OpaqueETags makes the store's ETags not the MD5s of the bodies, as
	// S3's are for objects under SSE-KMS or SSE-C: 32 hex digits, quoted,
	// that look like an MD5 and are not one. The simulator derives them
	// from the body with a key of its own, so that a write's ETag is
	// known before it applies (S3Op.BodyETag); S3 gives two writes of the
	// same bytes different ETags, the simulator the same. Only the AWS
	// dialect has them (gofakes3's ETags are MD5s).
	OpaqueETags bool
	// ErrorPages says how the nodes receive S3's error answers: S3's own
	// error documents (the default), or the pages of a proxy in between,
	// which keep the status but not S3's error code.
	ErrorPages ErrorPages
	// S3Request and S3Response are the latencies of the two legs of every
	// S3 request; FenceRequest and FenceResponse those of fenced writes.
	S3Request, S3Response       Latency
	FenceRequest, FenceResponse Latency
	// WriteInterval is how often a leader's application writes to the fenced
	// resource (on its own monotonic clock).
	WriteInterval time.Duration
	// Clocks gives each node's clock model; nil means perfect clocks.
	Clocks []ClockModel
	// S3ClockOffset is how far S3's clock (Last-Modified) is from true time.
	S3ClockOffset time.Duration
	// S3ClientTimeout is the node's S3 client's timeout per attempt, as
	// http.Client.Timeout sets it: measured on the node's monotonic clock
	// from the moment the request is sent, it ends a call whose answer has
	// not arrived (a lost answer, a slow one) with the error the SDK returns
	// then. The request still applies when it reaches S3: the outcome is
	// unknown to the caller, as with a cancelled call. An answer due at the
	// very instant the timeout passes wins. 0 means no timeout: a call waits
	// until its answer arrives or its context is done.
	S3ClientTimeout time.Duration
	// S3Attempts is how many attempts each node's S3 client makes for a
	// request that fails in a way the SDK retries (the standard retryer's
	// default is 3); 0 or 1 means no retries (aws.NopRetryer).
	S3Attempts int
	// WrapStore, if set, wraps each node's S3 client before the node's
	// candidate gets it: it is called once per incarnation with the
	// simulated client of a single attempt (the calls described in the
	// package documentation) and returns the S3Client the
	// candidate uses instead. The retry layer of S3Attempts, if any, goes
	// around the wrapped store. sdkhttp.Wrap puts aws-sdk-go-v2's own
	// *s3.Client there, so that every request goes through the real SDK's
	// serializers, deserializers and error handling. The wrapper runs on
	// the simulator's goroutines and is subject to its rules: it must wait
	// only in calls on the store it wraps, read no real clock and draw no
	// randomness of its own, or the run is no longer a function of its
	// seed. nil uses the simulated client directly.
	WrapStore func(S3Client) S3Client
	// Chooser makes every choice; nil means NewRandomChooser(Seed).
	Chooser Chooser
	// NewFence builds the fenced resource's judge; nil means a correct
	// fence that admits tokens no lower than the highest it has seen.
	NewFence func() Fence
	// MaxSteps bounds the number of scheduler steps; 0 means no bound.
	MaxSteps int
	// BlockedAfter is how much real time the run may make no progress before
	// it is declared blocked: a task that runs code of its node and never
	// reaches a simulator primitive (it waits on a bare channel, a mutex, a
	// WaitGroup, time.Sleep, or spins) would otherwise hang Run forever. Run
	// then returns a FailureBlocked with the stuck goroutine's stack; the
	// goroutine is abandoned and leaks if it never returns. 0 means
	// DefaultBlockedAfter; a negative value turns the watchdog off and runs
	// the world on the caller's goroutine (under a debugger, whose
	// breakpoints would otherwise count as a hang). The watchdog looks every
	// 100ms. It is the only use of the real clock: it never changes what a
	// run that completes does.
	BlockedAfter time.Duration
	// KeepTrace keeps every event in Result.Trace (the hash is always kept).
	KeepTrace bool
	// Setup, if set, runs before the first step; faults and scenarios use it
	// to schedule their actions with World.At.
	Setup func(w *World)
	// Phases, if set, receives how the run's real time divides between the
	// protocol's code and the simulator (see Phases). It changes nothing in
	// the run but its speed.
	Phases *Phases
	// Coverage is the number of coverage points the candidate may mark
	// through Env.Coverage (harness.Protocol.Coverage declares and names
	// them); Result.Coverage holds those the run reached. 0: none, and
	// Env.Coverage is nil.
	Coverage int
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Nodes < 1:
		return bad("Nodes is %d; a run needs at least one node", c.Nodes)
	case c.Duration <= 0:
		return bad("Duration is %v; it must be positive", c.Duration)
	case c.Candidate == nil:
		return bad("Candidate is nil")
	case c.Bucket == "" || c.Key == "":
		return bad("Bucket and Key must both be set")
	case c.WriteInterval <= 0:
		return bad("WriteInterval is %v; it must be positive", c.WriteInterval)
	case c.Identities != nil && len(c.Identities) != c.Nodes:
		return bad("Identities has %d entries for %d nodes", len(c.Identities), c.Nodes)
	case c.Clocks != nil && len(c.Clocks) != c.Nodes:
		return bad("Clocks has %d entries for %d nodes", len(c.Clocks), c.Nodes)
	case c.S3Attempts < 0:
		return bad("S3Attempts is negative")
	case c.MaxSteps < 0:
		return bad("MaxSteps is negative")
	case c.Coverage < 0:
		return bad("Coverage is %d; it must not be negative", c.Coverage)
	case c.ErrorPages >= numErrorPages:
		return bad("ErrorPages is %v", c.ErrorPages)
	case c.OpaqueETags && c.Dialect != DialectAWS:
		return bad("OpaqueETags is set for the %v dialect, whose ETags are MD5s", c.Dialect)
	case c.TornReadPPM < 0 || c.TornReadPPM > 1_000_000:
		return bad("TornReadPPM is %d; it must lie in [0, 1e6]", c.TornReadPPM)
	case c.S3ClientTimeout < 0:
		return bad("S3ClientTimeout is %v; it must not be negative", c.S3ClientTimeout)
	}
	for _, l := range []struct {
		name string
		l    Latency
	}{{"S3Request", c.S3Request}, {"S3Response", c.S3Response}, {"FenceRequest", c.FenceRequest}, {"FenceResponse", c.FenceResponse}} {
		if err := l.l.Validate(); err != nil {
			return bad("%s: %v", l.name, err)
		}
	}
	for i, m := range c.Clocks {
		if m.DriftPPM <= -1_000_000 || m.DriftPPM > 1_000_000 {
			return bad("Clocks[%d].DriftPPM is %d; it must lie in (-1e6, 1e6]", i, m.DriftPPM)
		}
		for _, s := range m.Stalls {
			if s.For < 0 || s.At < 0 {
				return bad("Clocks[%d] has a stall with negative time", i)
			}
		}
	}
	return nil
}
