package elector

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// paceReleaseAttempts is how many release writes one release makes at
// most (protocol releaseAttempts).
const paceReleaseAttempts = 3

// releases judges RulePaceRelease for node, if its elector releases on
// cancel: for every term that a stop of the node's Run ended, the requests
// the node sent from the stop on (until its process crashed or restarted)
// are its release's, since a stopped Run sends nothing else. None of them
// is sent, or answered, after the term's local deadline (each call's
// timeout is what is left until it), bounded from above by the latest
// send of a write of the term plus the term length at the slowest rate of
// the node's clock and its stalls; and when a check read after a release
// write showed the node's own renewal of the term, unreleased, another
// release write, If-Match that record, follows at once, unless that was
// the last attempt or the local deadline (bounded from below as for
// RulePaceStepDown) passed. Pauses of the node over the instants judged
// excuse them.
func (s Settings) releases(h *sim.History, node int, clock sim.ClockModel, ops []*sim.S3Op) []linearizability.Violation {
	var out []linearizability.Violation
	term := s.termLength()
	for ti := range h.Terms {
		t := &h.Terms[ti]
		if t.Node != node {
			continue
		}
		stop, ok := stoppedIn(h, node, t)
		if !ok {
			continue
		}
		r0 := sort.Search(len(ops), func(i int) bool { return ops[i].Call >= stop })
		if r0 == len(ops) {
			continue
		}
		r1, procEnd := r0, processEnd(h, node, stop)
		for r1 < len(ops) && ops[r1].Call < procEnd {
			r1++
		}
		if r1 == r0 {
			continue
		}
		runStart, sent, acted, ok := locate(h, ops, t, r0)
		if !ok {
			continue
		}
		latest := latestWrite(h, ops, runStart, r0, t)
		upper := max(sent, latest) + trueTime(clock, term) + stalledAfter(h, clock, node, max(sent, latest)) + paceSlack
		if v, ok := lateRelease(h, clock, node, t, ops[r0:r1], stop, upper); ok {
			out = append(out, v)
		}
		lower := acted + leastTrue(clock, term)
		if v, ok := releaseAgain(h, clock, node, t, ops, r0, r1, runStart, min(lower, procEnd)); ok {
			out = append(out, v)
		}
	}
	return out
}

// lateRelease finds the first of a release's requests sent or answered
// after upper, the latest true instant of the term's local deadline.
func lateRelease(h *sim.History, clock sim.ClockModel, node int, t *sim.Term, rel []*sim.S3Op, stop, upper time.Duration) (linearizability.Violation, bool) {
	for _, op := range rel {
		at, what := op.Call, "sent"
		if op.Return > at {
			at, what = op.Return, "answered"
		}
		if at <= upper+paceSlack || held(h, clock, node, stop, at) {
			continue
		}
		return linearizability.Violation{Checker: PaceCheck, Rule: RulePaceRelease, At: at, Nodes: []int{node}, Token: t.Token,
			Message: fmt.Sprintf("n%d, stopped at %v while leading with token %d, released it with a %s %s at %v, after its term's local deadline (by %v at the latest): the elector's release calls time out at the deadline",
				node, stop, t.Token, op.Op, what, at, upper)}, true
	}
	return linearizability.Violation{}, false
}

