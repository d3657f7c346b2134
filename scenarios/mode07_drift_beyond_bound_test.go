package scenarios

import (
	"testing"
)

// TestDriftBeyondBound: every seed is outside the assumptions and passes.
// Leaders overlap only in seeds whose drift passes 20%, where the slack
// between the 6 s lease and the 4 s term is used up, and in those the old
// leader's writes that arrive after the new token are refused.
func TestDriftBeyondBound(t *testing.T) {
	outs := runSeeds(t, DriftBeyondBound, 40)
	checkFenced(t, outs)
	small, overlapped := 0, 0
	for _, o := range outs {
		h, ok := findSkewHandover(t, o)
		if !ok {
			continue
		}
		drift := -h.clock.DriftPPM
		if drift < 50_000 {
			t.Errorf("seed %d: the leader's clock drifts only %d ppm", o.Seed, h.clock.DriftPPM)
		}
		if drift <= 200_000 {
			small++
			if hasOverlap(o) {
				t.Errorf("seed %d: leaders overlap with drift %d ppm, which the slack should absorb: %v", o.Seed, drift, o.Overlaps)
			}
			continue
		}
		if !hasOverlap(o) {
			continue
		}
		overlapped++
		for _, w := range refusedWrites(o) {
			if w.Node != h.first.Node || w.Token != h.first.Token || w.Applied < h.next.Start {
				t.Errorf("seed %d: refused write %+v is not the old leader n%d's after the takeover at %v", o.Seed, w, h.first.Node, h.next.Start)
			}
		}
	}
	if small == 0 || overlapped == 0 {
		t.Errorf("%d seeds with drift within 20%% and %d overlapping ones; want both", small, overlapped)
	}
	t.Logf("%d seeds within 20%% drift, none overlapping; %d beyond it overlapped", small, overlapped)
}
