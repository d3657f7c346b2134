package faults

import (
	"fmt"
	"time"
)

// Assumptions are what a protocol needs of the world to keep two leaders
// from overlapping in true time. A run whose plan stays inside them must
// show no overlap; a run outside them may, and then fencing must still
// reject every stale write.
type Assumptions struct {
	// MaxDriftPPM bounds the rate error of every clock.
	MaxDriftPPM int64
	// MaxPause bounds how long a process may stop (GC, SIGSTOP, scheduling).
	MaxPause time.Duration
	// Stalls, ForeignWrites and Linger say whether the protocol tolerates
	// monotonic clock stalls (suspended VMs), writes to the lock object by
	// anyone else, and applications that go on working after their term.
	Stalls, ForeignWrites, Linger bool
}

// Outside returns the reasons the plan leaves the assumptions, or nothing
// if it stays inside them.
func (p *Plan) Outside(a Assumptions) []string {
	var why []string
	for _, c := range p.Clocks {
		if c.DriftPPM > a.MaxDriftPPM || -c.DriftPPM > a.MaxDriftPPM {
			why = append(why, fmt.Sprintf("n%d's clock drifts %d ppm, beyond the assumed %d", c.Node, c.DriftPPM, a.MaxDriftPPM))
		}
	}
	for _, e := range p.Events {
		switch e.Kind {
		case Pause, AnswerPause, PauseBefore:
			if e.For.D() > a.MaxPause {
				why = append(why, fmt.Sprintf("n%d pauses for %v (%s), beyond the assumed %v", e.Node, e.For, e.Kind, a.MaxPause))
			}
		case ClockStall:
			if !a.Stalls {
				why = append(why, fmt.Sprintf("n%d's monotonic clock stalls for %v", e.Node, e.For))
			}
		case DeleteLock, Overwrite:
			if !a.ForeignWrites {
				why = append(why, fmt.Sprintf("someone else writes the lock object at %v (%s)", e.At, e.Kind))
			}
		case Linger:
			if !a.Linger && e.By > 0 {
				why = append(why, fmt.Sprintf("n%d's application works on for %v after its term", e.Node, e.By))
			}
		}
	}
	return why
}
