package lockkit

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Timings are the figures a careful lock derives its term and its
// assumptions from, each with the name of the configuration field that
// sets it.
type Timings struct {
	// Lease is how long followers wait, on their own clocks, before they
	// take a record over.
	Lease time.Duration
	// RenewDeadline is the longest a term lasts after the send of its last
	// successful write.
	RenewDeadline time.Duration
	// DriftPPM bounds every clock's rate error, in parts per million.
	DriftPPM int64
	// Fields name Lease, RenewDeadline and DriftPPM in errors.
	Fields [3]string
}

// Term is how long a term lasts after the send of its last successful
// write: protocol.TermLength.
func (t Timings) Term() time.Duration {
	return protocol.TermLength(t.Lease, t.RenewDeadline, t.DriftPPM)
}

// Assumptions are what a lock with these timings needs of the world: clock
// rates within DriftPPM, and pauses no longer than the slack between the
// end of a term and the earliest takeover, less what drift can eat of it
// (protocol.PauseBound).
func (t Timings) Assumptions() protocol.Assumptions {
	return protocol.Assumptions{Lease: t.Lease, Term: t.Term(), MaxDriftPPM: t.DriftPPM,
		MaxPause: protocol.PauseBound(t.Lease, t.Term(), t.DriftPPM)}
}

// Check reports the first figure that leaves the lock no margin, as a
// *protocol.ConfigError naming its field: a lease outside (0,
// protocol.MaxLeaseDuration], a drift bound outside [0,
// protocol.MaxClockDriftPPM), a drift margin that leaves no term, or a
// renew deadline that is not positive or leaves no slack for pauses after
// the drift margin (protocol.PauseBound).
// Within these every derived figure is exact: none overflows.
func (t Timings) Check() error {
	lease, renew, drift := t.Fields[0], t.Fields[1], t.Fields[2]
	switch {
	case t.Lease <= 0 || t.Lease > protocol.MaxLeaseDuration:
		return Invalid(lease, "must be in (0, %v], got %v", protocol.MaxLeaseDuration, t.Lease)
	case t.DriftPPM < 0 || t.DriftPPM >= protocol.MaxClockDriftPPM:
		return Invalid(drift, "must be in [0, %d), got %d", protocol.MaxClockDriftPPM, t.DriftPPM)
	case t.RenewDeadline <= 0:
		return Invalid(renew, "must be positive, got %v", t.RenewDeadline)
	case t.Term() <= 0:
		return Invalid(drift, "(%d) leaves no term of a %s of %v", t.DriftPPM, lease, t.Lease)
	case t.Assumptions().MaxPause <= 0:
		return Invalid(renew, "(%v) leaves no slack for pauses between the term (%v, at most %s less the drift margin of %v) and %s (%v) at %d ppm",
			t.RenewDeadline, t.Term(), lease, protocol.DriftMargin(t.Lease, t.DriftPPM), lease, t.Lease, t.DriftPPM)
	}
	return nil
}

// Invalid is the error a lock's configuration check gives for field: a
// *protocol.ConfigError.
func Invalid(field, problem string, args ...any) error {
	return &protocol.ConfigError{Field: field, Problem: fmt.Sprintf(problem, args...)}
}
