package htmlreport

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Every violation has a zoomed strip, and every way to it (the header's
// list, the line's label on the whole timeline) leads there. The run's
// violations are more than zoomShare apart: a strip each.
func TestEveryViolationZoomed(t *testing.T) {
	o, page := failingPage(t)
	for i := 1; i < len(o.Violations); i++ {
		if o.Violations[i].At-o.Violations[i-1].At <= zoomShare {
			t.Fatalf("violations %d and %d of %s seed %d are too close for a strip each", i, i+1, o.Scenario, o.Seed)
		}
	}
	doc := parsePage(t, page)
	strips := doc.all(func(e *elem) bool { return e.name == "details" && e.hasClass("zoom") })
	if want := len(o.Violations) + len(o.Excused); len(strips) != want {
		t.Fatalf("%d zoomed strips for %d violations and %d excused ones", len(strips), len(o.Violations), len(o.Excused))
	}
	items := doc.withClass("violation-item")
	tl := doc.byID("tl-svg")
	for i, v := range o.Violations {
		line := violationID(i)
		target := zoomPrefix(line) + "svg"
		strip := strips[i]
		if strip.attrs["data-lines"] != line || strip.attrs["id"] != "zoom-"+line || !strip.hasClass("violation") {
			t.Errorf("strip %d is %v, want the strip of %s", i+1, strip.attrs, line)
			continue
		}
		// Only the first is open.
		if _, open := strip.attrs["open"]; open != (i == 0) {
			t.Errorf("strip %d open = %v", i+1, open)
		}
		svg := strip.byID(target)
		if svg == nil || svg.name != "svg" {
			t.Errorf("strip %d holds no SVG %s", i+1, target)
			continue
		}
		// The strip draws its violation's line.
		if l := svg.byID(zoomPrefix(line) + line); l == nil || !strings.Contains(l.textOf(), secs(v.At)) {
			t.Errorf("strip %d does not draw violation %s at %s", i+1, line, secs(v.At))
		}
		links := func(e *elem) []*elem {
			return e.all(func(x *elem) bool { return x.name == "a" && x.attrs["href"] == "#"+target })
		}
		if len(links(items[i])) != 1 {
			t.Errorf("violation %d in the header has no link to its strip", i+1)
		}
		if len(links(tl)) != 1 {
			t.Errorf("violation %d's label on the timeline has no link to its strip", i+1)
		}
	}
}

// Each strip shows zoomHalf either side of its first line, moved inside the
// run at its ends; lines near its centre share it; a run too short to need
// zooms has none.
func TestZoomWindows(t *testing.T) {
	o, _ := failingPage(t)
	m := buildModel(o)
	// A second violation close to the first, and one at the very end.
	first := m.lines[0]
	m.lines = append(m.lines,
		vline{id: "v98", at: first.at + zoomShare - time.Millisecond, label: "near", class: "violation"},
		vline{id: "v99", at: m.end, label: "last", class: "violation"})
	strips := zoomStrips(m, planZooms(m))
	if want := len(o.Violations) + len(o.Excused) + 1; len(strips) != want {
		t.Fatalf("%d strips, want %d", len(strips), want)
	}
	if !slices.Equal(strips[0].Lines, []string{first.id, "v98"}) || m.zooms["v98"] != strips[0].Target {
		t.Errorf("the first strip zooms on %v; the line near its centre leads to %s", strips[0].Lines, m.zooms["v98"])
	}
	for _, s := range strips {
		for _, id := range s.Lines {
			at := m.lines[slices.IndexFunc(m.lines, func(l vline) bool { return l.id == id })].at
			if s.To-s.From != 2*zoomHalf || s.From < 0 || s.To > m.end || at < s.From || at > s.To {
				t.Errorf("strip %s shows %s to %s, its line %s is at %s, the run is %s", s.ID, secs(s.From), secs(s.To), id, secs(at), secs(m.end))
			}
			if m.zooms[id] != s.Target {
				t.Errorf("line %s leads to %s, not to its strip %s", id, m.zooms[id], s.Target)
			}
		}
		at := m.lines[slices.IndexFunc(m.lines, func(l vline) bool { return l.id == s.Lines[0] })].at
		if at-zoomHalf >= 0 && at+zoomHalf <= m.end && s.From != at-zoomHalf {
			t.Errorf("strip %s is not centred on %s at %s: %s to %s", s.ID, s.Lines[0], secs(at), secs(s.From), secs(s.To))
		}
	}

	m.end = zoomMin - 1
	if plans := planZooms(m); len(plans) != 0 || len(m.zooms) != 0 {
		t.Errorf("a run of %s got %d zoomed strips", secs(m.end), len(plans))
	}
}
