package htmlreport

import (
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// The timeline's geometry, in the units of the SVG's viewBox. The page
// scales each SVG to the width of its box (CSS width 100%), so that a
// drawing gutter+plotWidth+rightPad = 1360 units wide is a little smaller
// than life in a window 1280 pixels wide and larger in wider ones.
const (
	gutter    = 236  // the lane labels, left of the plot
	plotWidth = 1104 // the plot of a zoom, and of a whole run that fits
	// pxPerSecond is the least scale of the whole run's timeline: a run
	// longer than plotWidth/pxPerSecond seconds is drawn wider, at least
	// life size, and scrolls inside its box.
	pxPerSecond = 12
	maxWidth    = 24000
	rightPad    = 20
	labelRows   = 3  // rows of line labels above the axis
	labelRowH   = 16 // their height
	axisY       = labelRows*labelRowH + 14
	lanesTop    = axisY + 8
	laneH       = 90
	bottomPad   = 30

	// Rows inside a lane, from its top.
	rowMarks  = 2  // notes, crashes, stops, starts: y+2 .. y+12
	rowTermY  = 16 // leadership bars: y+16 .. y+38
	rowTermH  = 22
	rowS3     = 53 // S3 requests, centred
	rowFence  = 71 // fenced writes, centred
	rowClockY = 85 // the node's own clock, text baseline
)

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
type view struct {
	m        *model
	id       string // prefix of every id in the SVG
	from, to time.Duration
	scale    float64 // pixels per nanosecond
	w        int     // the plot's width
	b        strings.Builder
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func (v *view) x(t time.Duration) float64 {
	return float64(gutter) + float64(t-v.from)*v.scale
}

// xc is x clamped to a little outside the plot, so that long spans draw
// as short rectangles.
func (v *view) xc(t time.Duration) float64 {
	return min(max(v.x(t), gutter-5), float64(gutter+v.w+5))
}

// right is the x of the plot's right edge.
func (v *view) right() float64 { return float64(gutter + v.w) }

// fullWidth is the plot width of a whole run of length end.
func fullWidth(end time.Duration) int {
	return min(max(plotWidth, int(end.Seconds()*pxPerSecond)), maxWidth)
}

func (v *view) visible(from, to time.Duration) bool { return to >= v.from && from <= v.to }

func (v *view) printf(format string, args ...any) { fmt.Fprintf(&v.b, format, args...) }

func (v *view) title(s string) { v.b.WriteString("<title>" + esc(s) + "</title>") }

func laneY(i int) float64 { return float64(lanesTop + i*laneH) }

// renderSVG draws the lanes of m between from and to, plotW pixels wide.
// id prefixes the SVG's ids ("tl-", "zoom-"), and names the SVG.
func renderSVG(m *model, id string, from, to time.Duration, plotW int, caption string) template.HTML {
	if to <= from {
		to = from + time.Second
	}
	v := &view{m: m, id: id, from: from, to: to, w: plotW, scale: float64(plotW) / float64(to-from)}
	lanes := m.lanes
	bottom := laneY(len(lanes))
	width := gutter + v.w + rightPad
	height := int(bottom) + bottomPad
	// Scaled to the width of its box; a plot wider than a zoom's is a long
	// run, kept at least life size (min-width) so that it scrolls in its box
	// instead of shrinking out of sight.
	style := ""
	if plotW > plotWidth {
		style = fmt.Sprintf(` style="min-width: %dpx"`, width)
	}
	v.printf(`<svg xmlns="http://www.w3.org/2000/svg" id="%ssvg" class="timeline" width="100%%" viewBox="0 0 %d %d"%s role="img" aria-label="%s">`,
		id, width, height, style, esc(caption))
	v.printf(`<defs>`)
	v.printf(`<pattern id="%shatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="rgba(224,49,49,0.16)"/><line x1="0" y1="0" x2="0" y2="8" stroke="#e03131" stroke-width="3"/></pattern>`, id)
	v.printf(`<pattern id="%shatch-allowed" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="rgba(240,140,0,0.14)"/><line x1="0" y1="0" x2="0" y2="8" stroke="#f08c00" stroke-width="2.5"/></pattern>`, id)
	v.printf(`<pattern id="%sdown" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" fill="#f1f1f1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="1.5"/></pattern>`, id)
	v.printf(`<clipPath id="%sclip"><rect x="%d" y="0" width="%d" height="%d"/></clipPath>`, id, gutter, v.w, height)
	v.printf(`</defs>`)

	// Lane backgrounds and labels.
	for i, l := range lanes {
		y := laneY(i)
		cls := "lane"
		if l.node == world {
			cls = "lane world"
		}
		v.printf(`<g class="%s" data-node="%d">`, cls, l.node)
		bg := "#fbfbfb"
		if i%2 == 1 {
			bg = "#f2f4f7"
		}
		v.printf(`<rect x="0" y="%s" width="%d" height="%d" fill="%s">`, f1(y), width, laneH, bg)
		v.title(l.title)
		v.printf(`</rect>`)
		v.printf(`<text class="lane-name" x="10" y="%s">%s</text>`, f1(y+24), esc(l.name))
		for j, s := range l.sub {
			if j >= 3 {
				break
			}
			short := s
			if len([]rune(short)) > 32 {
				short = string([]rune(short)[:31]) + "…"
			}
			v.printf(`<text class="lane-sub" x="10" y="%s">%s</text>`, f1(y+40+float64(j)*13), esc(short))
		}
		if l.node != world {
			v.printf(`<text class="row-cap" x="%d" y="%s">leads</text>`, gutter-6, f1(y+rowTermY+15))
			v.printf(`<text class="row-cap" x="%d" y="%s">%s</text>`, gutter-6, f1(y+rowS3+3), requestsCap(l))
			v.printf(`<text class="row-cap" x="%d" y="%s">fence</text>`, gutter-6, f1(y+rowFence+3))
			v.printf(`<text class="row-cap" x="%d" y="%s">own clock</text>`, gutter-6, f1(y+rowClockY))
		} else {
			v.printf(`<text class="row-cap" x="%d" y="%s">S3 writes</text>`, gutter-6, f1(y+rowS3+3))
		}
		v.printf(`<line class="lane-sep" x1="0" y1="%s" x2="%d" y2="%s"/>`, f1(y+laneH), width, f1(y+laneH))
		v.printf(`</g>`)
	}

	// The axis and the grid.
	step, minor := tickSteps(v.scale)
	v.printf(`<g class="axis">`)
	v.printf(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/>`, gutter, axisY, gutter+v.w, axisY)
	v.printf(`<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#444"/>`, gutter, f1(bottom), gutter+v.w, f1(bottom))
	v.printf(`<text class="axis-cap" x="%d" y="%d">true time →</text>`, gutter-6, axisY-4)
	first := (v.from + minor - 1) / minor * minor
	for t := first; t <= v.to; t += minor {
		x := v.x(t)
		if t%step == 0 {
			v.printf(`<line class="grid" x1="%s" y1="%d" x2="%s" y2="%s"/>`, f1(x), axisY, f1(x), f1(bottom))
			v.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#444"/>`, f1(x), axisY-5, f1(x), axisY)
			label := tickLabel(t, step)
			v.printf(`<text class="tick" x="%s" y="%d">%s</text>`, f1(x), axisY-7, label)
			v.printf(`<text class="tick" x="%s" y="%s">%s</text>`, f1(x), f1(bottom+14), label)
		} else {
			v.printf(`<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#888"/>`, f1(x), axisY-3, f1(x), axisY)
		}
	}
	v.printf(`</g>`)

	v.printf(`<g clip-path="url(#%sclip)">`, id)
	for i, l := range lanes {
		v.lane(laneY(i), l, step)
	}
	v.overlaps()
	for i, l := range lanes {
		v.termLabels(laneY(i), l)
	}
	v.printf(`</g>`)
	v.lines(bottom)
	v.printf(`</svg>`)
	return template.HTML(v.b.String())
}

// lane draws one lane's contents, top at y.
func (v *view) lane(y float64, l *laneData, step time.Duration) {
	v.printf(`<g class="lane-content" data-node="%d">`, l.node)
	for _, s := range l.down {
		v.span(s, "down", y+1, laneH-2, 0, ` fill="url(#`+v.id+`down)"`, "span-label", "process down", 40, y+rowTermY+15)
	}
	for _, s := range l.partitions {
		v.span(s, "partition", y+rowS3-10, 20, 1, "", "span-label partition-label", s.label, 44, y+rowS3+4)
	}
	for _, s := range l.pauses {
		cls := "pause"
		if s.label == "VM suspended" {
			cls = "pause suspend"
		}
		v.span(s, cls, y+1, laneH-2, 1.5, "", "span-label pause-label", s.label, 60, y+12)
	}
	if l.node != world {
		v.printf(`<line class="s3-base" x1="%d" y1="%s" x2="%d" y2="%s"/>`, gutter, f1(y+rowS3), gutter+v.w, f1(y+rowS3))
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
			f1(x0), f1(y+rowTermY), f1(max(x1-x0, 2)), rowTermH, tokenColor(t.Token))
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
			if !ok {
				continue
			}
			v.printf(`<text class="clock-offset" x="%s" y="%s">%s<title>at true time %s, n%d's own wall clock reads true time %s</title></text>`,
				f1(v.x(t)+2), f1(y+rowClockY), esc(clockOffset(off)), secs(t), l.node, esc(clockOffset(off)))
			v.printf(`<line class="clock-tick" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(v.x(t)), f1(y+rowClockY-8), f1(v.x(t)), f1(y+rowClockY+2))
		}
	}
	v.printf(`</g>`)
}

// span draws s, if in view, as a rectangle of class cls from top, height
// high and at least minW wide, with the further attributes attrs, and its
// label of class labelCls at labelY when the rectangle is wider than
// labelW.
func (v *view) span(s span, cls string, top float64, height int, minW float64, attrs, labelCls, label string, labelW, labelY float64) {
	if !v.visible(s.from, s.to) {
		return
	}
	x0, x1 := v.xc(s.from), v.xc(s.to)
	v.printf(`<g class="%s"><title>%s</title><rect x="%s" y="%s" width="%s" height="%d"%s/>`,
		cls, esc(s.title), f1(x0), f1(top), f1(max(x1-x0, minW)), height, attrs)
	if x1-x0 > labelW {
		v.printf(`<text class="%s" x="%s" y="%s">%s</text>`, labelCls, f1(max(x0, gutter)+3), f1(labelY), esc(label))
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
		lx0, lx1 := max(v.xc(t.Start), gutter), min(v.xc(end), v.right())
		// "token 12 →", or just "12" on a short bar.
		long, short := fmt.Sprintf("token %d", t.Token), strconv.FormatUint(t.Token, 10)
		if t.Open {
			long += " →"
		}
		for _, label := range []string{long, short} {
			if lx1-lx0 > float64(len([]rune(label)))*7+8 {
				v.printf(`<text class="term-label" x="%s" y="%s">%s</text>`, f1(lx0+5), f1(y+rowTermY+15), esc(label))
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
		v.printf(`<line class="s3-span" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(x0), f1(y+rowS3), f1(x1), f1(y+rowS3))
	}
	v.printf(`<line class="s3-tick" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(x), f1(y+rowS3-half), f1(x), f1(y+rowS3+half))
	// A wider invisible target, for the tooltip.
	hx0, hx1 := min(x0, x-2), max(x1, x+2)
	v.printf(`<rect class="hit" x="%s" y="%s" width="%s" height="%s"/></g>`, f1(hx0), f1(y+rowS3-9), f1(hx1-hx0), f1(18))
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
		v.printf(`<line class="fence-flight" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(v.xc(w.Sent)), f1(cy), f1(x), f1(cy))
		v.printf(`<line class="fence-flight" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(xs), f1(cy-3), f1(xs), f1(cy+3))
	}
	if w.Accepted {
		v.printf(`<circle cx="%s" cy="%s" r="2.8"/>`, f1(x), f1(cy))
	} else {
		v.printf(`<path d="M%s %sl8 8m0 -8l-8 8"/>`, f1(x-4), f1(cy-4))
	}
	v.printf(`</g>`)
}

func (v *view) mark(y float64, mk mark) {
	x := v.x(mk.at)
	top := y + rowMarks
	switch mk.kind {
	case markNote:
		v.printf(`<g class="note"><title>%s</title><path d="M%s %sh11l-5.5 10z"/></g>`, esc(mk.title), f1(x-5.5), f1(top))
	case markCrash:
		v.printf(`<g class="crash"><title>%s</title><line class="crash-line" x1="%s" y1="%s" x2="%s" y2="%s"/><path d="M%s %sl10 10m0 -10l-10 10"/></g>`,
			esc(mk.title), f1(x), f1(y+rowTermY-2), f1(x), f1(y+rowFence+6), f1(x-5), f1(top))
	case markStop:
		v.printf(`<g class="stop"><title>%s</title><rect x="%s" y="%s" width="9" height="9"/></g>`, esc(mk.title), f1(x-4.5), f1(top+0.5))
	case markStart:
		v.printf(`<g class="start"><title>%s</title><path d="M%s %sl9 5l-9 5z"/></g>`, esc(mk.title), f1(x), f1(top))
	case markPanic:
		v.printf(`<g class="panic"><title>%s</title><path d="M%s %sl6 6l-6 6l-6 -6z"/></g>`, esc(mk.title), f1(x), f1(top-1))
	}
}

// overlaps marks every interval in which two nodes both led: a hatched band
// across the lanes of both, and an outline on each of the two bars.
func (v *view) overlaps() {
	labelEnd := make(map[int]float64) // lane: where its last overlap label ends
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
		v.printf(`<rect class="overlap-across" x="%s" y="%s" width="%s" height="%s"/>`, f1(x0), f1(y0), f1(w), f1(y1-y0))
		v.printf(`<line class="overlap-side" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(x0), f1(y0), f1(x0), f1(y1))
		v.printf(`<line class="overlap-side" x1="%s" y1="%s" x2="%s" y2="%s"/>`, f1(x0+w), f1(y0), f1(x0+w), f1(y1))
		for _, n := range []int{lo, hi} {
			v.printf(`<rect class="overlap-band" x="%s" y="%s" width="%s" height="%d" fill="url(#%s%s)"/>`,
				f1(x0), f1(laneY(n)+rowTermY-2), f1(w), rowTermH+4, v.id, pat)
		}
		lx := max(x0, gutter) + 6
		if end, ok := labelEnd[lo]; (!ok || lx > end+6) && lx+float64(len(label))*7 < v.right() {
			labelEnd[lo] = lx + float64(len(label))*7
			v.printf(`<text class="overlap-label" x="%s" y="%s">%s</text>`, f1(lx), f1(laneY(lo)+rowTermY-4), esc(label))
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

// lines draws the vertical lines across every lane (violations, the
// failure, the heal) with their labels above the axis.
func (v *view) lines(bottom float64) {
	// Labels are placed violations and the failure first, then the heal,
	// then what the assumptions allow: the rows fill up in that order. The
	// lines are drawn in the reverse order, violations on top.
	all := make([]vline, 0, len(v.m.lines)+1)
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
	type interval struct{ from, to float64 }
	var rows [labelRows][]interval
	place := func(x, w float64) (float64, int) {
		lx := min(max(x-w/2, gutter), v.right()-w)
	row:
		for r := range rows {
			for _, in := range rows[r] {
				if lx < in.to+4 && in.from < lx+w+4 {
					continue row
				}
			}
			rows[r] = append(rows[r], interval{lx, lx + w})
			return lx, r
		}
		return lx, -1
	}
	type placed struct {
		lx  float64
		row int
	}
	where := make([]placed, len(all))
	for i, l := range all {
		where[i].row = -1
		if v.visible(l.at, l.at) {
			where[i].lx, where[i].row = place(v.x(l.at), labelWidth(l.label))
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		l := all[i]
		if !v.visible(l.at, l.at) {
			continue
		}
		x := v.x(l.at)
		v.printf(`<g class="vline %s" id="%s%s"><title>%s</title>`, l.class, v.id, l.id, esc(l.title))
		v.printf(`<line class="vl" x1="%s" y1="%d" x2="%s" y2="%s"/>`, f1(x), axisY-2, f1(x), f1(bottom))
		if p := where[i]; p.row >= 0 {
			ly := float64(2 + p.row*labelRowH)
			v.printf(`<line class="vl-lead" x1="%s" y1="%s" x2="%s" y2="%d"/>`, f1(x), f1(ly+labelRowH-2), f1(x), axisY-2)
			// The label leads to the line's zoomed strip, if it has one.
			href, zoomed := v.m.zooms[l.id]
			if zoomed {
				v.printf(`<a href="#%s">`, esc(href))
			}
			v.printf(`<rect class="vl-box" x="%s" y="%s" width="%s" height="%d" rx="3"/>`, f1(p.lx), f1(ly), f1(labelWidth(l.label)), labelRowH-2)
			v.printf(`<text class="vl-text" x="%s" y="%s">%s</text>`, f1(p.lx+5), f1(ly+11), esc(l.label))
			if zoomed {
				v.printf(`</a>`)
			}
		}
		v.printf(`</g>`)
	}
}

func labelWidth(label string) float64 { return float64(len([]rune(label)))*6.6 + 10 }

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
