package elector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// PaceCheck names the violations of Settings.Pace: a node that waited
// longer than its own design allows before acting on what S3 answered it.
// Such a node is not unsafe, only slow, and slow only under faults (which
// is why the liveness bound after the heal does not see it); the verdict is
// Liveness.
const PaceCheck = "pace"

// The rules of PaceCheck.
const (
	// RulePaceRetry: after an acquisition that was not answered with a
	// success (no answer, a 5xx, a 409, a 412 or a 404), applied or not,
	// the node's next request came later than the elector's design
	// allows: at once after a 412 or a 404, within the back-off (at most a
	// fifth of RetryPeriod, on the node's clock) after anything else.
	RulePaceRetry = "retry"
	// RulePaceResume: the read that followed such an acquisition showed
	// the node's own record unchanged, in time for the term (within its
	// term length of the write's send, on the node's clock), and the node
	// did not begin leading with that record's token at once.
	RulePaceResume = "resume"
	// RulePaceRenewal: a node renewed its term sooner than its renew
	// interval (protocol.Config.RenewInterval, on its clock) after the
	// send of the write it renewed: the elector renews once per
	// RetryPeriod, or RequestTimeout before the term's deadline if that
	// comes first, counted from the send of its last write that applied.
	RulePaceRenewal = "renewal"
	// RulePaceStepDown: a node's term ended before its local deadline,
	// while its Run went on, on a request that gives the elector no cause
	// to end it: a check read (after a renewal not answered with success)
	// that failed, or that showed the record the renewal was to replace
	// or one of the node's own last 16 writes of the term, unreleased (the
	// elector leads on, and extends its term on its own write); or a
	// renewal answered with success. The elector ends a term before its
	// deadline only when a check read shows the object missing, released,
	// not a record, or not its own.
	RulePaceStepDown = "stepdown"
	// RulePaceRelease: after a stop of its Run ended a term (the elector
	// releases on cancel), a node sent or was answered a request of its
	// release after the term's local deadline, which each release call's
	// timeout ends at; or a check read after a release write showed the
	// node's own renewal of the term, unreleased, and no release write
	// of that record followed at once, though the attempt was not the
	// third and the deadline had not passed.
	RulePaceRelease = "release"
)

// paceSlack allows for rounding between a node's clock and true time.
const paceSlack = time.Microsecond

// paceDisturbed are the kinds of fault that stop or delay a node's own
// steps: while one lasts the node's pace is not judged.
var paceDisturbed = []string{"pause", "crash", "restart", "stop", "clock-stall", "answer-pause", "pause-before-write"}

