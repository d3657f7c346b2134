package htmlreport

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
)

func TestClockOffsetText(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "+0.000 s"},
		{1250 * time.Millisecond, "+1.250 s"},
		{-300 * time.Millisecond, "-0.300 s"},
		{-2543365867, "-2.543 s"},
		{99999600 * time.Microsecond, "+1m40.000s"}, // rounded first
		{-(4*time.Minute + 42270*time.Millisecond), "-4m42.270s"},
		{5*time.Minute + 250*time.Millisecond, "+5m00.250s"},
		{-26*time.Hour - 1500*time.Microsecond, "-26h00m00.002s"},
	} {
		if got := clockOffset(c.d); got != c.want {
			t.Errorf("clockOffset(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := clockLine(faults.ClockSetting{Offset: faults.Duration(-300 * time.Millisecond), DriftPPM: 200}); got != "clock -0.300 s, drift +200 ppm" {
		t.Errorf("clockLine = %q", got)
	}
}

// offsetAt reads the offset at the last reading before t: with a drifting
// clock, it changes from reading to reading.
func TestOffsetAt(t *testing.T) {
	// A clock 1 s ahead and 1000 ppm fast, read every second.
	var pts []clockPoint
	for s := range 5 {
		at := time.Duration(s) * time.Second
		pts = append(pts, clockPoint{at: at, local: time.Second + at + at/1000})
	}
	for _, c := range []struct{ t, want time.Duration }{
		{-time.Second, time.Second}, // before the first reading: the first
		{0, time.Second},
		{2500 * time.Millisecond, time.Second + 2*time.Millisecond},
		{time.Hour, time.Second + 4*time.Millisecond},
	} {
		if got, ok := offsetAt(pts, c.t); !ok || got != c.want {
			t.Errorf("offsetAt(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	if _, ok := offsetAt(nil, 0); ok {
		t.Error("offsetAt of no readings is ok")
	}
}

// Each node's own clock is drawn as its offset from true time, never as a
// time of day: in a run whose clocks are offset without drift or steps,
// every reading under a node's lane is its offset in the plan.
func TestClockOffsetsOnPage(t *testing.T) {
	o, page := failingPage(t)
	doc := parsePage(t, page)
	offsets := make(map[string]string) // node: its offset, as drawn
	for _, c := range o.Plan.Clocks {
		if c.DriftPPM != 0 {
			t.Fatalf("the run's clock of n%d drifts; this test wants a run without drift", c.Node)
		}
		offsets[fmt.Sprint(c.Node)] = clockOffset(c.Offset.D())
	}
	for _, e := range o.Plan.Events {
		if e.Kind == faults.ClockJump || e.Kind == faults.ClockStall {
			t.Fatalf("the run's plan steps a clock; this test wants a run without steps")
		}
	}
	timeOfDay := regexp.MustCompile(`\d\d:\d\d:\d\d`)
	for _, id := range []string{"tl-svg", zoomPrefix(violationID(0)) + "svg"} {
		svg := doc.byID(id)
		lanes := svg.all(func(e *elem) bool { return e.hasClass("lane-content") && e.attrs["data-node"] != "-1" })
		if len(lanes) != o.Result.History.Nodes {
			t.Fatalf("%s: %d node lanes", id, len(lanes))
		}
		for _, lane := range lanes {
			node := lane.attrs["data-node"]
			texts := lane.withClass("clock-offset")
			if len(texts) == 0 {
				t.Errorf("%s: n%s's lane shows no clock", id, node)
			}
			for _, x := range texts {
				// The text of the element, without its tooltip.
				if got := x.text.String(); got != offsets[node] {
					t.Errorf("%s: n%s's clock drawn as %q, want %q", id, node, got, offsets[node])
				}
			}
		}
		if m := timeOfDay.FindString(svg.textOf()); m != "" {
			t.Errorf("%s shows a time of day: %q", id, m)
		}
	}
}
