package faults

import (
	"fmt"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Outside returns the reasons the plan leaves the assumptions, or nothing
// if it stays inside them. A node's timed pauses (and stalls) that overlap
// or touch count as one pause against the bound, as the simulator runs
// them.
func (p *Plan) Outside(a protocol.Assumptions) []string {
	var why []string
	for _, c := range p.Clocks {
		if c.DriftPPM > a.MaxDriftPPM || -c.DriftPPM > a.MaxDriftPPM {
			why = append(why, fmt.Sprintf("n%d's clock drifts %d ppm, beyond the assumed %d", c.Node, c.DriftPPM, a.MaxDriftPPM))
		}
		if a.MaxOffset > 0 && (c.Offset.D() > a.MaxOffset || -c.Offset.D() > a.MaxOffset) {
			why = append(why, fmt.Sprintf("n%d's wall clock is %v off true time, beyond the assumed %v", c.Node, c.Offset, a.MaxOffset))
		}
	}
	for _, m := range timedPauses(p.Events) {
		if m.To-m.From > a.MaxPause {
			why = append(why, fmt.Sprintf("n%d does not run from %v to %v (%v of pauses), beyond the assumed %v", m.Node, m.From, m.To, m.To-m.From, a.MaxPause))
		}
	}
	if p.Initial.Foreign() && !a.ForeignWrites {
		why = append(why, "someone else wrote the lock object before the run (initial)")
	}
	switch {
	case p.S3.TornPPM > 0 && !a.TornReads:
		why = append(why, fmt.Sprintf("S3 answers %d ppm of the reads a write races torn (the body of one version, the ETag of another)", p.S3.TornPPM))
	case p.S3.TornPPM > 0 && p.S3.OpaqueETags:
		why = append(why, fmt.Sprintf("S3 answers %d ppm of the reads a write races torn, and its ETags are not MD5s: no reader can tell a torn read", p.S3.TornPPM))
	}
	if p.S3.OpaqueETags && !a.OpaqueETags {
		why = append(why, "S3's ETags are not the MD5s of the bodies (SSE-KMS)")
	}
	for _, ap := range p.Apps {
		if ap.Work.D() > a.MaxPause {
			why = append(why, fmt.Sprintf("n%d's application works for %v between its check and its write, beyond the assumed pause %v", ap.Node, ap.Work, a.MaxPause))
		}
	}
	for _, e := range p.Events {
		if e.Kind == Pause && (e.Role != "" || e.Target != "") && e.For.D() > a.MaxPause {
			why = append(why, fmt.Sprintf("a pause of %v aimed at the %s%s, beyond the assumed %v", e.For, e.Role, e.Target, a.MaxPause))
		}
		switch e.Kind {
		case AnswerPause, PauseBefore:
			// Aimed pauses fire when their request or write does; each is
			// compared alone here. The harness judges the pauses as they
			// happened, overlapping ones together.
			if e.For.D() > a.MaxPause {
				why = append(why, fmt.Sprintf("n%d pauses for %v (%s), beyond the assumed %v", e.Node, e.For, e.Kind, a.MaxPause))
			}
		case ClockJump:
			if a.MaxWallStep > 0 && (e.By.D() > a.MaxWallStep || -e.By.D() > a.MaxWallStep) {
				why = append(why, fmt.Sprintf("n%d's wall clock steps by %v, beyond the assumed %v", e.Node, e.By, a.MaxWallStep))
			}
		case ClockStall:
			if !a.Stalls {
				why = append(why, fmt.Sprintf("n%d's monotonic clock stalls for %v", e.Node, e.For))
			}
		case DeleteLock, Overwrite, Restore, RestoreOwn:
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

// timedPauses merges each node's timed pauses and stalls that overlap or
// touch (sim.MergeSpans).
func timedPauses(evs []Event) []sim.FaultSpan {
	var ps []sim.FaultSpan
	for _, e := range evs {
		if (e.Kind == Pause || e.Kind == ClockStall) && e.Role == "" && e.Target == "" {
			ps = append(ps, sim.FaultSpan{Kind: string(e.Kind), Node: e.Node, From: e.At.D(), To: e.At.D() + e.For.D()})
		}
	}
	return sim.MergeSpans(ps)
}
