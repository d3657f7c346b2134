package elector

import (
	"fmt"
	"sort"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// paceMemory is how many of its most recent writes of one Run the elector
// recognises by nonce (protocol maxWrites): a record that is one of them,
// with the term's token and not released, is its own.
const paceMemory = 16

// The causes for which RulePaceStepDown finds that a term ended, none of
// which the elector ends a term for.
const (
	stepFailed    = "its check read failed (%s)"
	stepUnchanged = "its check read showed the record its renewal was to replace, unchanged"
	stepOurs      = "its check read showed its own renewal with token %d, sent at %v, one of its last %d writes, unreleased"
	stepRenewed   = "its renewal was answered with success at %v"
)

// stepDowns judges RulePaceStepDown for node: every term of node that
// ended before its local deadline, with no stop, crash or restart of the
// node during it, ended because of the last request the node sent in it,
// and that request showed a cause the elector ends a term for. The
// elector's lead goroutine is alone in sending requests while it leads,
// and nothing but its watchdog (at the local deadline), the end of Run
// and a check read ends a term; so the last request sent before the
// term's end is the one it acted on. The term is judged only where that
// request is a check read that failed or showed one of the node's own
// unreleased writes of the term, or a renewal answered with success.
//
// The local deadline is bounded from below by the sends of the writes the
// node certainly acted on (the term's acquisition, renewals answered with
// success and writes a check read showed its own, all before the last
// request) plus the term length at the fastest rate of the node's clock: a
// term that ended later is not judged, which covers every pause between
// an answer and the act on it (the watchdog ends a term held up past its
// deadline). A term's end as recorded is when the application saw it, at
// or after the elector ended it, except for an application that polls the
// lease check, whose term as recorded ends at its last act: such terms
// are not judged.
func (s Settings) stepDowns(h *sim.History, node int, clock sim.ClockModel, ops []*sim.S3Op) []linearizability.Violation {
	var out []linearizability.Violation
	term := s.termLength()
	for ti := range h.Terms {
		t := &h.Terms[ti]
		if t.Node != node || t.Open || ended(h, node, t.Start, t.End+paceSlack) {
			continue
		}
		// x: the last request sent before the term's end.
		x := sort.Search(len(ops), func(i int) bool { return ops[i].Call >= t.End }) - 1
		if x < 0 || ops[x].Call < t.Start {
			continue
		}
		x0 := chainStart(ops, x)
		why := stepCause(ops, x0, x, t, h)
		if why == "" {
			continue
		}
		_, _, sent, ok := locate(h, ops, t, x0)
		if !ok {
			continue
		}
		deadline := sent + leastTrue(clock, term)
		if t.End+paceSlack >= deadline || polled(h, t) {
			continue
		}
		out = append(out, linearizability.Violation{Checker: PaceCheck, Rule: RulePaceStepDown, At: t.End, Nodes: []int{node}, Token: t.Token,
			Message: fmt.Sprintf("n%d's term with token %d ended at %v, before its local deadline (not before %v: a term of %v from the send at %v of the last write it certainly acted on); the last request it sent in the term was %s at %v, and %s: the elector leads on",
				node, t.Token, t.End, deadline, term, sent, ops[x].Op, ops[x0].Call, why)})
	}
	return out
}

// stepCause is why the elector would not end term t on the request whose
// attempts are ops[x0..x], the last it sent in the term: "" if it would
// (or if the request is not one the rule judges).
func stepCause(ops []*sim.S3Op, x0, x int, t *sim.Term, h *sim.History) string {
	last := ops[x]
	switch last.Op {
	case "PutObject":
		if last.Return < 0 || last.Status != 200 || last.ETag == "" || ops[x0].IfMatch == "" {
			return ""
		}
		if token, released, ok := chainRecord(ops, x0, x); ok && token == t.Token && !released {
			return fmt.Sprintf(stepRenewed, last.Return)
		}
		return ""
	case "GetObject":
	default:
		return ""
	}
	p := x0 - 1 // the renewal the read checks
	if p < 0 || ops[p].Op != "PutObject" || ops[chainStart(ops, p)].Call < t.Start || ops[p].IfMatch == "" ||
		ops[p].Return >= 0 && ops[p].Status == 200 {
		return ""
	}
	switch {
	case last.Return >= 0 && last.Status == 404:
		return "" // the object is missing (or the bucket: undecided)
	case last.Return < 0 || last.Status != 200 || last.ETag == "":
		return fmt.Sprintf(stepFailed, answerOf(last))
	case unquote(last.ETag) == unquote(ops[p].IfMatch):
		return stepUnchanged
	}
	if w, token, released, ok := ownWrite(ops, runStartOf(h, t.Node, t.Start), x0, last.ETag); ok && token == t.Token && !released {
		return fmt.Sprintf(stepOurs, token, ops[w].Call, paceMemory)
	}
	return ""
}

// chainStart is the first attempt of the call whose attempt ops[i] is:
// the SDK's attempts of one call follow one another, with one body for a
// write.
func chainStart(ops []*sim.S3Op, i int) int {
	for i > 0 && ops[i-1].Op == ops[i].Op && (ops[i].Op != "PutObject" || ops[i-1].BodyETag == ops[i].BodyETag) {
		i--
	}
	return i
}

// chainRecord is the token of the record the write ops[from..to] stored,
// and whether it is released; ok is false if S3 applied none of its
// attempts.
func chainRecord(ops []*sim.S3Op, from, to int) (token uint64, released, ok bool) {
	for i := from; i <= to; i++ {
		if ops[i].Body != "" {
			token, released = scanRecord(ops[i].Body)
			return token, released, true
		}
	}
	return 0, false, false
}

// ownWrite finds the write with ETag etag among the last paceMemory
// writes the node sent in its Run (from runStart) before ops[before]: the
// index of its first attempt, its record's token and whether it is
// released. ok is false if it is none of them, or if S3 applied none of
// its attempts.
func ownWrite(ops []*sim.S3Op, runStart time.Duration, before int, etag string) (first int, token uint64, released, ok bool) {
	etag = unquote(etag)
	seen := 0
	for i := before - 1; i >= 0 && ops[i].Call >= runStart && seen < paceMemory; i-- {
		if ops[i].Op != "PutObject" {
			continue
		}
		end := i
		i = chainStart(ops, i)
		seen++
		if unquote(ops[i].BodyETag) == etag {
			token, released, ok = chainRecord(ops, i, end)
			return i, token, released, ok
		}
	}
	return 0, 0, false, false
}

// locate finds term t among the node's requests ops: the start of the Run
// that led it (runStartOf), the send of its acquisition (acquisitionSent)
// and the send of the latest write of the term that the node certainly
// acted on before it sent ops[before] (that acquisition, or a later one:
// actedOn), from which the term's local deadline runs at the earliest. ok
// is false if the Run holds no acquisition of t.
func locate(h *sim.History, ops []*sim.S3Op, t *sim.Term, before int) (runStart, acquired, acted time.Duration, ok bool) {
	runStart = runStartOf(h, t.Node, t.Start)
	acquired, ok = acquisitionSent(ops, runStart, t)
	return runStart, acquired, max(acquired, actedOn(h, ops, runStart, before, t)), ok
}

// acquisitionSent is the send of the earliest write of the node's Run
// (from runStart) that stored a record with t's token, sent before t
// began: the term's deadline runs from it or from a later write.
func acquisitionSent(ops []*sim.S3Op, runStart time.Duration, t *sim.Term) (time.Duration, bool) {
	for i, op := range ops {
		if op.Call > t.Start {
			break
		}
		if op.Call < runStart || op.Op != "PutObject" || op.Body == "" {
			continue
		}
		if token, _ := scanRecord(op.Body); token == t.Token {
			return ops[chainStart(ops, i)].Call, true
		}
	}
	return 0, false
}

// actedOn is the send of the latest write of term t that the node
// certainly acted on before it sent ops[before]: a renewal answered with
// success, or one of its own writes a check read showed (not torn, nor
// read again at once: the elector reads such an answer again rather than
// act on it); 0 if none.
func actedOn(h *sim.History, ops []*sim.S3Op, runStart time.Duration, before int, t *sim.Term) time.Duration {
	var sent time.Duration
	for i := before - 1; i >= 0 && ops[i].Call >= t.Start; i-- {
		op := ops[i]
		if op.Return < 0 || op.Status != 200 || op.ETag == "" || op.TornBodyETag != "" || rereadsOf(h)[op] {
			continue
		}
		switch op.Op {
		case "PutObject":
			from := chainStart(ops, i)
			if token, released, ok := chainRecord(ops, from, i); ok && token == t.Token && !released && op.IfMatch != "" {
				sent = max(sent, ops[from].Call)
			}
		case "GetObject":
			if w, token, released, ok := ownWrite(ops, runStart, chainStart(ops, i), op.ETag); ok && token == t.Token && !released {
				sent = max(sent, ops[w].Call)
			}
		}
	}
	return sent
}

// runStartOf is when the node's process that was running at instant at
// started: its latest restart or crash at or before at, or 0. The
// elector's memory of its writes is its Run's.
func runStartOf(h *sim.History, node int, at time.Duration) time.Duration {
	var start time.Duration
	for _, f := range h.Faults {
		if f.Node == node && f.From <= at && (f.Kind == "restart" || f.Kind == "crash") {
			start = max(start, f.From)
		}
	}
	return start
}

// ended reports whether the node was stopped, crashed or restarted within
// [from, to]: its Run ended there.
func ended(h *sim.History, node int, from, to time.Duration) bool {
	for _, f := range h.Faults {
		if f.Node == node && f.From >= from && f.From <= to && (f.Kind == "stop" || f.Kind == "crash" || f.Kind == "restart") {
			return true
		}
	}
	return false
}

// polled reports whether term t's recorded end may be its application's
// last act rather than the end of the term (sim.AppPolls): it is the
// term's start or the send of one of its fenced writes.
func polled(h *sim.History, t *sim.Term) bool {
	if t.End == t.Start {
		return true
	}
	for _, w := range h.Writes {
		if w.Node == t.Node && w.Token == t.Token && w.Sent == t.End {
			return true
		}
	}
	return false
}

// endsEarly reports whether node has a term that ended while its Run went
// on: most runs have none, and are judged without a copy of the requests.
func endsEarly(h *sim.History, node int) bool {
	for i := range h.Terms {
		if t := &h.Terms[i]; t.Node == node && !t.Open && !ended(h, node, t.Start, t.End+paceSlack) {
			return true
		}
	}
	return false
}
