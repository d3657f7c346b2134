package elector

import (
	"time"

	"github.com/s3lease/s3lease/sim"
)

// A node's clock in true time: the elector waits on its own clock, which
// drifts (sim.ClockModel.DriftPPM, fast if positive) and may stall; the
// pace rules bound its waits in true time, with paceSlack for rounding.

// trueFor is the true time in which a clock drifting ppm advances by d.
func trueFor(d time.Duration, ppm int64) time.Duration {
	return time.Duration(float64(d) * 1e6 / float64(1e6+ppm))
}

// trueTime is the longest true time a node's clock takes to advance by d:
// at its drifting rate or at the true rate, whichever is slower.
func trueTime(clock sim.ClockModel, d time.Duration) time.Duration {
	if clock.DriftPPM >= 0 {
		return d
	}
	return trueFor(d, clock.DriftPPM) + paceSlack
}

// leastTrue is the least true time in which a node's monotonic clock
// advances by d: at its drifting rate if that is fast (a stall only
// lengthens it).
func leastTrue(clock sim.ClockModel, d time.Duration) time.Duration {
	if clock.DriftPPM <= 0 {
		return d
	}
	return trueFor(d, clock.DriftPPM) - paceSlack
}

// localTime is the most a node's clock advances in true time d: at its
// drifting rate or at the true rate, whichever is faster.
func localTime(clock sim.ClockModel, d time.Duration) time.Duration {
	if clock.DriftPPM <= 0 {
		return d
	}
	return time.Duration(float64(d)*(1e6+float64(clock.DriftPPM))/1e6) + paceSlack
}

// stalledWithin reports whether the node's clock model stalls its
// monotonic clock within [from, to].
func stalledWithin(clock sim.ClockModel, from, to time.Duration) bool {
	for _, st := range clock.Stalls {
		if st.At <= to && st.At+st.For >= from {
			return true
		}
	}
	return false
}

// stalledAfter is how long node's monotonic clock stood still after from:
// its clock model's stalls and the stalls the faults drew.
func stalledAfter(h *sim.History, clock sim.ClockModel, node int, from time.Duration) time.Duration {
	var d time.Duration
	for _, st := range clock.Stalls {
		if st.At+st.For > from {
			d += st.For
		}
	}
	for _, f := range h.Faults {
		if f.Node == node && f.Kind == "clock-stall" && f.To > from {
			d += f.To - f.From
		}
	}
	return d
}
