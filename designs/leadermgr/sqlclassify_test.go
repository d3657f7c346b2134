package leadermgr

import (
	"strings"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// causeIdentity: the two leaders of an overlap share an identity, and the
// document's condition leader_id = $2 lets each renew the other's row.
const causeIdentity = "two processes under one identity, both renewing by it"

// stmt is one statement of a run as its typed trace events show it: who
// sent it (node and incarnation), its send, the server's apply (nil if it
// never arrived) and the end of its wait (its return or abandon; nil if it
// never ended).
type stmt struct {
	node, inc     int
	identity      string
	send          sim.Event
	apply, answer *sim.Event
}

// statements returns the run's statements in the order they were sent.
func statements(o *harness.Outcome) []*stmt {
	inc := make([]int, o.Result.History.Nodes)
	ids := make([]string, len(inc))
	byCall := map[uint64]*stmt{}
	var out []*stmt
	for _, e := range o.Result.Trace.Events {
		switch e.Kind {
		case sim.EvStart:
			inc[e.Node]++
			ids[e.Node] = e.Detail
		case sim.EvSQLSend:
			s := &stmt{node: e.Node, inc: inc[e.Node], identity: ids[e.Node], send: e}
			byCall[e.Call] = s
			out = append(out, s)
		case sim.EvSQLApply:
			if s := byCall[e.Call]; s != nil {
				ev := e
				s.apply = &ev
			}
		case sim.EvSQLReturn, sim.EvSQLAbandon:
			if s := byCall[e.Call]; s != nil {
				ev := e
				s.answer = &ev
			}
		}
	}
	return out
}

// wrote reports whether the server applied s and wrote the row (the
// document's statement answered "INSERT 0 1").
func (s *stmt) wrote() bool { return s.apply != nil && s.apply.Code == "INSERT 0 1" }

// failed reports whether s was answered with an error: a SQLSTATE rather
// than a command tag.
func (s *stmt) failed() bool {
	return s.answer != nil && s.answer.Kind == sim.EvSQLReturn && !strings.HasPrefix(s.answer.Code, "INSERT ")
}

// overlapCauseSQL says why the older leader of an overlap of the document's
// manager on the row store still led when its successor began: the
// causes of overlapCause, read from the statements' typed events of the
// older leader's term, or causeIdentity if both leaders ran under one
// identity.
func overlapCauseSQL(o *harness.Outcome, sts []*stmt, ov linearizability.Overlap) (node int, cause string) {
	h := o.Result.History
	var ids []string
	for _, t := range h.Terms {
		if (t.Node == ov.Nodes[0] || t.Node == ov.Nodes[1]) && t.Start <= ov.From && t.End > ov.From {
			ids = append(ids, t.Identity)
		}
	}
	older := olderLeader(h, ov)
	if len(ids) == 2 && ids[0] == ids[1] {
		return older, causeIdentity
	}
	var term sim.Term
	for _, t := range h.Terms {
		if t.Node == older && t.Start <= ov.From && t.End > ov.From {
			term = t
		}
	}
	cause = causeTick
	for _, s := range sts {
		if s.node != older || s.inc != term.Incarnation || s.send.At < term.Start || s.send.At >= ov.To {
			continue
		}
		switch {
		case s.answer == nil:
			return older, causeHung
		case s.send.At <= ov.From && s.answer.At > ov.From:
			cause = causeSlow
		}
	}
	return older, cause
}

// inheritance is a term handed to an incarnation by identity alone: its
// write-entry applied while the row, written by another incarnation under
// the same identity, was still valid by the server's clock.
type inheritance struct {
	at       time.Duration
	heir     *stmt
	from     *stmt
	fromDead bool // the writer's process had crashed or been replaced by then
}

// inheritances returns the run's inheritances. term is the document's term
// (the statement's valid_until is now() plus its whole seconds).
func inheritances(o *harness.Outcome, sts []*stmt, term time.Duration) []inheritance {
	var out []inheritance
	var last *stmt
	applied := make([]*stmt, 0, len(sts))
	for _, s := range sts {
		if s.wrote() {
			applied = append(applied, s)
		}
	}
	sortByApply(applied)
	for _, s := range applied {
		if last != nil && last.identity == s.identity && (last.node != s.node || last.inc != s.inc) {
			validUntil := last.apply.Local.Truncate(time.Microsecond) + term
			if !(validUntil < s.apply.Local.Truncate(time.Microsecond)) {
				out = append(out, inheritance{at: s.apply.At, heir: s, from: last, fromDead: ended(o, last, s.apply.At)})
			}
		}
		last = s
	}
	return out
}

// ended reports whether s's incarnation had stopped running by at: its node
// crashed, or started another incarnation.
func ended(o *harness.Outcome, s *stmt, at time.Duration) bool {
	for _, e := range o.Result.Trace.Events {
		if e.At > at {
			break
		}
		if e.Node == s.node && e.At >= s.send.At && (e.Kind == sim.EvCrash || e.Kind == sim.EvStart) {
			return true
		}
	}
	return false
}

func sortByApply(sts []*stmt) {
	// Insertion sort: the statements are nearly in apply order already.
	for i := 1; i < len(sts); i++ {
		for j := i; j > 0 && sts[j].apply.At < sts[j-1].apply.At; j-- {
			sts[j], sts[j-1] = sts[j-1], sts[j]
		}
	}
}

// afterError is what followed an error answered to the document's
// statement: on a node that did not lead, the fixed sleep of Retry, the
// manager's next statement coming no sooner; on a leader, an attempt to
// lock at once. gap is the time to the incarnation's next statement (next
// is nil if it sent nothing more: its process ended first).
type afterError struct {
	err     *stmt
	leading bool
	next    *stmt
	gap     time.Duration
}

// afterErrors returns what followed each error of the run. Whether the
// manager led when the error came is read from its statements, as it
// decides it: one manager's statements run one at a time, the first
// answered "INSERT 0 1" begins a term, and the first answered otherwise
// ends it. (The application may lead longer: one that lingers.)
func afterErrors(sts []*stmt) []afterError {
	type incarnation struct{ node, inc int }
	leads := map[incarnation]bool{}
	var out []afterError
	for i, s := range sts {
		if s.answer == nil || s.answer.Kind != sim.EvSQLReturn {
			continue
		}
		k := incarnation{s.node, s.inc}
		leading := leads[k]
		leads[k] = s.answer.Code == "INSERT 0 1"
		if !s.failed() {
			continue
		}
		a := afterError{err: s, leading: leading}
		for _, n := range sts[i+1:] {
			if n.node == s.node && n.inc == s.inc {
				a.next, a.gap = n, n.send.At-s.answer.At
				break
			}
		}
		out = append(out, a)
	}
	return out
}

// pausedAt reports whether node stopped running at the instant at (a pause
// that began then, such as one aimed at the answer it just got).
func pausedAt(o *harness.Outcome, node int, at time.Duration) bool {
	for _, e := range o.Result.Trace.Events {
		if e.At > at {
			break
		}
		if e.At == at && e.Node == node && e.Kind == sim.EvPause {
			return true
		}
	}
	return false
}
