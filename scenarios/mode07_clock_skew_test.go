package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
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

// findSkewHandover finds the handover of a modeASkewedHandover run,
// checking on the way that every node's wall clock started at its planned
// offset.
func findSkewHandover(t *testing.T, o *harness.Outcome) (skewHandover, bool) {
	t.Helper()
	var h skewHandover
	for _, e := range events(o, sim.EvStart, anyNode) {
		if e.At == 0 && e.Local != o.Plan.Clocks[e.Node].Offset.D() {
			t.Errorf("seed %d: n%d's wall clock starts at %v, not at its offset %v", o.Seed, e.Node, e.Local, o.Plan.Clocks[e.Node].Offset)
		}
	}
	terms := o.Result.History.Terms
	if len(terms) < 2 || terms[0].Open {
		t.Errorf("seed %d: no handover: %+v", o.Seed, terms)
		return h, false
	}
	h.first, h.clock = terms[0], o.Plan.Clocks[terms[0].Node]
	for _, term := range terms[1:] {
		if term.Node != h.first.Node {
			h.next = term
			break
		}
	}
	for _, e := range events(o, sim.EvS3Send, h.first.Node) {
		if r, ok := byCall(o, sim.EvS3Return, e.Call); ok && e.Op == "PutObject" && r.Status == 200 && r.At < h.first.End {
			h.lastOK = e.At
		}
	}
	if h.next.Token <= h.first.Token || h.lastOK == 0 {
		t.Errorf("seed %d: no takeover from n%d: %+v", o.Seed, h.first.Node, terms)
		return h, false
	}
	return h, true
}

// TestClockSkew: wall clocks started minutes apart as planned; the first
// leader's clock ran at the slow bound, so its term lasted longer in true
// time than RenewDeadline after its last successful renewal (but no longer
// than the bound allows); it ended before a follower, one of them at the
// fast bound, took over.
func TestClockSkew(t *testing.T) {
	outs := runSeeds(t, ClockSkew, 30)
	checkSurvives(t, outs...)
	s := elector.DefaultSettings
	spread := time.Duration(0)
	for _, o := range outs {
		h, ok := findSkewHandover(t, o)
		if !ok {
			continue
		}
		lo, hi := o.Plan.Clocks[0].Offset.D(), o.Plan.Clocks[0].Offset.D()
		fast := false
		for _, c := range o.Plan.Clocks {
			lo, hi = min(lo, c.Offset.D()), max(hi, c.Offset.D())
			fast = fast || c.DriftPPM == s.ClockDriftPPM
		}
		spread = max(spread, hi-lo)
		if h.clock.DriftPPM != -s.ClockDriftPPM || !fast {
			t.Errorf("seed %d: the leader's clock drifts %d ppm and no follower's %d", o.Seed, h.clock.DriftPPM, s.ClockDriftPPM)
		}
		term := h.first.End - h.lastOK
		most := s.RenewDeadline*1_000_000/time.Duration(1_000_000-s.ClockDriftPPM) + time.Nanosecond
		if term <= s.RenewDeadline || term > most {
			t.Errorf("seed %d: n%d's slow clock made its term last %v after its last renewal, want (%v, %v]",
				o.Seed, h.first.Node, term, s.RenewDeadline, most)
		}
		if h.next.Start <= h.first.End {
			t.Errorf("seed %d: n%d took over at %v, before n%d's term ended at %v", o.Seed, h.next.Node, h.next.Start, h.first.Node, h.first.End)
		}
	}
	if spread < 5*time.Minute {
		t.Errorf("wall clocks were at most %v apart", spread)
	}
}
