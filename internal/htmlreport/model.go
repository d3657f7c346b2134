package htmlreport

import (
	"fmt"
	"slices"
	"sort"
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

func buildModel(o *harness.Outcome) *model {
	res := o.Result
	h := res.History
	if h == nil {
		h = &sim.History{}
	}
	m := &model{end: h.End, overlaps: o.Overlaps, outside: len(o.Outside) > 0}
	plan := o.Plan
	if plan == nil {
		plan = &faults.Plan{}
	}
	m.heal, m.hasHeal = plan.HealAt.D(), plan.HealAt > 0 && plan.HealAt.D() < h.End
	var events []sim.Event
	if res.Trace != nil {
		events = res.Trace.Events
	}
	m.hasTrace = len(events) > 0
	nodes := h.Nodes
	for _, e := range events {
		nodes = max(nodes, e.Node+1)
		m.end = max(m.end, e.At)
	}
	lanes := make([]*laneData, nodes)
	for i := range lanes {
		lanes[i] = &laneData{node: i, name: fmt.Sprintf("n%d", i)}
	}
	wl := &laneData{node: world, name: "S3 / others"}
	lane := func(node int) *laneData {
		if node < 0 || node >= len(lanes) {
			return wl
		}
		return lanes[node]
	}

	for _, t := range h.Terms {
		l := lane(t.Node)
		l.terms = append(l.terms, t)
	}
	for _, w := range h.Writes {
		l := lane(w.Node)
		l.writes = append(l.writes, w)
	}

	// Incarnations, pauses, crashes, notes and requests, from the trace.
	identities := make([][]string, nodes)
	pauseFrom := make([]time.Duration, nodes)
	paused := make([]bool, nodes)
	suspendAt := make([]time.Duration, nodes) // when a "VM suspended" note came
	for i := range suspendAt {
		suspendAt[i] = -1
	}
	downFrom := make([]time.Duration, nodes)
	isDown := make([]bool, nodes)
	calls := make(map[uint64]*request)
	statements := make(map[uint64]*request) // numbered apart from S3's
	type aimedFault struct {
		node   int
		at     time.Duration
		cutOff bool // the request could not reach S3
		title  string
	}
	var aimed []aimedFault
	for _, e := range events {
		if e.Node >= 0 {
			l := lanes[e.Node]
			l.clock = append(l.clock, clockPoint{e.At, e.Local})
		}
		switch e.Kind {
		case sim.EvStart:
			n := e.Node
			identities[n] = append(identities[n], e.Detail)
			if isDown[n] {
				isDown[n] = false
				if e.At > downFrom[n] {
					lanes[n].down = append(lanes[n].down, span{downFrom[n], e.At, "down",
						fmt.Sprintf("n%d's process is dead from %s to %s", n, secs(downFrom[n]), secs(e.At))})
				}
			}
			if e.At > 0 {
				lanes[n].marks = append(lanes[n].marks, mark{e.At, markStart,
					fmt.Sprintf("%s: n%d starts a fresh process (incarnation %d) as identity %q; %s",
						secs(e.At), n, len(identities[n]), e.Detail, clockReads(e.Local, e.At))})
			}
		case sim.EvCrash:
			n := e.Node
			isDown[n], downFrom[n] = true, e.At
			lanes[n].marks = append(lanes[n].marks, mark{e.At, markCrash,
				fmt.Sprintf("%s: n%d's process crashes; %s", secs(e.At), n, clockReads(e.Local, e.At))})
		case sim.EvStop:
			if e.At >= h.End && h.End > 0 {
				continue // the end of the run stops everyone
			}
			why := "its candidate is asked to stop (context cancelled)"
			if e.Detail != "" {
				why = e.Detail
			}
			lanes[e.Node].marks = append(lanes[e.Node].marks, mark{e.At, markStop,
				fmt.Sprintf("%s: n%d stops: %s; %s", secs(e.At), e.Node, why, clockReads(e.Local, e.At))})
		case sim.EvPanic:
			lane(e.Node).marks = append(lane(e.Node).marks, mark{e.At, markPanic,
				fmt.Sprintf("%s: protocol code panics on n%d: %s", secs(e.At), e.Node, e.Detail)})
		case sim.EvPause:
			n := e.Node
			if !paused[n] {
				paused[n], pauseFrom[n] = true, e.At
			}
		case sim.EvResume:
			n := e.Node
			if paused[n] {
				paused[n] = false
				lanes[n].pauses = append(lanes[n].pauses, pauseSpan(n, pauseFrom[n], e.At, suspendAt[n] == pauseFrom[n]))
			}
		case sim.EvFault:
			l := lane(e.Node)
			where := "S3 and the outside world"
			if e.Node >= 0 {
				where = fmt.Sprintf("n%d (%s)", e.Node, clockReads(e.Local, e.At))
				if e.Fault == sim.FaultClockStall {
					suspendAt[e.Node] = e.At
				}
			}
			title := fmt.Sprintf("%s, fault on %s: %s", secs(e.At), where, e.Detail)
			if e.Token != 0 {
				title += fmt.Sprintf(" (token %d)", e.Token)
			}
			l.marks = append(l.marks, mark{e.At, markNote, title})
		case sim.EvS3Send:
			r := &request{call: e.Call, op: e.Op, key: e.Key, cond: e.Cond, detail: e.Detail,
				send: e.At, apply: -1, end: -1, sendLocal: e.Local, hasLocal: true}
			calls[e.Call] = r
			l := lane(e.Node)
			l.reqs = append(l.reqs, r)
			if e.Fault != sim.NoFault {
				aimed = append(aimed, aimedFault{e.Node, e.At, e.Fault == sim.FaultUnreachable || e.Fault == sim.FaultDropped,
					fmt.Sprintf("%s, fault on n%d's request #%d %s: %s", secs(e.At), e.Node, e.Call, e.Op, e.Detail)})
			}
		case sim.EvS3Apply:
			if e.Call == 0 {
				// A write from outside the nodes: a request of its own,
				// applied at once, on the world's lane.
				r := &request{op: e.Op, key: e.Key, send: e.At, apply: e.At, end: e.At, applied: true,
					applyStatus: e.Status, applyCode: e.Code, applyDetail: e.Detail, returned: true,
					status: e.Status, code: e.Code}
				if r.status == 0 {
					r.status = 200
				}
				lane(e.Node).reqs = append(lane(e.Node).reqs, r)
				continue
			}
			if r := calls[e.Call]; r != nil {
				r.applied, r.apply = true, e.At
				r.applyStatus, r.applyCode, r.applyDetail = e.Status, e.Code, e.Detail
			}
		case sim.EvS3Return:
			if r := calls[e.Call]; r != nil {
				r.returned, r.end, r.status, r.code = true, e.At, e.Status, e.Code
			}
		case sim.EvS3Abandon:
			if r := calls[e.Call]; r != nil && !r.returned {
				r.abandoned, r.end, r.abandonWhy = true, e.At, e.Detail
			}
		case sim.EvSQLSend:
			r := &request{call: e.Call, op: e.Op, key: e.Key, cond: e.Cond, detail: e.Detail,
				send: e.At, apply: -1, end: -1, sendLocal: e.Local, hasLocal: true, sql: true}
			statements[e.Call] = r
			lane(e.Node).reqs = append(lane(e.Node).reqs, r)
			if e.Fault != sim.NoFault {
				aimed = append(aimed, aimedFault{e.Node, e.At, e.Fault == sim.FaultUnreachable || e.Fault == sim.FaultDropped,
					fmt.Sprintf("%s, fault on n%d's statement #%d %s: %s", secs(e.At), e.Node, e.Call, e.Op, e.Detail)})
			}
		case sim.EvSQLApply:
			if r := statements[e.Call]; r != nil {
				r.applied, r.apply = true, e.At
				r.applyCode, r.applyDetail = e.Code, e.Detail
			}
		case sim.EvSQLReturn:
			if r := statements[e.Call]; r != nil {
				r.returned, r.end, r.code = true, e.At, e.Code
			}
		case sim.EvSQLAbandon:
			if r := statements[e.Call]; r != nil && !r.returned {
				r.abandoned, r.end, r.abandonWhy = true, e.At, e.Detail
			}
		}
	}
	for n := range lanes {
		if paused[n] && m.end > pauseFrom[n] {
			lanes[n].pauses = append(lanes[n].pauses, pauseSpan(n, pauseFrom[n], m.end, suspendAt[n] == pauseFrom[n]))
		}
		if isDown[n] && m.end > downFrom[n] {
			lanes[n].down = append(lanes[n].down, span{downFrom[n], m.end, "down",
				fmt.Sprintf("n%d's process is dead from %s to the end of the run", n, secs(downFrom[n]))})
		}
	}
	m.statements = len(statements) > 0
	for _, rs := range []map[uint64]*request{calls, statements} {
		for _, r := range rs {
			if r.end < 0 {
				r.end = m.end
			}
		}
	}
	if !m.hasTrace {
		// No trace kept: the requests as the history has them, without the
		// instant S3 applied each.
		for _, op := range h.S3 {
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
				r.end = m.end
			}
			lane(op.Node).reqs = append(lane(op.Node).reqs, r)
		}
		for _, t := range h.Terms {
			if t.Node >= 0 && t.Node < nodes && !slices.Contains(identities[t.Node], t.Identity) {
				identities[t.Node] = append(identities[t.Node], t.Identity)
			}
		}
	}

	// Windows the plan opens: partitions, slow S3. A partition aimed at a
	// role or a target is drawn where it really fell (the history's
	// faults), since the plan does not say which nodes it hit.
	for _, f := range h.Faults {
		if f.Kind == string(faults.Partition) && f.Node >= 0 && aimedPartitionAt(plan, f.From) {
			lane(f.Node).partitions = append(lane(f.Node).partitions, span{f.From, f.To, "no S3",
				fmt.Sprintf("n%d cannot reach S3 from %s to %s (%v; aimed at a role)", f.Node, secs(f.From), secs(f.To), f.To-f.From)})
		}
	}
	for _, e := range plan.Events {
		from, to := e.At.D(), e.At.D()+e.For.D()
		if e.Role != "" || e.Target != "" {
			continue
		}
		switch e.Kind {
		case faults.Partition:
			how := "requests fail at once"
			if e.Blackhole {
				how = "requests hang"
			}
			lane(e.Node).partitions = append(lane(e.Node).partitions, span{from, to, "no S3",
				fmt.Sprintf("n%d cannot reach S3 from %s to %s (%v; %s)", e.Node, secs(from), secs(to), e.For, how)})
		case faults.SlowS3:
			wl.partitions = append(wl.partitions, span{from, to, "S3 slow",
				fmt.Sprintf("S3 answers %v slower on each leg from %s to %s", e.By, secs(from), secs(to))})
		}
	}

	// Faults on single requests, but for requests lost to a partition
	// already drawn.
	for _, f := range aimed {
		l := lane(f.node)
		if f.cutOff && slices.ContainsFunc(l.partitions, func(s span) bool { return s.from <= f.at && f.at <= s.to }) {
			continue
		}
		l.marks = append(l.marks, mark{f.at, markNote, f.title})
	}

	// The gutter: identities, incarnations, the clock the plan gave.
	clocks := make(map[int]faults.ClockSetting)
	for _, c := range plan.Clocks {
		clocks[c.Node] = c
	}
	for n, l := range lanes {
		ids := identities[n]
		distinct := uniq(ids)
		switch {
		case len(ids) == 0:
			l.sub = append(l.sub, "never started")
		case len(distinct) == 1:
			line := "id " + distinct[0]
			if len(ids) > 1 {
				line += fmt.Sprintf(", %d incarnations", len(ids))
			}
			l.sub = append(l.sub, line)
		default:
			l.sub = append(l.sub, "ids "+strings.Join(distinct, " → "))
			if len(ids) != len(distinct) {
				l.sub = append(l.sub, fmt.Sprintf("%d incarnations", len(ids)))
			}
		}
		c, ok := clocks[n]
		if !ok {
			c = faults.ClockSetting{Node: n}
		}
		l.sub = append(l.sub, clockLine(c))
		l.title = fmt.Sprintf("node %d; identities by incarnation: %s; %s", n, strings.Join(quoteAll(ids), ", "), clockTitle(c))
		sort.SliceStable(l.marks, func(i, j int) bool { return l.marks[i].at < l.marks[j].at })
	}
	m.lanes = lanes
	if len(wl.marks)+len(wl.reqs)+len(wl.partitions)+len(wl.terms)+len(wl.writes) > 0 {
		wl.sub = []string{"faults of S3 itself,", "writes by outsiders"}
		wl.title = "S3 and everyone who is not a node: outside writes of the lock object, S3-wide faults"
		m.lanes = append(m.lanes, wl)
	}

	// Vertical lines.
	for i, v := range o.Violations {
		m.lines = append(m.lines, vline{id: violationID(i), at: v.At, label: fmt.Sprintf("V%d %s%s", i+1, checkerName(v), nodeList(v.Nodes)),
			title: fmt.Sprintf("violation V%d at %s: %s", i+1, secs(v.At), v.String()), class: "violation"})
	}
	for i, v := range excusedViolations(o) {
		m.lines = append(m.lines, vline{id: expectedID(i), at: v.At, label: fmt.Sprintf("E%d %s%s", i+1, checkerName(v), nodeList(v.Nodes)),
			title: fmt.Sprintf("excused outside the assumptions, E%d at %s: %s", i+1, secs(v.At), o.Excused[i].String()), class: "expected"})
	}
	if f := res.Failure; f != nil {
		m.lines = append(m.lines, vline{id: "failure", at: f.At, label: f.Kind.String(), title: f.Error(), class: "failure"})
	}
	return m
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

// aimedPartitionAt reports whether a partition that began at from can be
// one the plan aimed at a role or a target (which fires at or after its
// At), rather than one it timed.
func aimedPartitionAt(plan *faults.Plan, from time.Duration) bool {
	timed := false
	for _, e := range plan.Events {
		if e.Kind != faults.Partition {
			continue
		}
		if e.Role == "" && e.Target == "" && e.At.D() == from {
			timed = true
		}
	}
	if timed {
		return false
	}
	for _, e := range plan.Events {
		if e.Kind == faults.Partition && (e.Role != "" || e.Target != "") && e.At.D() <= from {
			return true
		}
	}
	return false
}
