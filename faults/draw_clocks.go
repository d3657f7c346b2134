package faults

import "time"

// maxOffset and maxStep bound the clock offsets and wall-clock steps the
// generator draws for a protocol that states no bound of its own.
const (
	maxOffset = 5 * time.Minute
	maxStep   = time.Hour
)

// drawClocks draws every node's clock: an offset from true time within
// the protocol's bound (MaxOffset; else within maxOffset), and on one
// draw in 12 the node outside the assumptions beyond it, up to twice
// maxOffset; a drift within the protocol's bound, one in three at its
// very edge, fast or slow; and, for the wild node (one draw in 12), a
// drift 2 to 50 times past the bound, until the heal.
func drawClocks(d *drawing, s stream) {
	ppm, limit := d.b.MaxDriftPPM, maxOffset
	if d.b.MaxOffset > 0 {
		limit = min(limit, d.b.MaxOffset)
	}
	for i := range d.nodes {
		cs := ClockSetting{Node: i, Offset: Duration(s.Signed(int64(limit)))}
		if d.b.MaxOffset > 0 && i == d.outside && s.OneIn(12) {
			cs.Offset = Duration(s.Between(limit+time.Millisecond, 2*maxOffset)) * Duration([]int64{1, -1}[s.Pick(2)])
		}
		if i == d.wild {
			cs.DriftPPM = s.Int(min(2*ppm, 400_000), min(50*ppm, 500_000))
			if s.OneIn(2) {
				cs.DriftPPM = -cs.DriftPPM
			}
			cs.DriftUntil = Duration(d.sp.HealAt) // like every fault, the wild drift heals
		} else {
			cs.DriftPPM = s.Signed(ppm)
			if s.OneIn(3) {
				// At the very edge of the bound, fast or slow: where a
				// margin that is a little short shows.
				cs.DriftPPM = ppm * []int64{1, -1}[s.Pick(2)]
			}
		}
		if cs != (ClockSetting{Node: i}) {
			d.plan.Clocks = append(d.plan.Clocks, cs)
		}
	}
}

// drawSteps draws wall-clock steps, on one draw in 2: one to three, each
// of a node's clock, within the protocol's bound (MaxWallStep; else
// within maxStep), and on one draw in 12 of those the node outside the
// assumptions stepping beyond it, up to twice maxStep.
func drawSteps(d *drawing, s stream) {
	if !s.OneIn(2) {
		return
	}
	limit := maxStep
	if d.b.MaxWallStep > 0 {
		limit = min(limit, d.b.MaxWallStep)
	}
	beyond := d.b.MaxWallStep > 0 && s.OneIn(12)
	s.Repeat(1, 3, func(int) {
		e := Event{Kind: ClockJump, At: s.at(0), Node: s.node(), By: Duration(s.Signed(int64(limit)))}
		if beyond {
			e.Node = d.outside
			e.By = Duration(s.Between(limit+time.Millisecond, 2*maxStep)) * Duration([]int64{1, -1}[s.Pick(2)])
		}
		d.add(e)
	})
}
