package htmlreport

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// The timeline's geometry, in CSS pixels. A timeline is an SVG without a
// viewBox, so that its text keeps its CSS size at every window width: the
// lanes' labels (the gutter) stand at fixed pixels left of the plot, in
// the SVG's left margin (negative x), and all on the plot is placed in
// percent of the plot's width, which is the window's less the gutter and
// the page's margins. A plot is never narrower than its least width
// (min-width: below it, it scrolls in its box), and its labels are laid out
// for that width: a label that clears its neighbours there clears them at
// every wider one, as the gaps between instants grow with the width and
// the labels do not.
const (
	gutter   = 236 // the lanes' labels, left of the plot
	rightPad = 20  // room for the last tick's label, right of the plot
	// narrowPlot is the least width of a plot: what a window 800 pixels
	// wide (a scroll bar, the page's margins and the gutter off) leaves it.
	narrowPlot = 480
	// pxPerSecond is the least scale of the whole run's timeline: a run
	// longer than narrowPlot/pxPerSecond seconds gets a wider least width.
	pxPerSecond  = 8
	maxWidth     = 24000
	maxLabelRows = 6  // rows of line labels above the axis, at most
	labelRowH    = 18 // their height
	laneH        = 92
	bottomPad    = 30

	// Rows inside a lane, from its top.
	rowMarks  = 2  // notes, crashes, stops, starts: y+2 .. y+12; labels of pauses and overlaps
	rowTermY  = 16 // leadership bars: y+16 .. y+38
	rowTermH  = 22
	rowS3     = 53 // S3 requests, centred
	rowFence  = 71 // fenced writes, centred
	rowClockY = 87 // the node's own clock, text baseline

	// Text sizes (CSS pixels, as the page's style sets them), for the
	// widths labels are laid out with: smallText is the least on the page.
	smallText = 11
	labelText = 12 // bold: line labels, term labels, overlap labels
)

// textWidth is a generous estimate of the width of s in pixels at size, in
// DejaVu Sans, the widest of the usual sans-serif fonts: the sum of its
// runes' widths, a tenth more in bold.
func textWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		w += runeWidth(r)
	}
	if bold {
		w *= 1.12
	}
	return w * size
}

// runeWidth is a rune's advance in ems, by its class, a little wider than
// DejaVu Sans draws it: narrow punctuation and letters, wide letters,
// capitals, and everything else (digits and most lower-case letters are
// about 0.6 em).
func runeWidth(r rune) float64 {
	switch {
	case strings.ContainsRune(" .,:;'!|()[]ijlft", r):
		return 0.4
	case strings.ContainsRune("mwMW", r):
		return 0.95
	case r >= 'A' && r <= 'Z':
		return 0.72
	case r > 0x2e7f:
		return 1 // wide scripts and symbols
	}
	return 0.64
}

// tokenColors tell tokens apart; none is red, orange or grey, which mean
// something else on the timeline.
var tokenColors = []string{"#3b6fb6", "#2f9e8f", "#8e5bb5", "#4f8f2f", "#6b4f2a", "#1d8fc4", "#6a5acd", "#7a8b1f", "#0b7285", "#35607a"}

func tokenColor(token uint64) string {
	if token == 0 {
		return "#777"
	}
	return tokenColors[(token-1)%uint64(len(tokenColors))]
}

