package protocol

import (
	"errors"
	"fmt"
	"slices"

	"github.com/aws/smithy-go"
)

// Phase is where an elector is in its cycle of following, acquiring,
// leading and giving up. Every change of phase, and every S3 answer that
// leaves the phase as it was, is a Transition, reported to
// Config.Metrics.Transition.
type Phase uint8

const (
	// PhaseStopped: Run is not running (before it starts, after it returned).
	PhaseStopped Phase = iota
	// PhaseReading: following without timing anything: reading the lock
	// object every RetryPeriod.
	PhaseReading
	// PhaseAwaitingExpiry: timing a state of the object this elector did
	// not write (a live record, a body that is no record, the absence of an
	// object it had seen) until it stayed unchanged for a lease.
	PhaseAwaitingExpiry
	// PhaseAcquiring: an acquiring write (create or take-over) is in flight.
	PhaseAcquiring
	// PhaseResumingOwn: a read showed a record this Run wrote: an
	// acquisition whose answer was lost, or the record of a term that is
	// over.
	PhaseResumingOwn
	// PhaseLeading: a term is in progress, between renewals.
	PhaseLeading
	// PhaseRenewing: a renewal is in flight.
	PhaseRenewing
	// PhaseCheckingRenewal: reading the object after a renewal whose
	// outcome was not a plain success, to learn whether it applied.
	PhaseCheckingRenewal
	// PhaseReleasing: a release write is in flight.
	PhaseReleasing
	// PhaseCheckingRelease: reading the object after a release write whose
	// outcome was not a plain success.
	PhaseCheckingRelease

	numPhases = iota
)

var phaseNames = [numPhases]string{
	"stopped", "reading", "awaiting-expiry", "acquiring", "resuming-own",
	"leading", "renewing", "checking-renewal", "releasing", "checking-release",
}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", p)
}

// Cause is what made a transition: the kind of S3 answer, or an event of
// the elector's own (a timer, the start or end of Run).
type Cause uint8

const (
	// CauseOK: S3 answered 200 (to a read: with a valid record).
	CauseOK Cause = iota
	// CausePreconditionFailed: 412 to a conditional write.
	CausePreconditionFailed
	// CauseConflict: 409, a concurrent request on the key won.
	CauseConflict
	// CauseNotFound: 404; to a read, the object is missing.
	CauseNotFound
	// CauseServerError: an HTTP answer that leaves the outcome unknown
	// (5xx, throttling).
	CauseServerError
	// CauseNoAnswer: no HTTP answer (a timeout, a cancelled call, a broken
	// connection): the outcome is unknown.
	CauseNoAnswer
	// CauseRefused: any other error answer (403, 400, NoSuchBucket).
	CauseRefused
	// CauseMalformed: a read answered 200 with a body that is no record
	// this elector can follow.
	CauseMalformed
	// CauseNotSent: a write that failed before it was sent (no entropy).
	CauseNotSent
	// CauseExpired: a timed state of the object stayed unchanged for its
	// lease (a follower), or a term's local deadline passed (a leader).
	CauseExpired
	// CauseLate: a grant or renewal was answered after the local deadline.
	CauseLate
	// CauseBusy: the last term's OnStartedLeading has not returned, so no
	// acquisition may start.
	CauseBusy
	// CauseRenewalDue: the renewal interval (RetryPeriod, or RenewDeadline
	// less RequestTimeout if shorter) passed since the last successful
	// write's send.
	CauseRenewalDue
	// CauseStart: Run began.
	CauseStart
	// CauseShutdown: Run's context ended.
	CauseShutdown

	numCauses = iota
)

var causeNames = [numCauses]string{
	"ok", "412", "409", "404", "5xx", "no-answer", "refused", "malformed", "not-sent",
	"expired", "late", "busy", "renewal-due", "start", "shutdown",
}

func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return fmt.Sprintf("Cause(%d)", c)
}

// Transition is one step of an elector: from a phase, because of a cause,
// to a phase (possibly the same).
type Transition struct {
	From  Phase
	Cause Cause
	To    Phase
}

// String renders t as "from --cause--> to".
func (t Transition) String() string {
	return t.From.String() + " --" + t.Cause.String() + "--> " + t.To.String()
}

