package sim

import (
	"net"
	"os"
	"syscall"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Fate says what happens to one S3 request besides its normal course.
type Fate uint8

const (
	// Delivered: the request is applied and its answer arrives.
	Delivered Fate = iota
	// RefusedBefore: S3 answers with an error without applying the request
	// (a 503 SlowDown, a 500, a 409 ConditionalRequestConflict).
	RefusedBefore
	// FailedAfter: S3 applies the request but answers with an error (a 500
	// InternalError after the write happened).
	FailedAfter
	// Lost: S3 applies the request and the answer never arrives; the caller
	// waits until its context ends.
	Lost
	// Unreachable: the request never reaches S3; the caller gets a
	// connection error after the request leg.
	Unreachable
	// Dropped: the request never reaches S3 and no answer ever comes.
	Dropped
	numFates
)

// String names the fate: as the fault it records (FaultKind), or
// "delivered".
func (f Fate) String() string {
	switch {
	case f == Delivered:
		return "delivered"
	case f < numFates:
		return fateKinds[f].String()
	}
	return "fate?"
}

// RequestFault is the fault decided for one request when it is sent.
type RequestFault struct {
	Fate Fate
	// Err builds the S3 error of RefusedBefore and FailedAfter (one of the
	// constructors InternalError, SlowDown, ConditionalRequestConflict...).
	Err func(op, requestID string) error
	// ExtraRequest and ExtraResponse lengthen the two legs.
	ExtraRequest, ExtraResponse time.Duration
	// PauseOnAnswer pauses the calling node for this long at the instant the
	// answer arrives, before the caller can act on it.
	PauseOnAnswer time.Duration
	// Kind, if set, is the fault the trace records on the request's send
	// when its fate does not say it: FaultRequestDelayed or
	// FaultAnswerDelayed for a delay aimed at this one request.
	Kind FaultKind
	// TornPPM is, for a GetObject, the chance in parts per million that
	// its answer is torn if a write of its key races it (see Config.TornReadPPM).
	TornPPM int64
	// Landing, if set, is called at the instant the request reaches S3,
	// just before S3 applies it (or refuses it, or it is lost on the way):
	// faults aimed at that instant act there.
	Landing func()
}

// Request describes an S3 request about to be sent, for a FaultInjector.
type Request struct {
	Node int
	Op   string
	Key  string
	// Nth counts the node's requests of this Op, from 1, across its
	// incarnations.
	Nth int
	// Conditional reports an If-Match or If-None-Match precondition.
	Conditional bool
	// Write reports a PutObject or DeleteObject.
	Write bool
	// InFlight is the number of conditional writes on the same key that
	// were sent and not yet applied: S3 may answer 409 when conditional
	// writes on a key overlap.
	InFlight int
	// Body is, for a PutObject, the body as sent (nil for other requests).
	// It belongs to the simulator: an injector that keeps it copies it.
	Body []byte
}

// FaultInjector decides the fault of every S3 request. It is called when the
// request is sent and must make its choices through the world's Chooser.
type FaultInjector interface {
	RequestFault(w *World, r Request) RequestFault
}

// SetFaults installs the injector that decides each S3 request's fault; nil
// removes it.
func (w *World) SetFaults(fi FaultInjector) { w.s3.faults = fi }

// connectionError is what the SDK returns when a request cannot be sent: the
// transport's error wrapped in smithy's RequestSendError.
func connectionError(op string) error {
	return &smithy.OperationError{ServiceID: "S3", OperationName: op, Err: &smithyhttp.RequestSendError{
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}},
	}}
}

// requestID returns the id of a new request that the store does not see (a
// fault answered in its place).
func (s *Store) requestID() string { return formatRequestID(s.begin()) }
