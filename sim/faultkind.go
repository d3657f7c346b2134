package sim

import (
	"fmt"
	"strconv"
)

// FaultKind says which fault a trace event records (Event.Fault): tools and
// tests find faults by it, never by the wording of Detail. Its names are
// those package faults gives the same faults in a plan ("pause",
// "clock-stall", "partition", ...), and a request's fate's name for a fault
// that befell one S3 request or statement ("lost", "refused-before", ...).
//
// Crashes, restarts and stops are events of their own kinds (EvCrash,
// EvStart, EvStop), not fault events.
type FaultKind uint8

// The kinds of fault a trace records.
const (
	NoFault FaultKind = iota // the event records no fault

	// The node's process stops (an EvPause, For long).
	FaultPause            // a pause of the process
	FaultAnswerPause      // the process stops as an answer reaches it
	FaultPauseBeforeWrite // the application stops between its lease check and its guarded write (also the EvFault that says so, with the token)
	FaultClockStall       // a suspended VM: process and monotonic clock stop (also the EvFault that says so)

	// The node's clocks.
	FaultClockOffset // the wall clock starts For off true time
	FaultClockDrift  // both clocks run off the rate of true time, for For from the start (Detail: by how much)
	FaultClockJump   // the wall clock steps by For

	// The network and S3 as a whole.
	FaultPartition // the node cannot reach S3 for For
	FaultSlowS3    // every S3 request is slower for For

	// What befalls one request (EvS3Send and EvS3Apply, or their row-store
	// counterparts): its fate, or an aimed delay of For; and a torn answer
	// (EvS3Return).
	FaultRefusedBefore  // answered an error without being applied (a 409, a 5xx, a 429 or 503)
	FaultFailedAfter    // applied, and answered an error
	FaultLost           // applied, and the answer never arrives
	FaultUnreachable    // never reaches S3: a connection error
	FaultDropped        // never reaches S3, and no answer ever comes
	FaultRequestDelayed // reaches S3 For late
	FaultAnswerDelayed  // its answer arrives For late
	FaultTornRead       // a GetObject answered with the body of one version and the ETag of another (EvS3Return)

	// Someone other than the electors writes the lock object.
	FaultInitial     // the object's content before the run
	FaultDeleteLock  // deletes it
	FaultOverwrite   // overwrites it
	FaultRestoreCopy // copies it, to write the copy back later (a FaultRestore follows)
	FaultRestore     // writes an earlier copy back
	FaultRestoreOwn  // writes back a node's own earlier write as its renewal lands

	// The application.
	FaultLinger       // it writes on after its term ended, for For
	FaultWriteDelayed // a fenced write reaches the resource For late

	// FaultAimed notes that a fault aimed at a role (the leader, the
	// renewer...) found its node; the fault's own event follows.
	FaultAimed

	numFaultKinds
)

var faultKindNames = [numFaultKinds]string{
	"", "pause", "answer-pause", "pause-before-write", "clock-stall",
	"clock-offset", "clock-drift", "clock-jump",
	"partition", "slow-s3",
	"refused-before", "failed-after", "lost", "unreachable", "dropped", "request-delayed", "answer-delayed", "torn-read",
	"initial", "delete-lock", "overwrite", "restore-copy", "restore", "restore-own",
	"linger", "write-delayed",
	"aimed",
}

// FaultKinds returns every kind of fault, NoFault left out, in order.
func FaultKinds() []FaultKind {
	out := make([]FaultKind, 0, numFaultKinds-1)
	for k := NoFault + 1; k < numFaultKinds; k++ {
		out = append(out, k)
	}
	return out
}

// String returns the kind's name as traces and fault spans (FaultSpan.Kind)
// give it; NoFault's is empty.
func (k FaultKind) String() string {
	if k < numFaultKinds {
		return faultKindNames[k]
	}
	return "fault(" + strconv.Itoa(int(k)) + ")"
}

// Pause reports a kind whose event (an EvPause) stops the node's process.
func (k FaultKind) Pause() bool { return k >= FaultPause && k <= FaultClockStall }

// MarshalText encodes the kind by name.
func (k FaultKind) MarshalText() ([]byte, error) {
	if k >= numFaultKinds {
		return nil, fmt.Errorf("sim: unknown fault kind %d", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes a kind from its name.
func (k *FaultKind) UnmarshalText(b []byte) error {
	for i, name := range faultKindNames {
		if name == string(b) {
			*k = FaultKind(i)
			return nil
		}
	}
	return fmt.Errorf("sim: unknown fault kind %q", b)
}

// fateKinds is the kind of fault each fate records.
var fateKinds = [numFates]FaultKind{NoFault, FaultRefusedBefore, FaultFailedAfter, FaultLost, FaultUnreachable, FaultDropped}

// faultDetails is the trace's Detail for a request sent with a fault of
// each kind, made once: the send is on the hot path.
var faultDetails = func() (d [numFaultKinds]string) {
	for k := NoFault + 1; k < numFaultKinds; k++ {
		d[k] = "fault: " + k.String()
	}
	return d
}()

// record notes on the send event e of a request the fault that befalls it:
// the one the injector named (an aimed delay, For long), else its fate's.
func (f RequestFault) record(e *Event) {
	switch {
	case f.Kind != NoFault:
		e.Fault, e.For = f.Kind, f.ExtraRequest+f.ExtraResponse
	case f.Fate != Delivered:
		e.Fault = fateKinds[f.Fate]
	default:
		return
	}
	e.Detail = faultDetails[e.Fault]
}
