package htmlreport

import (
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// event reads one trace event into the lanes: a node's clock reading, and
// what the event says of its process, of a fault or of a request.
func (b *builder) event(e sim.Event) {
	if e.Node >= 0 {
		l := b.lanes[e.Node]
		l.clock = append(l.clock, clockPoint{e.At, e.Local})
	}
	switch e.Kind {
	case sim.EvStart, sim.EvCrash, sim.EvStop, sim.EvPanic, sim.EvPause, sim.EvResume:
		b.process(e)
	case sim.EvFault:
		b.fault(e)
	case sim.EvS3Send, sim.EvS3Apply, sim.EvS3Return, sim.EvS3Abandon:
		b.s3Event(e)
	case sim.EvSQLSend, sim.EvSQLApply, sim.EvSQLReturn, sim.EvSQLAbandon:
		b.sqlEvent(e)
	}
}

// process reads an event of a node's process: a start, a crash, a stop, a
// panic, a pause or a resume.
func (b *builder) process(e sim.Event) {
	lanes := b.lanes
	n := e.Node
	switch e.Kind {
	case sim.EvStart:
		b.identities[n] = append(b.identities[n], e.Detail)
		if b.isDown[n] {
			b.isDown[n] = false
			if e.At > b.downFrom[n] {
				lanes[n].down = append(lanes[n].down, span{b.downFrom[n], e.At, "down",
					fmt.Sprintf("n%d's process is dead from %s to %s", n, secs(b.downFrom[n]), secs(e.At))})
			}
		}
		if e.At > 0 {
			lanes[n].marks = append(lanes[n].marks, mark{e.At, markStart,
				fmt.Sprintf("%s: n%d starts a fresh process (incarnation %d) as identity %q; %s",
					secs(e.At), n, len(b.identities[n]), e.Detail, clockReads(e.Local, e.At))})
		}
	case sim.EvCrash:
		b.isDown[n], b.downFrom[n] = true, e.At
		lanes[n].marks = append(lanes[n].marks, mark{e.At, markCrash,
			fmt.Sprintf("%s: n%d's process crashes; %s", secs(e.At), n, clockReads(e.Local, e.At))})
	case sim.EvStop:
		if e.At >= b.h.End && b.h.End > 0 {
			return // the end of the run stops everyone
		}
		why := "its candidate is asked to stop (context cancelled)"
		if e.Detail != "" {
			why = e.Detail
		}
		lanes[n].marks = append(lanes[n].marks, mark{e.At, markStop,
			fmt.Sprintf("%s: n%d stops: %s; %s", secs(e.At), n, why, clockReads(e.Local, e.At))})
	case sim.EvPanic:
		l := b.lane(n)
		l.marks = append(l.marks, mark{e.At, markPanic,
			fmt.Sprintf("%s: protocol code panics on n%d: %s", secs(e.At), n, e.Detail)})
	case sim.EvPause:
		if !b.paused[n] {
			b.paused[n], b.pauseFrom[n] = true, e.At
		}
	case sim.EvResume:
		if b.paused[n] {
			b.paused[n] = false
			lanes[n].pauses = append(lanes[n].pauses, pauseSpan(n, b.pauseFrom[n], e.At, b.suspendAt[n] == b.pauseFrom[n]))
		}
	}
}

// fault reads a fault note: a mark on the lane it concerns.
func (b *builder) fault(e sim.Event) {
	l := b.lane(e.Node)
	where := "S3 and the outside world"
	if e.Node >= 0 {
		where = fmt.Sprintf("n%d (%s)", e.Node, clockReads(e.Local, e.At))
		if e.Fault == sim.FaultClockStall {
			b.suspendAt[e.Node] = e.At
		}
	}
	title := fmt.Sprintf("%s, fault on %s: %s", secs(e.At), where, e.Detail)
	if e.Token != 0 {
		title += fmt.Sprintf(" (token %d)", e.Token)
	}
	l.marks = append(l.marks, mark{e.At, markNote, title})
}

// sent returns a request sent by the event e, on its node's lane.
func (b *builder) sent(e sim.Event, sql bool) *request {
	r := &request{call: e.Call, op: e.Op, key: e.Key, cond: e.Cond, detail: e.Detail,
		send: e.At, apply: -1, end: -1, sendLocal: e.Local, hasLocal: true, sql: sql}
	l := b.lane(e.Node)
	l.reqs = append(l.reqs, r)
	return r
}

// s3Event reads an event of an S3 request: its send, its application by
// S3 (or a write from outside the nodes), its answer or its abandon.
func (b *builder) s3Event(e sim.Event) {
	if e.Kind == sim.EvS3Send {
		b.calls[e.Call] = b.sent(e, false)
		if e.Fault != sim.NoFault {
			b.aimed = append(b.aimed, aimedFault{e.Node, e.At, e.Fault == sim.FaultUnreachable || e.Fault == sim.FaultDropped,
				fmt.Sprintf("%s, fault on n%d's request #%d %s: %s", secs(e.At), e.Node, e.Call, e.Op, e.Detail)})
		}
		return
	}
	if e.Kind == sim.EvS3Apply && e.Call == 0 {
		// A write from outside the nodes: a request of its own, applied
		// at once, on the world's lane.
		r := &request{op: e.Op, key: e.Key, send: e.At, apply: e.At, end: e.At, applied: true,
			applyStatus: e.Status, applyCode: e.Code, applyDetail: e.Detail, returned: true,
			status: e.Status, code: e.Code}
		if r.status == 0 {
			r.status = 200
		}
		l := b.lane(e.Node)
		l.reqs = append(l.reqs, r)
		return
	}
	r := b.calls[e.Call]
	if r == nil {
		return
	}
	switch e.Kind {
	case sim.EvS3Apply:
		r.applied, r.apply = true, e.At
		r.applyStatus, r.applyCode, r.applyDetail = e.Status, e.Code, e.Detail
	case sim.EvS3Return:
		r.returned, r.end, r.status, r.code = true, e.At, e.Status, e.Code
	case sim.EvS3Abandon:
		r.abandon(e)
	}
}

// sqlEvent reads an event of a statement to the row store: its send, its
// application, its answer or its abandon.
func (b *builder) sqlEvent(e sim.Event) {
	if e.Kind == sim.EvSQLSend {
		b.statements[e.Call] = b.sent(e, true)
		if e.Fault != sim.NoFault {
			b.aimed = append(b.aimed, aimedFault{e.Node, e.At, e.Fault == sim.FaultUnreachable || e.Fault == sim.FaultDropped,
				fmt.Sprintf("%s, fault on n%d's statement #%d %s: %s", secs(e.At), e.Node, e.Call, e.Op, e.Detail)})
		}
		return
	}
	r := b.statements[e.Call]
	if r == nil {
		return
	}
	switch e.Kind {
	case sim.EvSQLApply:
		r.applied, r.apply = true, e.At
		r.applyCode, r.applyDetail = e.Code, e.Detail
	case sim.EvSQLReturn:
		r.returned, r.end, r.code = true, e.At, e.Code
	case sim.EvSQLAbandon:
		r.abandon(e)
	}
}

// abandon records that the caller gave up on the request, unless its
// answer came first.
func (r *request) abandon(e sim.Event) {
	if !r.returned {
		r.abandoned, r.end, r.abandonWhy = true, e.At, e.Detail
	}
}
