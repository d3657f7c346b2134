package htmlreport

import (
	"fmt"
	"html/template"
	"strings"
	"time"
)

// Every vertical line of the timeline (each violation, the failure of a
// run that could not finish, each violation excused outside the
// assumptions) has a zoomed strip: the timeline again, zoomHalf either side
// of it. Lines within zoomShare of the centre of an earlier line's strip
// share that strip rather than draw the same seconds again (an overlap and
// the stale write it let through, say), which also bounds the size of the
// page of a run with hundreds of violations. Runs shorter than zoomMin get
// no strips: the whole run is drawn about as finely.
const (
	zoomHalf  = 5 * time.Second
	zoomShare = zoomHalf / 2
	zoomMin   = 15 * time.Second
)

// zoomStrip is the timeline zoomed around one or more lines, folded in a
// details element of its own.
type zoomStrip struct {
	// ID is the details element's id ("zoom-v2"); Target is the id of the
	// SVG inside it, which links point to: following a link to an element
	// inside a closed details element opens it.
	ID, Target string
	// Lines are the ids of the lines it zooms on (v2, e1, failure), the
	// first at its centre; Class is the first one's class (violation,
	// expected, failure).
	Lines []string
	Class string
	// From and To are the window of true time it shows.
	From, To time.Duration
	Summary  string
	SVG      template.HTML
	Open     bool
}

// zoomPrefix is the prefix of the ids in the zoomed strip centred on line
// id.
func zoomPrefix(id string) string { return "z-" + id + "-" }

// zoomPlan is a strip before it is drawn: its lines, the first at its
// centre.
type zoomPlan []vline

// planZooms gives every line a strip, in the order the page lists them
// (violations, the failure, then what the assumptions excuse), and records
// the anchor of each line's strip in m.zooms, so that the timelines drawn
// after link every label to its strip.
func planZooms(m *model) []zoomPlan {
	m.zooms = make(map[string]string)
	if m.end < zoomMin {
		return nil
	}
	var plans []zoomPlan
	for _, class := range []string{"violation", "failure", "expected"} {
		for _, l := range m.lines {
			if l.class != class {
				continue
			}
			i := 0
			for i < len(plans) && (l.at < plans[i][0].at-zoomShare || l.at > plans[i][0].at+zoomShare) {
				i++
			}
			if i == len(plans) {
				plans = append(plans, nil)
			}
			plans[i] = append(plans[i], l)
			m.zooms[l.id] = zoomPrefix(plans[i][0].id) + "svg"
		}
	}
	return plans
}

// zoomStrips draws the strips planZooms planned. The first is open unless
// it is only excused; the others are folded, so that a run with many
// violations keeps a page of reasonable length.
func zoomStrips(m *model, plans []zoomPlan) []zoomStrip {
	out := make([]zoomStrip, 0, len(plans))
	for i, lines := range plans {
		centre := lines[0]
		from := min(max(centre.at-zoomHalf, 0), m.end-2*zoomHalf)
		to := from + 2*zoomHalf
		prefix := zoomPrefix(centre.id)
		ids := make([]string, len(lines))
		labels := make([]string, len(lines))
		for j, l := range lines {
			ids[j] = l.id
			labels[j] = fmt.Sprintf("%s at %s", l.label, secs(l.at))
		}
		out = append(out, zoomStrip{
			ID: "zoom-" + centre.id, Target: prefix + "svg", Lines: ids, Class: centre.class, From: from, To: to,
			Summary: fmt.Sprintf("%s: the timeline from %s to %s", strings.Join(labels, ", "), secs(from), secs(to)),
			SVG:     renderSVG(m, prefix, from, to, narrowPlot, "the ten seconds around "+centre.label),
			Open:    i == 0 && centre.class != "expected",
		})
	}
	return out
}