// Pace judges, for the production elector with these settings, that the
// term it keeps is its configuration's (RulePaceTerm), how soon node acted on an acquisition that was not answered with a success
// (RulePaceRetry: it reads again at once, or within its back-off), how
// soon it began leading once a read showed that such an acquisition had
// applied after all (RulePaceResume), and that it renews no sooner than its
// renew interval after its last write (RulePaceRenewal): the places where the
// elector's design promises a step in time under faults, and where a
// mistake (an acquisition of its own not recognised, a back-off as long
// as a poll, a renewal out of turn) only slows or busies a node, which the
// liveness bound after the heal does not see. clock is the node's clock
// model, which converts the elector's waits on its own clock to true time.
// Windows in which the node was paused, stalled, stopped or restarted, and
// acquisitions of which the run's end leaves no time to judge, are not
// judged.
func (s Settings) Pace(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation {
	out := append(s.termRule(node, s.Assumptions()), s.earlyRenewals(h, node, clock)...)
	var ops []*sim.S3Op
	if endsEarly(h, node) {
		ops = paceOps(h, node)
		out = append(out, s.stepDowns(h, node, clock, ops)...)
	}
	if s.ReleaseOnCancel && stopped(h, node) {
		if ops == nil {
			ops = paceOps(h, node)
		}
		out = append(out, s.releases(h, node, clock, ops)...)
	}
	if !paceCandidates(h, node) {
		return out
	}
	if ops == nil {
		ops = paceOps(h, node)
	}
	var written map[string]string // appliedBodies(h), once needed
	for first := 0; first < len(ops); first++ {
		if ops[first].Op != "PutObject" {
			continue
		}
		// The call: a chain of attempts with one body (the SDK's
		// retries), and the attempt S3 applied, if one was.
		last, applied := first, -1
		for last+1 < len(ops) && ops[last+1].Op == "PutObject" && ops[last+1].BodyETag == ops[first].BodyETag {
			last++
		}
		for j := first; j <= last; j++ {
			if ops[j].Body != "" {
				applied = j
			}
		}
		call := first
		first = last
		wait, judged := s.retryWait(ops[last])
		if !judged {
			continue
		}
		var token uint64 // of the record S3 applied, if it did
		if applied >= 0 {
			if written == nil {
				written = appliedBodies(h)
			}
			token = recordToken(h, ops[applied].Body)
		}
		if applied >= 0 && !paceAcquisition(h, written, ops[applied], token) || applied < 0 && !campaignWrite(ops, call) {
			continue
		}
		sent := ops[call].Call
		end := ops[last].Return
		if retryable(ops[last]) {
			// The SDK may sleep and try again until the call's timeout.
			end = sent + trueTime(clock, s.requestTimeout())
		}
		var next *sim.S3Op
		if last+1 < len(ops) {
			next = ops[last+1]
		}
		limit := end + trueTime(clock, wait) + paceSlack
		if limit >= h.End || disturbed(h, clock, node, sent, min(limit, h.End)) {
			continue
		}
		what := "not applied"
		if applied >= 0 {
			what = fmt.Sprintf("with token %d, applied", token)
		}
		if next == nil || next.Call > limit {
			at := "sent nothing more"
			if next != nil {
				at = fmt.Sprintf("sent its next request (%s) at %v", next.Op, next.Call)
			}
			out = append(out, linearizability.Violation{Checker: PaceCheck, Rule: RulePaceRetry, At: limit, Nodes: []int{node}, Token: token,
				Message: fmt.Sprintf("n%d's acquisition (%s), sent at %v, was answered %s at %v; the elector reads again within %v of its own clock (by %v), but it %s",
					node, what, sent, answerOf(ops[last]), end, wait, limit, at)})
			continue
		}
		if applied < 0 || next.Op != "GetObject" || next.Status != 200 || next.TornBodyETag != "" || unquote(next.ETag) != unquote(ops[applied].BodyETag) || token == math.MaxUint64 {
			continue // not shown its record (a torn read shows another body with its ETag, and the elector reads again); or shown a record that no token follows, which the elector refuses to read
		}
		superseded := false
		for k := last + 2; k < len(ops) && rereadsOf(h)[next]; k++ {
			// Read again at once (on a store whose ETags are not MD5s):
			// the elector acts on the read that shows the same, if one
			// does.
			if superseded = !sameRead(next, ops[k]); superseded {
				break
			}
			next = ops[k]
		}
		if superseded {
			continue
		}
		if localTime(clock, next.Return-sent) >= s.termLength()-paceSlack || disturbed(h, clock, node, sent, next.Return+paceSlack) {
			continue // a grant too late to lead on, or a node held up
		}
		if next.Return+paceSlack >= h.End || begins(h, node, token, next.Return) {
			continue
		}
		out = append(out, linearizability.Violation{Checker: PaceCheck, Rule: RulePaceResume, At: next.Return, Nodes: []int{node}, Token: token,
			Message: fmt.Sprintf("n%d's acquisition with token %d, sent at %v and applied, was answered %s; its read at %v showed that record unchanged, %v after the send (its term lasts %v), but n%d did not begin leading with token %d then",
				node, token, sent, answerOf(ops[last]), next.Return, next.Return-sent, s.termLength(), node, token)})
	}
	return out
}

// sameRead reports whether read b, a GetObject, showed what read a did:
// answered 200, whole, with a's ETag.
func sameRead(a, b *sim.S3Op) bool {
	return b.Op == "GetObject" && b.Status == 200 && b.TornBodyETag == "" && unquote(b.ETag) == unquote(a.ETag)
}

// earlyRenewals judges RulePaceRenewal: every renewal S3 applied of a
// record node wrote last, with the same token, is sent at least a renew
// interval of the node's clock after that record's send.
func (s Settings) earlyRenewals(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation {
	var out []linearizability.Violation
	var last struct {
		etag, identity string
		sent           time.Duration
		token          uint64
	}
	every := s.renewInterval()
	least := trueFor(every, max(clock.DriftPPM, 0)) - paceSlack
	chain, sent := "", time.Duration(0) // the call that the current attempt is of
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node != node {
			continue
		}
		if op.Op != "PutObject" {
			chain = ""
			continue
		}
		if op.BodyETag != chain {
			chain, sent = op.BodyETag, op.Call
		}
		if op.Body == "" {
			continue
		}
		token, released := scanRecord(op.Body)
		if last.etag != "" && unquote(op.IfMatch) == unquote(last.etag) && op.Identity == last.identity &&
			token == last.token && !released && sent-last.sent < least {
			out = append(out, linearizability.Violation{Checker: PaceCheck, Rule: RulePaceRenewal, At: sent, Nodes: []int{node}, Token: token,
				Message: fmt.Sprintf("n%d renewed its term with token %d at %v, %v after the send of the record it renewed (at %v); the elector renews its renew interval (%v of its clock) after it",
					node, token, sent, sent-last.sent, last.sent, every)})
		}
		last.etag, last.identity, last.sent, last.token = op.BodyETag, op.Identity, sent, token
	}
	return out
}

// scanRecord finds the token of a record the elector wrote, and whether it
// is released, by scanning its canonical JSON (the record audit holds the
// bodies to that form; this checker only needs the two fields).
func scanRecord(body string) (token uint64, released bool) {
	const key = `"token":`
	if i := strings.Index(body, key); i >= 0 {
		j := i + len(key)
		for j < len(body) && body[j] >= '0' && body[j] <= '9' {
			j++
		}
		token, _ = strconv.ParseUint(body[i+len(key):j], 10, 64)
	}
	return token, releasedTrue(body)
}

// releasedTrue reports whether body holds `"released":true`, as
// strings.Contains does, looking only at its colons: a JSON body's
// commonest byte, the quote, makes strings.Contains slow, and a byte of
// the key's own can fill a record's updates.
func releasedTrue(body string) bool {
	const key = `"released":true`
	const colon = len(`"released"`) // the index of the key's colon
	for i := colon; i < len(body); i++ {
		j := strings.IndexByte(body[i:], ':')
		if j < 0 {
			return false
		}
		if i += j; i-colon+len(key) <= len(body) && body[i-colon:i-colon+len(key)] == key {
			return true
		}
	}
	return false
}

// requestTimeout is the elector's bound on each S3 call: RequestTimeout, or
// RetryPeriod if that is 0 (protocol.Config.RequestTimeout).
func (s Settings) requestTimeout() time.Duration {
	if s.RequestTimeout == 0 {
		return s.RetryPeriod
	}
	return s.RequestTimeout
}

// renewInterval is how long after the send of its last successful write the
// elector renews (protocol.Config.RenewInterval).
func (s Settings) renewInterval() time.Duration {
	return s.Config(sim.Env{}).RenewInterval()
}

// termLength is how long the elector's term lasts after the send of its
// write, as its configuration computes it.
func (s Settings) termLength() time.Duration {
	return s.Config(sim.Env{}).Assumptions().Term
}

// paceCandidates reports whether node has a write that was not answered
// with a success: most runs have none, and are judged without a copy.
func paceCandidates(h *sim.History, node int) bool {
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node == node && op.Op == "PutObject" && (op.Return < 0 || op.Status != 200) {
			return true
		}
	}
	return false
}

