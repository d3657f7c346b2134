package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// skewHandover is the handover of a skewed-clock run: the first leader's
// term, the send of its last renewal that succeeded, the next term, and the
// first leader's clock setting.
type skewHandover struct {
	first, next sim.Term
	lastOK      time.Duration
	clock       faults.ClockSetting
}

// handover finds the handover of a modeASkewedHandover run, checking on
// the way that every node's wall clock started at its planned offset, as
// the trace records it.
func (r *run) handover() (skewHandover, bool) {
	r.t.Helper()
	var h skewHandover
	for _, c := range r.Plan.Clocks {
		st, ok := first(r.events(sim.EvStart, c.Node), func(e sim.Event) bool { return e.At == 0 })
		offsets := filter(r.faults(sim.FaultClockOffset), func(e sim.Event) bool { return e.Node == c.Node })
		if !ok || st.Local != c.Offset.D() || c.Offset != 0 && (len(offsets) != 1 || offsets[0].For != c.Offset.D()) {
			r.errorf("n%d's wall clock starts at %v (recorded %v), not at its offset %v", c.Node, st.Local, offsets, c.Offset)
		}
	}
	terms := r.Result.History.Terms
	if len(terms) < 2 || terms[0].Open {
		r.errorf("no handover: %+v", terms)
		return h, false
	}
	h.first, h.clock = terms[0], r.Plan.Clocks[terms[0].Node]
	h.next, _ = first(terms, func(t sim.Term) bool { return t.Node != h.first.Node })
	sent, ok := r.lastGrantSend(h.first.Node, h.first.End-1)
	if h.next.Token <= h.first.Token || !ok {
		r.errorf("no takeover from n%d: %+v", h.first.Node, terms)
		return h, false
	}
	h.lastOK = sent
	return h, true
}

// TestClockSkew: wall clocks started minutes apart as planned; the first
// leader's clock ran at the slow bound, so its term lasted longer in true
// time than RenewDeadline after its last successful renewal (but no longer
// than the bound allows); it ended before a follower, one of them at the
// fast bound, took over.
func TestClockSkew(t *testing.T) {
	s := elector.DefaultSettings
	spread := time.Duration(0)
	for _, r := range runSeeds(t, ClockSkew, 30) {
		r.survives()
		h, ok := r.handover()
		if !ok {
			continue
		}
		lo, hi := r.Plan.Clocks[0].Offset.D(), r.Plan.Clocks[0].Offset.D()
		fast := false
		for _, c := range r.Plan.Clocks {
			lo, hi = min(lo, c.Offset.D()), max(hi, c.Offset.D())
			fast = fast || c.DriftPPM == s.ClockDriftPPM
		}
		spread = max(spread, hi-lo)
		if h.clock.DriftPPM != -s.ClockDriftPPM || !fast {
			r.errorf("the leader's clock drifts %d ppm and no follower's %d", h.clock.DriftPPM, s.ClockDriftPPM)
		}
		term := h.first.End - h.lastOK
		most := s.RenewDeadline*1_000_000/time.Duration(1_000_000-s.ClockDriftPPM) + time.Nanosecond
		if term <= s.RenewDeadline || term > most {
			r.errorf("n%d's slow clock made its term last %v after its last renewal, want (%v, %v]", h.first.Node, term, s.RenewDeadline, most)
		}
		if h.next.Start <= h.first.End {
			r.errorf("n%d took over at %v, before n%d's term ended at %v", h.next.Node, h.next.Start, h.first.Node, h.first.End)
		}
	}
	if spread < 5*time.Minute {
		t.Errorf("wall clocks were at most %v apart", spread)
	}
}