// view is one rendering of the model: a window of true time at a scale.
// Its x coordinates are pixels of the plot at its least width w, from the
// plot's left edge; the SVG has them in percent of the plot's width.
type view struct {
	m        *model
	id       string // prefix of every id in the SVG
	from, to time.Duration
	scale    float64                  // pixels per nanosecond at the least width
	w        int                      // the plot's least width
	rows     map[float64][][2]float64 // the rows of text on the plot, by their y: what their labels take
	b        strings.Builder
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func (v *view) x(t time.Duration) float64 {
	return float64(t-v.from) * v.scale
}

// xc is x clamped to a little outside the plot, so that long spans draw
// as short rectangles.
func (v *view) xc(t time.Duration) float64 {
	return min(max(v.x(t), -5), float64(v.w+5))
}

// pc is an x, or a width, in percent of the plot's width, as the SVG has
// it.
func (v *view) pc(x float64) string {
	return strconv.FormatFloat(x*100/float64(v.w), 'f', 3, 64) + "%"
}

// right is the x of the plot's right edge.
func (v *view) right() float64 { return float64(v.w) }

// claim takes from..to of the row of text at y, and a gap of 4 pixels
// either side, if no label has taken any of it.
func (v *view) claim(y, from, to float64) bool {
	for _, in := range v.rows[y] {
		if from < in[1]+4 && in[0] < to+4 {
			return false
		}
	}
	v.rows[y] = append(v.rows[y], [2]float64{from, to})
	return true
}

// at draws inner (drawn about 0, 0) at x, y: a nested SVG that moves it.
func (v *view) at(x, y float64, inner string) {
	v.printf(`<svg x="%s" y="%s" overflow="visible">%s</svg>`, v.pc(x), f1(y), inner)
}

// fullWidth is the least plot width of a whole run of length end.
func fullWidth(end time.Duration) int {
	return min(max(narrowPlot, int(end.Seconds()*pxPerSecond)), maxWidth)
}

func (v *view) visible(from, to time.Duration) bool { return to >= v.from && from <= v.to }

func (v *view) printf(format string, args ...any) { fmt.Fprintf(&v.b, format, args...) }

func (v *view) title(s string) { v.b.WriteString("<title>" + esc(s) + "</title>") }

// renderSVG draws the lanes of m between from and to, on a plot at least
// plotW pixels wide. id prefixes the SVG's ids ("tl-", "zoom-"), and names
// the SVG.
func renderSVG(m *model, id string, from, to time.Duration, plotW int, caption string) template.HTML {
	if to <= from {
		to = from + time.Second
	}
	v := &view{m: m, id: id, from: from, to: to, w: plotW, scale: float64(plotW) / float64(to-from), rows: make(map[float64][][2]float64)}
	lines, labels := v.placeLines()
	axisY := labels*labelRowH + 22
	lanesTop := axisY + 8
	laneY := func(i int) float64 { return float64(lanesTop + i*laneH) }
	lanes := m.lanes
	bottom := laneY(len(lanes))
	height := int(bottom) + bottomPad
	v.printf(`<svg xmlns="http://www.w3.org/2000/svg" id="%ssvg" class="timeline" height="%d" style="margin-left: %dpx; width: calc(100%% - %dpx); min-width: %dpx" role="img" aria-label="%s">`,
		id, height, gutter, gutter+rightPad, plotW, esc(caption))
	v.printf(`<defs>`)
	v.printf(`<pattern id="%shatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="rgba(224,49,49,0.16)"/><line x1="0" y1="0" x2="0" y2="8" stroke="#e03131" stroke-width="3"/></pattern>`, id)
	v.printf(`<pattern id="%shatch-allowed" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="rgba(240,140,0,0.14)"/><line x1="0" y1="0" x2="0" y2="8" stroke="#f08c00" stroke-width="2.5"/></pattern>`, id)
	v.printf(`<pattern id="%sdown" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" fill="#f1f1f1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="1.5"/></pattern>`, id)
	v.printf(`</defs>`)

	for i, l := range lanes {
		v.laneLabels(laneY(i), i, l)
	}

	// The axis and the grid.
	step, minor := tickSteps(v.scale)
	v.printf(`<g class="axis">`)
	v.printf(`<line x1="0" y1="%d" x2="100%%" y2="%d" stroke="#444"/>`, axisY, axisY)
	v.printf(`<line x1="0" y1="%s" x2="100%%" y2="%s" stroke="#444"/>`, f1(bottom), f1(bottom))
	v.printf(`<text class="axis-cap" x="-16" y="%d">true time →</text>`, axisY-5)
	first := (v.from + minor - 1) / minor * minor
	for t := first; t <= v.to; t += minor {
		x := v.pc(v.x(t))
		if t%step == 0 {
			v.printf(`<line class="grid" x1="%s" y1="%d" x2="%s" y2="%s"/>`, x, axisY, x, f1(bottom))
			v.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#444"/>`, x, axisY-5, x, axisY)
			label := tickLabel(t, step)
			v.printf(`<text class="tick" x="%s" y="%d">%s</text>`, x, axisY-7, label)
			v.printf(`<text class="tick" x="%s" y="%s">%s</text>`, x, f1(bottom+15), label)
		} else {
			v.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#888"/>`, x, axisY-3, x, axisY)
		}
	}
	v.printf(`</g>`)

	// The plot, which clips what it holds.
	v.printf(`<svg class="plot" width="100%%" height="%d">`, height)
	for i, l := range lanes {
		v.lane(laneY(i), l, step)
	}
	v.overlaps(laneY)
	for i, l := range lanes {
		v.termLabels(laneY(i), l)
	}
	v.printf(`</svg>`)
	v.lines(lines, axisY, bottom)
	v.printf(`</svg>`)
	return template.HTML(v.b.String())
}

// laneLabels draws lane i's background, and its labels left of the plot: the
// node's name, the lines under it (its identities, its clock) and the
// captions of the lane's rows.
func (v *view) laneLabels(y float64, i int, l *laneData) {
	cls := "lane"
	if l.node == world {
		cls = "lane world"
	}
	v.printf(`<g class="%s" data-node="%d">`, cls, l.node)
	bg := "#fbfbfb"
	if i%2 == 1 {
		bg = "#f2f4f7"
	}
	v.printf(`<g fill="%s">`, bg)
	v.title(l.title)
	v.printf(`<rect x="-%d" y="%s" width="%d" height="%d"/><rect x="0" y="%s" width="100%%" height="%d"/></g>`, gutter, f1(y), gutter, laneH, f1(y), laneH)
	v.printf(`<text class="lane-name" x="%d" y="%s">%s</text>`, 10-gutter, f1(y+22), esc(l.name))
	// The captions, by their baselines; the lines under the name end short
	// of those beside them (all but the clock's, below them).
	caps := map[int]string{rowS3 + 4: "S3 writes"}
	if l.node != world {
		caps = map[int]string{rowTermY + 15: "leads", rowS3 + 4: requestsCap(l), rowFence + 4: "fence", rowClockY: "own clock"}
	}
	room := float64(gutter - 20)
	for _, dy := range slices.Sorted(maps.Keys(caps)) {
		v.printf(`<text class="row-cap" x="-6" y="%s">%s</text>`, f1(y+float64(dy)), caps[dy])
		if dy != rowClockY {
			room = min(room, float64(gutter-20)-textWidth(caps[dy], smallText, false))
		}
	}
	for j, s := range l.sub[:min(len(l.sub), 3)] {
		r := []rune(s)
		for len(r) > 1 && textWidth(string(r), smallText, false) > room {
			r = append(r[:len(r)-2], '…')
		}
		v.printf(`<text class="lane-sub" x="%d" y="%s">%s</text>`, 10-gutter, f1(y+40+float64(j)*14), esc(string(r)))
	}
	v.printf(`<line class="lane-sep" x1="-%d" y1="%s" x2="100%%" y2="%s"/>`, gutter, f1(y+laneH), f1(y+laneH))
	v.printf(`</g>`)
}

// lane draws one lane's contents, top at y.
func (v *view) lane(y float64, l *laneData, step time.Duration) {
	v.printf(`<g class="lane-content" data-node="%d">`, l.node)
	for _, s := range l.down {
		v.span(s, "down", y+1, laneH-2, 0, ` fill="url(#`+v.id+`down)"`, "span-label", "process down", y+rowTermY+15)
	}
	for _, s := range l.partitions {
		v.span(s, "partition", y+rowS3-10, 20, 1, "", "span-label partition-label", s.label, y+rowS3+4)
	}
	for _, s := range l.pauses {
		cls := "pause"
		if s.label == "VM suspended" {
			cls = "pause suspend"
		}
		v.span(s, cls, y+1, laneH-2, 1.5, "", "span-label pause-label", s.label, y+rowMarks+11)
	}
	if l.node != world {
		v.printf(`<line class="s3-base" x1="0" y1="%s" x2="100%%" y2="%s"/>`, f1(y+rowS3), f1(y+rowS3))
	}
	for _, t := range l.terms {
		end, ok := v.termEnd(t)
		if !ok {
			continue
		}
		x0, x1 := v.xc(t.Start), v.xc(end)
		v.printf(`<g class="term" data-token="%d">`, t.Token)
		v.title(termText(t))
		v.printf(`<rect x="%s" y="%s" width="%s" height="%d" rx="3" fill="%s"/>`,
			v.pc(x0), f1(y+rowTermY), v.pc(max(x1-x0, 2)), rowTermH, tokenColor(t.Token))
		v.printf(`</g>`)
	}
	for _, r := range l.reqs {
		if v.visible(r.send, r.end) {
			v.request(y, l, r)
		}
	}
	for _, w := range l.writes {
		if v.visible(w.Sent, w.Applied) {
			v.write(y, w)
		}
	}
	for _, mk := range l.marks {
		if v.visible(mk.at, mk.at) {
			v.mark(y, mk)
		}
	}
	// How far the node's own wall clock is from true time, at every few
	// ticks.
	if len(l.clock) > 0 {
		every := step
		for float64(every)*v.scale < 150 {
			every += step
		}
		for t := (v.from + every - 1) / every * every; t <= v.to; t += every {
			off, ok := offsetAt(l.clock, t)
			if !ok || v.x(t)+2+textWidth(clockOffset(off), smallText, false) > v.right() {
				continue
			}
			x := v.pc(v.x(t))
			v.printf(`<text class="clock-offset" x="%s" dx="2" y="%s">%s<title>at true time %s, n%d's own wall clock reads true time %s</title></text>`,
				x, f1(y+rowClockY), esc(clockOffset(off)), secs(t), l.node, esc(clockOffset(off)))
			v.printf(`<line class="clock-tick" x1="%s" y1="%s" x2="%s" y2="%s"/>`, x, f1(y+rowClockY-9), x, f1(y+rowClockY+2))
		}
	}
	v.printf(`</g>`)
}

// span draws s, if in view, as a rectangle of class cls from top, height
// high and at least minW wide, with the further attributes attrs, and its
// label of class labelCls at baseline labelY where it fits in the
// rectangle and its row of text.
func (v *view) span(s span, cls string, top float64, height int, minW float64, attrs, labelCls, label string, labelY float64) {
	if !v.visible(s.from, s.to) {
		return
	}
	x0, x1 := v.xc(s.from), v.xc(s.to)
	v.printf(`<g class="%s"><title>%s</title><rect x="%s" y="%s" width="%s" height="%d"%s/>`,
		cls, esc(s.title), v.pc(x0), f1(top), v.pc(max(x1-x0, minW)), height, attrs)
	lx := max(x0, 0)
	if w := textWidth(label, smallText, true) + 3; lx+w+3 < min(x1, v.right()) && v.claim(labelY, lx, lx+w) {
		v.printf(`<text class="%s" x="%s" dx="3" y="%s">%s</text>`, labelCls, v.pc(lx), f1(labelY), esc(label))
	}
	v.printf(`</g>`)
}

// termEnd is where term t's bar ends (an open term's at the end of the
// run), and whether the bar is in view.
func (v *view) termEnd(t sim.Term) (time.Duration, bool) {
	end := t.End
	if t.Open {
		end = v.m.end
	}
	return end, v.visible(t.Start, end)
}

// termLabels writes "token N" on each term's bar, over the overlap marks.
func (v *view) termLabels(y float64, l *laneData) {
	for _, t := range l.terms {
		end, ok := v.termEnd(t)
		if !ok {
			continue
		}
		lx0, lx1 := max(v.xc(t.Start), 0), min(v.xc(end), v.right())
		// "token 12 →", or just "12" on a short bar.
		long, short := fmt.Sprintf("token %d", t.Token), strconv.FormatUint(t.Token, 10)
		if t.Open {
			long += " →"
		}
		for _, label := range []string{long, short} {
			if w := textWidth(label, labelText, true) + 5; lx1-lx0 > w+3 && v.claim(y+rowTermY+15, lx0, lx0+w) {
				v.printf(`<text class="term-label" x="%s" dx="5" y="%s">%s</text>`, v.pc(lx0), f1(y+rowTermY+15), esc(label))
				break
			}
		}
	}
}

// requestClass names the colour class of a request by the answer its node
// saw.
func requestClass(r *request) (class, outcome string) {
	switch {
	case r.abandoned:
		return "s3-none", "no answer: the node gave up (" + r.abandonWhy + ")"
	case !r.returned:
		return "s3-none", "no answer by the end of the run"
	case r.sql:
		return statementClass(r.code)
	case r.status == 0:
		return "s3-none", "no connection"
	}
	answer := strconv.Itoa(r.status)
	if r.code != "" {
		answer += " " + r.code
	}
	switch {
	case r.torn:
		return "s3-err", answer + ", torn"
	case r.status >= 200 && r.status < 300:
		return "s3-ok", answer
	case r.status == 404:
		return "s3-absent", answer
	case r.status == 412:
		return "s3-412", answer
	}
	return "s3-err", answer
}

// requestsCap names a lane's row of requests: "SQL" if it holds
// statements to the row store and no S3 request, else "S3".
func requestsCap(l *laneData) string {
	if len(l.reqs) == 0 || slices.ContainsFunc(l.reqs, func(r *request) bool { return !r.sql }) {
		return "S3"
	}
	return "SQL"
}

// statementClass is requestClass for an answered statement to the row
// store, by its command tag or SQLSTATE: a row written or returned as a
// 2xx, none as a 412 (the condition did not hold), a refusal as a 5xx, a
// connection that failed as no answer.
func statementClass(code string) (class, outcome string) {
	switch {
	case strings.HasPrefix(code, "08"):
		return "s3-none", "SQLSTATE " + code + ": the connection failed"
	case !strings.Contains(code, " "):
		return "s3-err", "SQLSTATE " + code
	case strings.HasSuffix(code, " 0"):
		return "s3-412", code + ": no row"
	}
	return "s3-ok", code
}

func (v *view) request(y float64, l *laneData, r *request) {
	class, outcome := requestClass(r)
	var t strings.Builder
	who := "someone other than the nodes"
	if l.node != world {
		who = fmt.Sprintf("n%d", l.node)
	}
	if r.call != 0 {
		fmt.Fprintf(&t, "#%d ", r.call)
	}
	fmt.Fprintf(&t, "%s %s", r.op, r.key)
	if r.cond != "" {
		t.WriteString(" " + r.cond)
	}
	fmt.Fprintf(&t, " by %s\nsent at %s", who, secs(r.send))
	if r.hasLocal {
		fmt.Fprintf(&t, " (%s's clock reads true time %s)", who, clockOffset(r.sendLocal-r.send))
	}
	if r.detail != "" {
		t.WriteString("\n" + r.detail)
	}
	if r.applied {
		server := "S3"
		if r.sql {
			server = "the SQL server"
		}
		fmt.Fprintf(&t, "\napplied by %s at %s", server, secs(r.apply))
		switch {
		case r.applyStatus != 0:
			fmt.Fprintf(&t, " → %d %s", r.applyStatus, r.applyCode)
		case r.sql && r.applyCode != "":
			fmt.Fprintf(&t, " → %s", r.applyCode)
		}
		if r.applyDetail != "" {
			t.WriteString(" (" + r.applyDetail + ")")
		}
	} else if v.m.hasTrace && r.call != 0 {
		t.WriteString("\nnot applied by the end of the run")
	}
	if r.returned && r.call != 0 {
		fmt.Fprintf(&t, "\nanswered at %s: %s", secs(r.end), outcome)
	} else if r.call != 0 || !v.m.hasTrace {
		t.WriteString("\n" + outcome)
		if r.abandoned {
			fmt.Fprintf(&t, " at %s", secs(r.end))
		}
	}
	at := r.send
	if r.applied {
		at = r.apply
	}
	x, x0, x1 := v.x(at), v.xc(r.send), v.xc(r.end)
	half := 5.0
	if r.write() {
		half = 9
	}
	v.printf(`<g class="s3 %s"><title>%s</title>`, class, esc(t.String()))
	if x1-x0 >= 2 {
		v.printf(`<line class="s3-span" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(x0), f1(y+rowS3), v.pc(x1), f1(y+rowS3))
	}
	v.printf(`<line class="s3-tick" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(x), f1(y+rowS3-half), v.pc(x), f1(y+rowS3+half))
	// A wider invisible target, for the tooltip.
	hx0, hx1 := min(x0, x-2), max(x1, x+2)
	v.printf(`<rect class="hit" x="%s" y="%s" width="%s" height="18"/></g>`, v.pc(hx0), f1(y+rowS3-9), v.pc(hx1-hx0))
}

func (v *view) write(y float64, w sim.FencedWrite) {
	x := v.x(w.Applied)
	cy := y + rowFence
	verdict := "accepted"
	class := "fence-accepted"
	if !w.Accepted {
		verdict = "REFUSED: the resource had already seen a higher token"
		class = "fence-refused"
	}
	v.printf(`<g class="%s" data-token="%d"><title>fenced write by n%d with token %d: sent at %s, judged at %s (%s in flight): %s</title>`,
		class, w.Token, w.Node, w.Token, secs(w.Sent), secs(w.Applied), secs(w.Applied-w.Sent), verdict)
	if xs := v.x(w.Sent); x-xs >= 4 {
		v.printf(`<line class="fence-flight" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(v.xc(w.Sent)), f1(cy), v.pc(x), f1(cy))
		v.printf(`<line class="fence-flight" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(xs), f1(cy-3), v.pc(xs), f1(cy+3))
	}
	if w.Accepted {
		v.printf(`<circle cx="%s" cy="%s" r="2.8"/>`, v.pc(x), f1(cy))
	} else {
		v.at(x, cy, `<path d="M-4 -4l8 8m0 -8l-8 8"/>`)
	}
	v.printf(`</g>`)
}

// markShapes are the class and the shape, drawn about the mark's instant
// and the top of its row, of each kind of mark.
var markShapes = [...]struct{ class, shape string }{
	markNote:  {"note", `<path d="M-5.5 0h11l-5.5 10z"/>`},
	markCrash: {"crash", `<path d="M-5 0l10 10m0 -10l-10 10"/>`},
	markStop:  {"stop", `<rect x="-4.5" y="0.5" width="9" height="9"/>`},
	markStart: {"start", `<path d="M0 0l9 5l-9 5z"/>`},
	markPanic: {"panic", `<path d="M0 -1l6 6l-6 6l-6 -6z"/>`},
}

func (v *view) mark(y float64, mk mark) {
	x, s := v.x(mk.at), markShapes[mk.kind]
	v.printf(`<g class="%s"><title>%s</title>`, s.class, esc(mk.title))
	if mk.kind == markCrash {
		v.printf(`<line class="crash-line" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(x), f1(y+rowTermY-2), v.pc(x), f1(y+rowFence+6))
	}
	v.at(x, y+rowMarks, s.shape)
	v.printf(`</g>`)
}

// overlaps marks every interval in which two nodes both led: a hatched band
// across the lanes of both, and an outline on each of the two bars.
func (v *view) overlaps(laneY func(int) float64) {
	for _, o := range v.m.overlaps {
		if !v.visible(o.From, o.To) {
			continue
		}
		a, b := laneIndex(v.m, o.Nodes[0]), laneIndex(v.m, o.Nodes[1])
		if a < 0 || b < 0 {
			continue
		}
		lo, hi := min(a, b), max(a, b)
		x0, x1 := v.xc(o.From), v.xc(o.To)
		w := max(x1-x0, 3)
		cls, pat, label := "overlap", "hatch", "2 leaders"
		what := "two leaders at once"
		if v.m.outside {
			cls, pat = "overlap allowed", "hatch-allowed"
			what = "two leaders at once, which the run's departure from the assumptions allows"
		}
		y0, y1 := laneY(lo)+rowTermY-3, laneY(hi)+rowTermY+rowTermH+3
		v.printf(`<g class="%s"><title>%s: %s</title>`, cls, what, esc(o.String()))
		v.printf(`<rect class="overlap-across" x="%s" y="%s" width="%s" height="%s"/>`, v.pc(x0), f1(y0), v.pc(w), f1(y1-y0))
		for _, x := range []float64{x0, x0 + w} {
			v.printf(`<line class="overlap-side" x1="%s" y1="%s" x2="%s" y2="%s"/>`, v.pc(x), f1(y0), v.pc(x), f1(y1))
		}
		for _, n := range []int{lo, hi} {
			v.printf(`<rect class="overlap-band" x="%s" y="%s" width="%s" height="%d" fill="url(#%s%s)"/>`,
				v.pc(x0), f1(laneY(n)+rowTermY-2), v.pc(w), rowTermH+4, v.id, pat)
		}
		// The label goes above the upper bar, where the lane's row of
		// labels has room.
		lx, ly := max(x0, 0), laneY(lo)+rowMarks+11
		if lw := textWidth(label, labelText, true) + 6; lx+lw < v.right() && v.claim(ly, lx, lx+lw) {
			v.printf(`<text class="overlap-label" x="%s" dx="6" y="%s">%s</text>`, v.pc(lx), f1(ly), esc(label))
		}
		v.printf(`</g>`)
	}
}

func laneIndex(m *model, node int) int {
	for i, l := range m.lanes {
		if l.node == node {
			return i
		}
	}
	return -1
}

// placedLine is a vertical line and where its label goes: in row row
// above the axis (-1: none), text, its left edge off pixels from anchor,
// which is an x of the plot (the label's left edge at the plot's left
// edge, its right edge at the right one, or its centre at the line).
type placedLine struct {
	vline
	row                int
	text               string
	anchor, off, width float64
}

// placeLines lays out the vertical lines' labels (violations, the failure,
// the heal, what the assumptions allow) in rows above the axis: each in
// the first row with room, a label with no room by its first word ("V2")
// alone, and none where that has no room in any row either. Violations and
// the failure are placed first, then the heal, then what the assumptions
// allow. It returns the lines in view and how many rows their labels take.
func (v *view) placeLines() ([]placedLine, int) {
	var all []vline
	for _, l := range v.m.lines {
		if l.class != "expected" {
			all = append(all, l)
		}
	}
	if v.m.hasHeal {
		all = append(all, vline{id: "heal", at: v.m.heal, label: "faults heal", class: "heal",
			title: fmt.Sprintf("at %s every fault is over: the safety phase ends, the liveness phase begins", secs(v.m.heal))})
	}
	for _, l := range v.m.lines {
		if l.class == "expected" {
			all = append(all, l)
		}
	}
	var out []placedLine
	rows := 0
	for _, l := range all {
		if !v.visible(l.at, l.at) {
			continue
		}
		p := placedLine{vline: l, row: -1}
	label:
		for _, text := range []string{l.label, strings.Fields(l.label)[0]} {
			w, x := textWidth(text, labelText, true)+10, v.x(l.at)
			p.text, p.width, p.anchor, p.off = text, w, x, -w/2
			switch {
			case x-w/2 < 0:
				p.anchor, p.off = 0, 0
			case x+w/2 > v.right():
				p.anchor, p.off = v.right(), -w
			}
			for r := range maxLabelRows {
				if v.claim(labelRowY(r), p.anchor+p.off, p.anchor+p.off+w) {
					p.row, rows = r, max(rows, r+1)
					break label
				}
			}
		}
		out = append(out, p)
	}
	return out, rows
}

// labelRowY is the top of row r of the lines' labels.
func labelRowY(r int) float64 { return float64(4 + r*labelRowH) }

// lines draws the vertical lines across every lane, the first placed
// last (on top), and then their labels above the axis over all of them.
func (v *view) lines(lines []placedLine, axisY int, bottom float64) {
	for _, l := range slices.Backward(lines) {
		x := v.pc(v.x(l.at))
		v.printf(`<g class="vline %s" id="%s%s"><title>%s</title>`, l.class, v.id, l.id, esc(l.title))
		v.printf(`<line class="vl" x1="%s" y1="%d" x2="%s" y2="%s"/>`, x, axisY-2, x, f1(bottom))
		if l.row >= 0 {
			v.printf(`<line class="vl-lead" x1="%s" y1="%s" x2="%s" y2="%d"/>`, x, f1(labelRowY(l.row)+labelRowH-4), x, axisY-2)
		}
		v.printf(`</g>`)
	}
	for _, l := range slices.Backward(lines) {
		if l.row < 0 {
			continue
		}
		v.printf(`<g class="vl-label %s"><title>%s</title>`, l.class, esc(l.title))
		// The label leads to the line's zoomed strip, if it has one.
		href, zoomed := v.m.zooms[l.id]
		if zoomed {
			v.printf(`<a href="#%s">`, esc(href))
		}
		v.at(l.anchor, labelRowY(l.row), fmt.Sprintf(`<rect class="vl-box" x="%s" width="%s" height="%d" rx="3"/><text class="vl-text" x="%s" y="%d">%s</text>`,
			f1(l.off), f1(l.width), labelRowH-4, f1(l.off+5), labelRowH-6, esc(l.text)))
		if zoomed {
			v.printf(`</a>`)
		}
		v.printf(`</g>`)
	}
}

// tickSteps returns the labelled tick step and the minor one for a scale
// in pixels per nanosecond: labels at least 70 pixels apart.
func tickSteps(scale float64) (step, minor time.Duration) {
	ms := time.Millisecond
	s := time.Second
	for _, c := range []struct{ step, minor time.Duration }{
		{10 * ms, 2 * ms}, {20 * ms, 5 * ms}, {50 * ms, 10 * ms}, {100 * ms, 20 * ms}, {200 * ms, 50 * ms},
		{500 * ms, 100 * ms}, {s, 200 * ms}, {2 * s, 500 * ms}, {5 * s, s}, {10 * s, 2 * s}, {15 * s, 5 * s},
		{30 * s, 10 * s}, {60 * s, 10 * s}, {120 * s, 30 * s}, {300 * s, 60 * s}, {600 * s, 120 * s},
	} {
		if float64(c.step)*scale >= 70 {
			return c.step, c.minor
		}
	}
	return 1800 * s, 600 * s
}

func tickLabel(t, step time.Duration) string {
	switch {
	case step >= time.Second:
		return strconv.FormatInt(int64(t/time.Second), 10) + " s"
	case step >= 100*time.Millisecond:
		return strconv.FormatFloat(t.Seconds(), 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(t.Seconds(), 'f', 2, 64) + " s"
}
