package htmlreport

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// world is the lane index of S3 and everyone outside the nodes, in
// laneData.node.
const world = -1

// span is an interval of true time on one lane.
type span struct {
	from, to time.Duration
	label    string // short text drawn in the span, if it fits
	title    string // tooltip
}

// markKind is what a point marker on a lane shows.
type markKind int

const (
	markStart markKind = iota
	markCrash
	markStop
	markPanic
	markNote // a fault note (EvFault), or a fault aimed at one request
)

type mark struct {
	at    time.Duration
	kind  markKind
	title string
}

// request is one S3 request, from its send to its answer (or abandon).
type request struct {
	call                   uint64
	op, key, cond, detail  string
	send, apply, end       time.Duration
	sendLocal              time.Duration
	hasLocal               bool
	applied                bool // an apply event exists (it reached S3)
	applyStatus            int
	applyCode, applyDetail string
	returned, abandoned    bool
	status                 int
	code, abandonWhy       string
	sql                    bool // a statement to the row store: codes are command tags or SQLSTATEs
	torn                   bool // a read answered with one version's body and another's ETag
}

// write returns whether the request can change the object (a statement:
// the row), as far as the trace tells.
func (r *request) write() bool {
	if r.sql {
		return !strings.HasPrefix(r.applyCode, "SELECT")
	}
	return r.op == "PutObject" || r.op == "DeleteObject"
}

// clockPoint is one reading of a node's own wall clock.
type clockPoint struct{ at, local time.Duration }

// laneData is everything drawn on one lane: a node's, or the world's.
type laneData struct {
	node       int // world for S3 and outsiders
	name       string
	sub        []string // the lines under the name in the gutter
	title      string
	terms      []sim.Term
	pauses     []span // process paused, VM suspended
	down       []span // process dead (crash to restart)
	partitions []span // cut off from S3 (world lane: S3 slow)
	marks      []mark
	reqs       []*request
	writes     []sim.FencedWrite
	clock      []clockPoint
}

// vline is a vertical line across every lane: a violation, a violation
// the assumptions allow, or the failure of a crashed run.
type vline struct {
	id    string // anchor, without the SVG's prefix
	at    time.Duration
	label string // short label drawn at the top
	title string
	class string // "violation", "expected", "failure"
}

// model is what the timeline draws, extracted from an outcome.
type model struct {
	end      time.Duration
	heal     time.Duration
	hasHeal  bool
	lanes    []*laneData // nodes in order, then the world lane if it has anything
	overlaps []linearizability.Overlap
	outside  bool // the run left the protocol's assumptions: overlaps are allowed
	lines    []vline
	hasTrace bool
	// statements says the run sent statements to the row store.
	statements bool
	// zooms maps the id of a line to the anchor of its zoomed strip, for
	// links from its label.
	zooms map[string]string
}

// violationID is the anchor of the i-th violation (from 0).
func violationID(i int) string { return fmt.Sprintf("v%d", i+1) }

// expectedID is the anchor of the i-th violation the assumptions allow.
func expectedID(i int) string { return fmt.Sprintf("e%d", i+1) }

// buildModel extracts from an outcome what the timeline draws.
func buildModel(o *harness.Outcome) *model {
	b := newBuilder(o)
	for _, e := range b.events {
		b.event(e)
	}
	b.closeSpans()
	if !b.m.hasTrace {
		b.requestsFromHistory()
	}
	b.planWindows()
	b.aimedMarks()
	b.gutter()
	b.m.lanes = b.lanes
	if wl := b.wl; len(wl.marks)+len(wl.reqs)+len(wl.partitions)+len(wl.terms)+len(wl.writes) > 0 {
		wl.sub = []string{"faults of S3 itself,", "writes by outsiders"}
		wl.title = "S3 and everyone who is not a node: outside writes of the lock object, S3-wide faults"
		b.m.lanes = append(b.m.lanes, wl)
	}
	b.verticalLines(o)
	return b.m
}

// builder is the state of buildModel while it reads an outcome: the lanes,
// and what the trace has said so far of each node and request.
type builder struct {
	m      *model
	res    *sim.Result
	h      *sim.History
	plan   *faults.Plan
	events []sim.Event
	lanes  []*laneData
	wl     *laneData // the world's lane
	// Per node: the identities of its incarnations, and the pause and
	// death under way (from, and whether one is).
	identities [][]string
	pauseFrom  []time.Duration
	paused     []bool
	suspendAt  []time.Duration // when a VM suspend (sim.FaultClockStall) began
	downFrom   []time.Duration
	isDown     []bool
	// The requests by call number: S3's, and the row store's statements
	// numbered apart.
	calls, statements map[uint64]*request
	aimed             []aimedFault
}

// aimedFault is a fault aimed at one request or statement.
type aimedFault struct {
	node   int
	at     time.Duration
	cutOff bool // the request could not reach S3
	title  string
}

