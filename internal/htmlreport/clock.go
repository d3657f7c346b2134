package htmlreport

import (
	"fmt"
	"sort"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// A node's own wall clock is shown as its offset from true time ("+1.250 s":
// the clock reads 1.25 s more than true time), never as a time of day: what
// matters on the page is how far the nodes' clocks disagree, and a time of
// day modulo 24 hours hides offsets of days and reads as a second axis.

// clockOffset prints an offset of a clock from true time to the
// millisecond, with its sign: "+1.250 s", "-0.300 s", and for offsets of
// 100 s or more "-4m42.270s", "+26h00m00.000s".
func clockOffset(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	d = d.Round(time.Millisecond)
	if d < 100*time.Second {
		return fmt.Sprintf("%s%.3f s", sign, d.Seconds())
	}
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, (d % time.Minute).Seconds()
	if h > 0 {
		return fmt.Sprintf("%s%dh%02dm%06.3fs", sign, h, m, s)
	}
	return fmt.Sprintf("%s%dm%06.3fs", sign, m, s)
}

// clockReads says where a node's wall clock stood when it read local at
// true time at, for a tooltip.
func clockReads(local, at time.Duration) string {
	return "its clock reads true time " + clockOffset(local-at)
}

// driftText prints a clock's drift: "drift +200 ppm", or "no drift".
func driftText(ppm int64) string {
	if ppm == 0 {
		return "no drift"
	}
	return fmt.Sprintf("drift %+d ppm", ppm)
}

// clockLine is the clock the plan gives a node, for the lane's gutter:
// "clock +1.250 s, drift +200 ppm"; "clock exact" for true time.
func clockLine(c faults.ClockSetting) string {
	if c.Offset == 0 && c.DriftPPM == 0 {
		return "clock exact"
	}
	return "clock " + clockOffset(c.Offset.D()) + ", " + driftText(c.DriftPPM)
}

// clockTitle is clockLine in words, for a tooltip.
func clockTitle(c faults.ClockSetting) string {
	s := "its wall clock starts at true time " + clockOffset(c.Offset.D()) + ", " + driftText(c.DriftPPM)
	if c.DriftPPM != 0 && c.DriftUntil > 0 {
		s += " until " + secs(c.DriftUntil.D())
	}
	return s + " (steps and stalls come on top)"
}

// offsetAt is a node's clock offset from true time at t, from the nearest
// reading before t (or the first after): exact but for the drift between two
// events, which a label does not show.
func offsetAt(pts []clockPoint, t time.Duration) (time.Duration, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	i := sort.Search(len(pts), func(i int) bool { return pts[i].at > t })
	p := pts[max(i-1, 0)]
	return p.local - p.at, true
}
