package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestDriftBeyondBound: every seed is outside the assumptions and passes;
// the trace records each node's planned drift. Leaders overlap only in
// seeds whose drift passes 20%, where the slack between the 6 s lease and
// the 4 s term is used up, and in those the old leader's writes that
// arrive after the new token are refused.
func TestDriftBeyondBound(t *testing.T) {
	rs := runSeeds(t, DriftBeyondBound, 40)
	checkFenced(t, rs)
	small, overlapped := 0, 0
	for _, r := range rs {
		h, ok := r.handover()
		if !ok {
			continue
		}
		for _, c := range r.Plan.Clocks {
			ds := filter(r.faults(sim.FaultClockDrift), func(e sim.Event) bool { return e.Node == c.Node })
			if (c.DriftPPM != 0) != (len(ds) == 1) || len(ds) > 1 || len(ds) == 1 && ds[0].For != c.DriftUntil.D() {
				r.errorf("n%d's drift of %d ppm until %v is recorded as %v", c.Node, c.DriftPPM, c.DriftUntil, ds)
			}
		}
		drift := -h.clock.DriftPPM
		switch {
		case drift < 50_000:
			r.errorf("the leader's clock drifts only %d ppm", h.clock.DriftPPM)
		case drift <= 200_000:
			small++
			if r.overlapped() {
				r.errorf("leaders overlap with drift %d ppm, which the slack should absorb: %v", drift, r.Overlaps)
			}
		case r.overlapped():
			overlapped++
			for _, w := range r.refused() {
				if w.Node != h.first.Node || w.Token != h.first.Token || w.Applied < h.next.Start {
					r.errorf("refused write %+v is not the old leader n%d's after the takeover at %v", w, h.first.Node, h.next.Start)
				}
			}
		}
	}
	if small == 0 || overlapped == 0 {
		t.Errorf("%d seeds with drift within 20%% and %d overlapping ones; want both", small, overlapped)
	}
	t.Logf("%d seeds within 20%% drift, none overlapping; %d beyond it overlapped", small, overlapped)
}