// newBuilder returns a builder with a lane for every node of o's history
// or trace, and the terms and fenced writes on their lanes.
func newBuilder(o *harness.Outcome) *builder {
	res := o.Result
	h := res.History
	if h == nil {
		h = &sim.History{}
	}
	b := &builder{res: res, h: h, plan: o.Plan}
	b.m = &model{end: h.End, overlaps: o.Overlaps, outside: len(o.Outside) > 0}
	if b.plan == nil {
		b.plan = &faults.Plan{}
	}
	b.m.heal, b.m.hasHeal = b.plan.HealAt.D(), b.plan.HealAt > 0 && b.plan.HealAt.D() < h.End
	if res.Trace != nil {
		b.events = res.Trace.Events
	}
	b.m.hasTrace = len(b.events) > 0
	nodes := h.Nodes
	for _, e := range b.events {
		nodes = max(nodes, e.Node+1)
		b.m.end = max(b.m.end, e.At)
	}
	b.lanes = make([]*laneData, nodes)
	for i := range b.lanes {
		b.lanes[i] = &laneData{node: i, name: fmt.Sprintf("n%d", i)}
	}
	b.wl = &laneData{node: world, name: "S3 / others"}
	for _, t := range h.Terms {
		l := b.lane(t.Node)
		l.terms = append(l.terms, t)
	}
	for _, w := range h.Writes {
		l := b.lane(w.Node)
		l.writes = append(l.writes, w)
	}
	b.identities = make([][]string, nodes)
	b.pauseFrom = make([]time.Duration, nodes)
	b.paused = make([]bool, nodes)
	b.suspendAt = make([]time.Duration, nodes)
	for i := range b.suspendAt {
		b.suspendAt[i] = -1
	}
	b.downFrom = make([]time.Duration, nodes)
	b.isDown = make([]bool, nodes)
	b.calls = make(map[uint64]*request)
	b.statements = make(map[uint64]*request)
	return b
}

// lane returns the lane of a node, or the world's for anyone else.
func (b *builder) lane(node int) *laneData {
	if node < 0 || node >= len(b.lanes) {
		return b.wl
	}
	return b.lanes[node]
}

// closeSpans ends at the end of the run the pauses and deaths still under
// way, and the requests still unanswered.
func (b *builder) closeSpans() {
	m := b.m
	for n := range b.lanes {
		if b.paused[n] && m.end > b.pauseFrom[n] {
			b.lanes[n].pauses = append(b.lanes[n].pauses, pauseSpan(n, b.pauseFrom[n], m.end, b.suspendAt[n] == b.pauseFrom[n]))
		}
		if b.isDown[n] && m.end > b.downFrom[n] {
			b.lanes[n].down = append(b.lanes[n].down, span{b.downFrom[n], m.end, "down",
				fmt.Sprintf("n%d's process is dead from %s to the end of the run", n, secs(b.downFrom[n]))})
		}
	}
	m.statements = len(b.statements) > 0
	for _, rs := range []map[uint64]*request{b.calls, b.statements} {
		for _, r := range rs {
			if r.end < 0 {
				r.end = m.end
			}
		}
	}
}

// requestsFromHistory draws, when no trace was kept, the requests as the
// history has them, without the instant S3 applied each, and takes the
// identities from the terms.
func (b *builder) requestsFromHistory() {
	for _, op := range b.h.S3 {
		r := &request{op: op.Op, key: op.Key, send: op.Call, apply: -1, end: op.Return, status: op.Status, code: op.Code}
		switch {
		case op.IfMatch != "":
			r.cond = "If-Match:" + op.IfMatch
		case op.IfNoneMatch != "":
			r.cond = "If-None-Match:" + op.IfNoneMatch
		}
		if op.Return >= 0 {
			r.returned = true
		} else {
			r.end = b.m.end
		}
		if op.TornBodyETag != "" {
			r.torn = true
			r.detail = "torn read (the store's fault): the body of the version " + op.TornBodyETag + " with the ETag " + op.ETag
		}
		b.lane(op.Node).reqs = append(b.lane(op.Node).reqs, r)
	}
	for _, t := range b.h.Terms {
		if t.Node >= 0 && t.Node < len(b.lanes) && !slices.Contains(b.identities[t.Node], t.Identity) {
			b.identities[t.Node] = append(b.identities[t.Node], t.Identity)
		}
	}
}

// verticalLines draws the violations, those the assumptions excuse, and
// the failure of a crashed run.
func (b *builder) verticalLines(o *harness.Outcome) {
	m := b.m
	for i, v := range o.Violations {
		m.lines = append(m.lines, vline{id: violationID(i), at: v.At, label: fmt.Sprintf("V%d %s%s", i+1, checkerName(v), nodeList(v.Nodes)),
			title: fmt.Sprintf("violation V%d at %s: %s", i+1, secs(v.At), v.String()), class: "violation"})
	}
	for i, v := range excusedViolations(o) {
		m.lines = append(m.lines, vline{id: expectedID(i), at: v.At, label: fmt.Sprintf("E%d %s%s", i+1, checkerName(v), nodeList(v.Nodes)),
			title: fmt.Sprintf("excused outside the assumptions, E%d at %s: %s", i+1, secs(v.At), o.Excused[i].String()), class: "expected"})
	}
	if f := b.res.Failure; f != nil {
		m.lines = append(m.lines, vline{id: "failure", at: f.At, label: f.Kind.String(), title: f.Error(), class: "failure"})
	}
}

func pauseSpan(n int, from, to time.Duration, suspend bool) span {
	if suspend {
		return span{from, to, "VM suspended", fmt.Sprintf("n%d's VM is suspended from %s to %s (%s): no process, monotonic clock stopped",
			n, secs(from), secs(to), secs(to-from))}
	}
	return span{from, to, "paused", fmt.Sprintf("n%d's process is paused from %s to %s (%s): nothing runs, its clocks go on",
		n, secs(from), secs(to), secs(to-from))}
}

// checkerName names a violation's checker and rule.
func checkerName(v linearizability.Violation) string {
	if v.Rule != "" {
		return v.Checker + "/" + v.Rule
	}
	return v.Checker
}

// nodeList names the nodes of a violation, for a label: " n0 n4".
func nodeList(nodes []int) string {
	var b strings.Builder
	for _, n := range nodes {
		fmt.Fprintf(&b, " n%d", n)
	}
	return b.String()
}

// secs prints a true time as seconds with millisecond precision.
func secs(d time.Duration) string {
	return fmt.Sprintf("%.3f s", d.Seconds())
}

func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