// transitionTable is the single source of truth of the transitions the
// elector can take: every Transition it reports is one of these (an
// undeclared one is logged as an error), and Transitions returns them.
var transitionTable = func() []Transition {
	var ts []Transition
	add := func(from []Phase, causes []Cause, to []Phase) {
		for _, f := range from {
			for _, c := range causes {
				for _, t := range to {
					ts = append(ts, Transition{f, c, t})
				}
			}
		}
	}
	type ps = []Phase
	type cs = []Cause
	following := ps{PhaseReading, PhaseAwaitingExpiry}
	readFailed := cs{CauseConflict, CauseServerError, CauseNoAnswer, CauseRefused}
	writeFailed := cs{CausePreconditionFailed, CauseConflict, CauseNotFound, CauseServerError, CauseNoAnswer, CauseRefused, CauseNotSent}
	inTerm := ps{PhaseLeading, PhaseRenewing, PhaseCheckingRenewal}

	// Run starts following; its context ends it.
	add(ps{PhaseStopped}, cs{CauseStart}, ps{PhaseReading})
	add(following, cs{CauseShutdown}, ps{PhaseStopped})
	// A follower's read: a failure changes nothing.
	add(ps{PhaseReading}, readFailed, ps{PhaseReading})
	add(ps{PhaseAwaitingExpiry}, readFailed, ps{PhaseAwaitingExpiry})
	// A missing object never seen: create it. Seen before (deleted), a
	// live foreign record or no record at all: time it.
	add(ps{PhaseReading}, cs{CauseNotFound}, ps{PhaseAcquiring})
	add(following, cs{CauseNotFound, CauseOK, CauseMalformed}, ps{PhaseAwaitingExpiry})
	// A released record: take it; a timed state unchanged for its lease:
	// take it over; a record of ours: resume.
	add(following, cs{CauseOK}, ps{PhaseAcquiring})
	add(ps{PhaseAwaitingExpiry}, cs{CauseExpired}, ps{PhaseAcquiring})
	add(following, cs{CauseOK}, ps{PhaseResumingOwn})
	// Our acquisition applied after all: lead; or the record of a term of
	// ours that is over, or a grant found too late: take it again.
	add(ps{PhaseResumingOwn}, cs{CauseOK}, ps{PhaseLeading})
	add(ps{PhaseResumingOwn}, cs{CauseOK, CauseLate}, ps{PhaseAcquiring})
	// No acquisition while the last term's callback runs: follow on.
	add(ps{PhaseReading}, cs{CauseBusy}, ps{PhaseReading})
	add(ps{PhaseAwaitingExpiry}, cs{CauseBusy}, ps{PhaseAwaitingExpiry})
	add(ps{PhaseResumingOwn}, cs{CauseBusy}, following)
	// The acquiring write: a term, a grant too late, or any failure, after
	// which the follower reads again (still timing what it timed).
	add(ps{PhaseAcquiring}, cs{CauseOK}, ps{PhaseLeading})
	add(ps{PhaseAcquiring}, append(cs{CauseLate}, writeFailed...), following)
	// Renewals.
	add(ps{PhaseLeading}, cs{CauseRenewalDue}, ps{PhaseRenewing})
	add(ps{PhaseRenewing}, cs{CauseOK, CauseRefused, CauseNotSent}, ps{PhaseLeading})
	add(ps{PhaseRenewing}, cs{CausePreconditionFailed, CauseConflict, CauseNotFound, CauseServerError, CauseNoAnswer}, ps{PhaseCheckingRenewal})
	// The read after an inconclusive renewal: nothing applied yet or ours
	// applied (ok), or the read failed: lead on.
	add(ps{PhaseCheckingRenewal}, append(cs{CauseOK}, readFailed...), ps{PhaseLeading})
	// The end of a term: the deadline passed, a renewal came too late, the
	// object was replaced or deleted, or Run's context ended. The elector
	// follows again, or stops; after a shutdown it may release first.
	add(inTerm, cs{CauseExpired}, ps{PhaseReading, PhaseStopped})
	add(ps{PhaseRenewing, PhaseCheckingRenewal}, cs{CauseLate}, ps{PhaseReading, PhaseStopped})
	add(ps{PhaseCheckingRenewal}, cs{CauseOK, CauseMalformed, CauseNotFound}, ps{PhaseReading, PhaseStopped})
	add(inTerm, cs{CauseShutdown}, ps{PhaseReleasing, PhaseStopped})
	// Releasing: done, given up, or read to learn why not.
	add(ps{PhaseReleasing}, cs{CauseOK, CauseRefused, CauseNotSent, CauseExpired}, ps{PhaseStopped})
	add(ps{PhaseReleasing}, cs{CausePreconditionFailed, CauseConflict, CauseNotFound, CauseServerError, CauseNoAnswer}, ps{PhaseCheckingRelease})
	// The read after a release write: released, or someone else's now, or
	// missing: done; a renewal of ours applied, or the read failed: try
	// again while attempts and time remain, else stop.
	add(ps{PhaseCheckingRelease}, cs{CauseOK, CauseMalformed, CauseNotFound}, ps{PhaseStopped})
	add(ps{PhaseCheckingRelease}, append(cs{CauseOK}, readFailed...), ps{PhaseReleasing, PhaseStopped})

	slices.SortFunc(ts, compareTransitions)
	return slices.Compact(ts)
}()

// declared is transitionTable as a lookup.
var declared = func() (d [numPhases][numCauses][numPhases]bool) {
	for _, t := range transitionTable {
		d[t.From][t.Cause][t.To] = true
	}
	return d
}()

func compareTransitions(a, b Transition) int {
	switch {
	case a.From != b.From:
		return int(a.From) - int(b.From)
	case a.Cause != b.Cause:
		return int(a.Cause) - int(b.Cause)
	}
	return int(a.To) - int(b.To)
}

// Transitions returns every transition the elector can take, ordered by
// phase, cause and destination. It is the reference a coverage report
// compares the transitions a run reached with.
func Transitions() []Transition {
	return slices.Clone(transitionTable)
}

// Declared reports whether t is one of Transitions.
func (t Transition) Declared() bool {
	return t.From < numPhases && t.Cause < numCauses && t.To < numPhases && declared[t.From][t.Cause][t.To]
}

// causeOf is the Cause of an S3 call's error: the ErrorClass, with unknown
// outcomes told apart by whether an HTTP answer came.
func causeOf(err error) Cause {
	switch classify(err) {
	case ClassNone:
		return CauseOK
	case ClassPreconditionFailed:
		return CausePreconditionFailed
	case ClassConflict:
		return CauseConflict
	case ClassNotFound:
		return CauseNotFound
	case ClassUnknownOutcome:
		if _, ok := errors.AsType[httpStatusError](err); ok {
			return CauseServerError
		}
		if _, ok := errors.AsType[smithy.APIError](err); ok {
			return CauseServerError
		}
		return CauseNoAnswer
	}
	if errors.Is(err, errNotSent) {
		return CauseNotSent
	}
	return CauseRefused
}
