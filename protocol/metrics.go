package protocol

import (
	"fmt"
	"time"
)

// Metrics are the elector's measurements, as plain functions, so that the
// package depends on no metrics library: set the ones you want in
// Config.Metrics, and count, time or log in them (examples/promelector
// feeds Prometheus). Every field may be nil.
//
// They are called on Run's goroutine, never with the elector's lock held:
// they must return quickly, and they may call the Elector's query methods
// (Leader, Lease, IsLeader, Healthy). Under the simulator they run inside
// the simulation like the rest of the elector.
type Metrics struct {
	// Transition reports every step of the elector's phase machine: each
	// change of phase, and each S3 answer that leaves the phase as it was,
	// with its cause. Every one is among Transitions().
	Transition func(Transition)
	// Request reports every S3 call the elector made, with its purpose,
	// the kind of answer and its latency: acquisition attempts are the
	// requests with PurposeAcquire, successes those answered CauseOK,
	// conflicts those answered CauseConflict or CausePreconditionFailed,
	// ambiguous outcomes CauseServerError and CauseNoAnswer.
	Request func(Request)
	// TermStarted reports the start of a term, just before
	// OnStartedLeading is called.
	TermStarted func(Lease)
	// TermEnded reports the end of a term, once it is over (after the
	// release, if any), just before OnStoppedLeading is called.
	TermEnded func(TermEnd)
}

// Purpose says why the elector made an S3 request.
type Purpose uint8

const (
	// PurposeFollow: a follower's read of the lock object.
	PurposeFollow Purpose = iota
	// PurposeAcquire: a write that creates or takes over the lock.
	PurposeAcquire
	// PurposeRenew: a leader's renewal.
	PurposeRenew
	// PurposeCheck: a read after a renewal or release write whose outcome
	// was not a plain success.
	PurposeCheck
	// PurposeRelease: the write that marks the record released.
	PurposeRelease

	numPurposes = iota
)

var purposeNames = [numPurposes]string{"follow", "acquire", "renew", "check", "release"}

func (p Purpose) String() string {
	if int(p) < len(purposeNames) {
		return purposeNames[p]
	}
	return fmt.Sprintf("Purpose(%d)", p)
}

// Request is one S3 call of the elector, as Metrics.Request reports it.
type Request struct {
	// Op is "GetObject" or "PutObject".
	Op      string
	Purpose Purpose
	// Answer is the kind of answer: CauseOK, or the error's kind (a read
	// of a missing object is CauseNotFound).
	Answer Cause
	// Latency is the time from just before the send to the answer, on the
	// monotonic clock.
	Latency time.Duration
}

// TermEnd is the end of a term, as Metrics.TermEnded reports it.
type TermEnd struct {
	Token uint64
	// Held is how long the term lasted, on the monotonic clock: from the
	// arrival of the grant to the moment the leader context was cancelled.
	Held time.Duration
	// Cause is why it ended: CauseExpired (the local deadline passed),
	// CauseLate (a renewal answered after it), CauseOK or CauseMalformed
	// (another record replaced ours), CauseNotFound (the object was
	// deleted), or CauseShutdown (Run's context ended).
	Cause Cause
}