// campaignWrite reports whether ops[i], a write S3 did not apply, is one
// the elector sends as it campaigns: a create, or a write If-Match the
// ETag its read just before showed. (A renewal or a release sent after the
// read that checks an earlier one looks the same; the elector also reads
// again at once, or within its back-off, after those.)
func campaignWrite(ops []*sim.S3Op, i int) bool {
	if ops[i].IfNoneMatch == "*" {
		return true
	}
	if i == 0 {
		return false
	}
	r := ops[i-1]
	return r.Op == "GetObject" && r.Status == 200 && r.Return >= 0 && unquote(r.ETag) == unquote(ops[i].IfMatch)
}

// paceOps are node's requests, in the order it sent them.
func paceOps(h *sim.History, node int) []*sim.S3Op {
	n := 0
	for i := range h.S3 {
		if h.S3[i].Node == node {
			n++
		}
	}
	ops := make([]*sim.S3Op, 0, n)
	for i := range h.S3 {
		if h.S3[i].Node == node {
			ops = append(ops, &h.S3[i])
		}
	}
	return ops
}

// retryWait is the longest the elector waits, on its own clock, before its
// next request after a write whose last attempt was answered as op was:
// nothing after a 412 or a 404 (it reads again at once), its back-off
// (a tenth of RetryPeriod plus a jitter of at most as much) after no
// answer, a 409, a 429 or a 5xx. judged is false for a success and for any
// other answer.
func (s Settings) retryWait(op *sim.S3Op) (wait time.Duration, judged bool) {
	switch {
	case op.Return >= 0 && (op.Status == 412 || op.Status == 404):
		return 0, true
	case op.Status == 409 || retryable(op):
		return 2 * (s.RetryPeriod / 10), true
	}
	return 0, false
}