// releaseAgain judges the release's check reads, ops[r0:r1] being the
// release's requests: after one that showed the node's own renewal of
// term t, unreleased, the next release write follows at once, unless the
// read was of the last attempt or came after lower, the earliest true
// instant of the term's local deadline (or of the process's end).
func releaseAgain(h *sim.History, clock sim.ClockModel, node int, t *sim.Term, ops []*sim.S3Op, r0, r1 int, runStart, lower time.Duration) (linearizability.Violation, bool) {
	attempt := 0
	for i := r0; i < r1; i++ {
		end := i
		for end+1 < r1 && chainStart(ops, end+1) == i {
			end++
		}
		first := i
		i = end
		if ops[first].Op == "PutObject" {
			attempt++
			continue
		}
		read := ops[end]
		if attempt == 0 || attempt >= paceReleaseAttempts || ops[first].Op != "GetObject" || ops[first-1].Op != "PutObject" ||
			read.Return < 0 || read.Status != 200 || read.ETag == "" {
			continue
		}
		at := read.Return
		if at+paceSlack >= lower || at+paceSlack >= h.End || held(h, clock, node, ops[first].Call, at+paceSlack) {
			continue
		}
		w, token, released, ok := ownWrite(ops, runStart, first, read.ETag)
		if !ok || token != t.Token || released || token == math.MaxUint64 {
			continue // not its own renewal; or a record no token follows, which the elector refuses to read
		}
		if end+1 < len(ops) && ops[end+1].Op == "PutObject" && ops[end+1].Call <= at+paceSlack && unquote(ops[end+1].IfMatch) == unquote(read.ETag) {
			continue
		}
		next := "sent nothing more"
		if end+1 < len(ops) {
			next = fmt.Sprintf("sent %s (If-Match %s) at %v", ops[end+1].Op, ops[end+1].IfMatch, ops[end+1].Call)
		}
		return linearizability.Violation{Checker: PaceCheck, Rule: RulePaceRelease, At: at, Nodes: []int{node}, Token: t.Token,
			Message: fmt.Sprintf("n%d's check read after its release write %d of %d (term with token %d) showed at %v its own renewal sent at %v, unreleased, before the term's local deadline (not before %v); the elector then releases that record at once, but n%d %s",
				node, attempt, paceReleaseAttempts, t.Token, at, ops[w].Call, lower, node, next)}, true
	}
	return linearizability.Violation{}, false
}

// stoppedIn is when a stop of node's Run ended term t: a stop within the
// term (or at its end).
func stoppedIn(h *sim.History, node int, t *sim.Term) (time.Duration, bool) {
	for _, f := range h.Faults {
		if f.Node == node && f.Kind == "stop" && f.From >= t.Start && (t.Open || f.From <= t.End+paceSlack) {
			return f.From, true
		}
	}
	return 0, false
}

// processEnd is when the node's process that was running at at ended: its
// first crash or restart after at, or the end of time.
func processEnd(h *sim.History, node int, at time.Duration) time.Duration {
	end := time.Duration(1<<63 - 1)
	for _, f := range h.Faults {
		if f.Node == node && f.From >= at && (f.Kind == "restart" || f.Kind == "crash") {
			end = min(end, f.From)
		}
	}
	return end
}

// latestWrite is the send of the latest write of term t that S3 applied,
// among the node's writes of its Run sent before ops[before]: the term's
// deadline runs from it or from an earlier one. A write of the node that
// S3 did not apply counts if someone else wrote its bytes later (a
// restore of the node's own write, RestoreOwn): a read that shows them
// tells the node its attempt applied.
func latestWrite(h *sim.History, ops []*sim.S3Op, runStart time.Duration, before int, t *sim.Term) time.Duration {
	for i := before - 1; i >= 0 && ops[i].Call >= runStart; i-- {
		if ops[i].Op != "PutObject" {
			continue
		}
		body := ops[i].Body
		if body == "" && ops[i].BodyETag != "" {
			body = writtenLater(h, ops[i])
		}
		if body == "" {
			continue
		}
		if token, released := scanRecord(body); token == t.Token && !released {
			return ops[chainStart(ops, i)].Call
		}
	}
	return 0
}

// writtenLater is the body of w, a write S3 did not apply, if a write by
// someone other than the nodes applied the same bytes after it was sent;
// "" if none did.
func writtenLater(h *sim.History, w *sim.S3Op) string {
	l := lockContentsOf(h)
	for _, i := range l.byETag[unquote(w.BodyETag)] {
		if op := l.writes[i].op; op.Node < 0 && op.Call >= w.Call {
			return op.Body
		}
	}
	return ""
}

// held reports whether a pause or a stall held node's steps up within
// [from, to] (disturbed, without the stop that began the release).
func held(h *sim.History, clock sim.ClockModel, node int, from, to time.Duration) bool {
	for _, f := range h.Faults {
		if f.Node == node && f.From <= to && f.To >= from && (strings.Contains(f.Kind, "pause") || f.Kind == "clock-stall") {
			return true
		}
	}
	return stalledWithin(clock, from, to)
}

// stopped reports whether node's Run was stopped at some point: most runs
// have no stop, and are judged without a copy of the requests.
func stopped(h *sim.History, node int) bool {
	for _, f := range h.Faults {
		if f.Node == node && f.Kind == "stop" {
			return true
		}
	}
	return false
}