// retryable reports whether the SDK may try a write answered as op again
// (no answer, a 429, a 5xx), so that the call lasts until its timeout.
func retryable(op *sim.S3Op) bool {
	return op.Return < 0 || op.Status == 0 || op.Status == 429 || op.Status >= 500
}

// paceAcquisition reports whether op, a write S3 applied, began a term: it
// created the object, or its record's token is not the token of the
// record it replaced. written is appliedBodies of op's history, h; token,
// recordToken of op's body.
func paceAcquisition(h *sim.History, written map[string]string, op *sim.S3Op, token uint64) bool {
	if op.IfNoneMatch == "*" {
		return true
	}
	if body, ok := written[unquote(op.IfMatch)]; ok {
		return recordToken(h, body) != token
	}
	return true // it replaced a body the history does not hold: no record of a run's term
}

// appliedBodies are the bodies of h's applied writes by their ETag,
// unquoted: the first write's of each.
func appliedBodies(h *sim.History) map[string]string {
	bodies := map[string]string{}
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == "PutObject" && op.Body != "" {
			if etag := unquote(op.BodyETag); bodies[etag] == "" {
				bodies[etag] = op.Body
			}
		}
	}
	return bodies
}

// recordToken is the token of a record's body, a body of h's writes, 0 if
// it has none.
func recordToken(h *sim.History, body string) uint64 {
	t, _ := judging.ReadRecordToken(h, body)
	return t
}

// begins reports whether node began a term with token at instant at (the
// application was told it leads then, or within a moment).
func begins(h *sim.History, node int, token uint64, at time.Duration) bool {
	for _, t := range h.Terms {
		if t.Node == node && t.Token == token && t.Start >= at && t.Start <= at+paceSlack {
			return true
		}
	}
	return false
}

// disturbed reports whether a fault that stops or delays node's own steps
// overlaps [from, to]: a pause, a crash, a restart, a stop, a stall of its
// monotonic clock.
func disturbed(h *sim.History, clock sim.ClockModel, node int, from, to time.Duration) bool {
	for _, f := range h.Faults {
		if f.Node != node || f.From > to || f.To < from {
			continue
		}
		for _, k := range paceDisturbed {
			if strings.Contains(f.Kind, k) {
				return true
			}
		}
	}
	return stalledWithin(clock, from, to)
}

// answerOf describes the answer of op for a message.
func answerOf(op *sim.S3Op) string {
	if op.Return < 0 {
		return "nothing (no answer came)"
	}
	if op.Code != "" {
		return fmt.Sprintf("%d %s", op.Status, op.Code)
	}
	return fmt.Sprint(op.Status)
}
