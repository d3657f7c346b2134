package elector

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/sim"
)

// lockWrite is one write S3 applied to the lock object (a PutObject whose
// body the history holds, of a node or from outside), or a delete.
type lockWrite struct {
	op *sim.S3Op
	// send is the first attempt's send, if the SDK retried the write.
	send time.Duration
	etag string
	// The record it wrote, if it is one: its holder, token and whether it
	// is released; deleted for a DeleteObject.
	record            bool
	holder            string
	token             uint64
	released, deleted bool
	// replaced is the earliest answer of a write that surely came after
	// this one (sent after its answer): the lock object held this write's
	// content at no instant after it. The largest duration if none did, or
	// if the history does not bound when this write applied.
	replaced time.Duration
}

// lockContents are the writes of the lock object, in the order of the
// history, indexed by ETag and by the live record each wrote. One run's
// answer judges share them (lockContentsOf).
type lockContents struct {
	writes []lockWrite
	byETag map[string][]int
	live   map[liveRecord][]int
}

// liveRecord names a live record: its holder and token.
type liveRecord struct {
	holder string
	token  uint64
}

// lockContentsKey is the key of h's lockContents among what its judges
// share (judging.Shared).
type lockContentsKey struct{}

// lockContentsOf is newLockContents(h), built once per run for the
// answers of all its nodes.
func lockContentsOf(h *sim.History) *lockContents {
	return judging.Shared(h, lockContentsKey{}, newLockContents)
}

// newLockContents lists h's writes of the lock object.
func newLockContents(h *sim.History) *lockContents {
	n := 0
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == "PutObject" && op.Body != "" {
			n++
		}
	}
	l := &lockContents{writes: make([]lockWrite, 0, n), byETag: make(map[string][]int, n), live: map[liveRecord][]int{}}
	first := make(map[string]time.Duration, n)
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Op == "PutObject" && op.BodyETag != "" {
			if _, ok := first[op.BodyETag]; !ok {
				first[op.BodyETag] = op.Call
			}
		}
		switch {
		case op.Op == "PutObject" && op.Body != "":
			w := lockWrite{op: op, send: first[op.BodyETag], etag: unquote(op.BodyETag)}
			if r, ok := lockRecord(h, op.Body); ok {
				w.record, w.holder, w.token, w.released = true, r.Holder, r.Token, r.Released
			}
			l.byETag[w.etag] = append(l.byETag[w.etag], len(l.writes))
			if w.record && !w.released {
				k := liveRecord{w.holder, w.token}
				l.live[k] = append(l.live[k], len(l.writes))
			}
			l.writes = append(l.writes, w)
		case op.Op == "DeleteObject" && op.Return >= 0 && op.Status/100 == 2:
			l.writes = append(l.writes, lockWrite{op: op, send: op.Call, deleted: true})
		}
	}
	l.indexReplaced()
	return l
}

// lockRecord is the record body holds, as encoding/json reads it into the
// elector's Record (judging.ReadRecordFields), if it is one: a "holder":
// null after a holder leaves the holder as it was, and a record without a
// holder is none (the elector refuses it).
func lockRecord(h *sim.History, body string) (judging.RecordFields, bool) {
	r := judging.ReadRecordFields(h, body)
	return r, r.Err == nil && r.Holder != ""
}

// indexReplaced sets each write's replaced: the earliest answer among the
// writes sent after its answer, found by the writes in the order of their
// sends.
func (l *lockContents) indexReplaced() {
	bySend := make([]int, len(l.writes))
	for i := range bySend {
		bySend[i] = i
	}
	slices.SortStableFunc(bySend, func(a, b int) int { return cmp.Compare(l.writes[a].op.Call, l.writes[b].op.Call) })
	// earliest[k] is the earliest answer of the writes bySend[k:].
	earliest := make([]time.Duration, len(bySend)+1)
	earliest[len(bySend)] = math.MaxInt64
	for k := len(bySend) - 1; k >= 0; k-- {
		earliest[k] = earliest[k+1]
		if r := l.writes[bySend[k]].op.Return; r >= 0 && r < earliest[k] {
			earliest[k] = r
		}
	}
	for i := range l.writes {
		w := &l.writes[i]
		switch {
		case w.op.Return < 0:
			w.replaced = math.MaxInt64 // applied at an instant the history does not bound
		case w.op.Call > w.op.Return:
			w.replaced = l.replacedScan(w) // sent after its own answer: not among its own successors
		default:
			k, _ := slices.BinarySearchFunc(bySend, w.op.Return, func(x int, at time.Duration) int {
				if l.writes[x].op.Call > at {
					return 1
				}
				return -1
			})
			w.replaced = earliest[k]
		}
	}
}

// replacedScan is w's replaced, by a scan of every other write.
func (l *lockContents) replacedScan(w *lockWrite) time.Duration {
	out := time.Duration(math.MaxInt64)
	for i := range l.writes {
		if x := &l.writes[i]; x != w && x.op.Call > w.op.Return && x.op.Return >= 0 {
			out = min(out, x.op.Return)
		}
	}
	return out
}

// latest is the latest write of etag sent by at: what a read answered
// at at with that ETag returned (a restore of old bytes is a write of its
// own, after the one it copies).
func (l *lockContents) latest(etag string, at time.Duration) (*lockWrite, bool) {
	ws := l.byETag[unquote(etag)]
	for k := len(ws) - 1; k >= 0; k-- {
		if w := &l.writes[ws[k]]; w.op.Call <= at {
			return w, true
		}
	}
	return nil, false
}

// currentWithin reports whether a write of a live record of holder with
// token was the lock object's content at some instant of [from, to], as
// far as the history's intervals tell: sent by to, and not replaced by a
// write that surely came after it and surely applied before from.
func (l *lockContents) currentWithin(holder string, token uint64, from, to time.Duration) bool {
	for _, i := range l.live[liveRecord{holder, token}] {
		if w := &l.writes[i]; w.op.Call <= to && w.replaced >= from {
			return true
		}
	}
	return false
}

// termKey names a term of the node: its incarnation and token.
type termKey struct {
	inc   int
	token uint64
}

// answeredTerm is a term of the node as its own writes and what it
// learned of them make it, on its clock: it began when the node learned
// that its acquisition applied (if that was before the write's deadline),
// and each success the node learned of before the deadline moved the
// deadline to that write's send plus the term length (protocol's Time
// rules: the answer of the write, or a read that showed it).
type answeredTerm struct {
	began time.Duration // true time the node learned of the grant
	// deadlines are the term's local deadlines (readings of the judge's
	// clock), each from the true instant the node learned of the write
	// that set it.
	deadlines []termDeadline
	over      bool // a success came after the deadline: the term is over
}

type termDeadline struct {
	from, local, send time.Duration
}

// deadlineAt is the term's local deadline as the node knew it at true
// time t, and the send of the write it runs from; ok is false if the
// node had not learned of its grant by t.
func (t *answeredTerm) deadlineAt(at time.Duration) (d termDeadline, ok bool) {
	for _, x := range t.deadlines {
		if x.from > at {
			break
		}
		d, ok = x, true
	}
	return d, ok
}

// termsOf is the node's terms, from the successes it learned of: each
// PutObject it sent answered 200, and each read that showed a record it
// wrote (an answer lost, a 412 after an SDK retry; or its own bytes
// written again by someone else, which it cannot tell from its write
// applied: ownBytes), learned of when the node looked at the answer
// (lookedAt).
func (j *answerJudge) termsOf() map[termKey][]*answeredTerm {
	type learned struct {
		at time.Duration
		w  *lockWrite
	}
	var ls []learned
	for i := range j.h.S3 {
		op := &j.h.S3[i]
		if op.Node != j.node || op.Return < 0 || op.Status != 200 || op.TornBodyETag != "" || j.rereads[op] {
			continue
		}
		var etag string
		switch op.Op {
		case "PutObject":
			etag = op.BodyETag
		case "GetObject":
			etag = op.ETag
		default:
			continue
		}
		if w, ok := j.shown(op, etag); ok && w.op.Node == j.node && w.op.Incarnation == op.Incarnation && w.record && !w.released {
			ls = append(ls, learned{j.lookedAt(op), w})
		}
	}
	slices.SortStableFunc(ls, func(a, b learned) int { return cmp.Compare(a.at, b.at) })
	terms := map[termKey][]*answeredTerm{}
	term := j.s.termLength()
	for _, l := range ls {
		k := termKey{l.w.op.Incarnation, l.w.token}
		now, send := j.local(l.at), j.local(l.w.send)
		end := send + term
		ts := terms[k]
		var t *answeredTerm
		if len(ts) > 0 {
			t = ts[len(ts)-1]
		}
		switch {
		case t == nil || send >= t.last().local || j.endedBy(k, t, l.w.send):
			// A grant: the first of the token, or one sent after the
			// term before it with the same token was over, at its
			// deadline or earlier (a record no token can follow, taken
			// again).
			if now < end {
				terms[k] = append(ts, &answeredTerm{began: l.at, deadlines: []termDeadline{{l.at, end, l.w.send}}})
			}
		case t.over:
		case now >= t.last().local:
			t.over = true // the renewal succeeded after the deadline
		case end > t.last().local:
			t.deadlines = append(t.deadlines, termDeadline{l.at, end, l.w.send})
		}
	}
	return terms
}

// last is the term's latest deadline.
func (t *answeredTerm) last() termDeadline { return t.deadlines[len(t.deadlines)-1] }

// termOf is the node's term that the history's term t is: the latest of
// its incarnation and token that began (the node learned of its grant) by
// t's start.
func (j *answerJudge) termOf(t sim.Term) *answeredTerm {
	var out *answeredTerm
	for _, at := range j.terms[termKey{t.Incarnation, t.Token}] {
		if at.began <= t.Start {
			out = at
		}
	}
	return out
}

// leads judges a's yes (IsLeader, Lease, Leader().Self): a term of the
// node's incarnation that the history shows began, learned of by then,
// whose deadline had not passed on the node's clock, with a's token if
// withToken. It returns why the yes is wrong, or "".
func (j *answerJudge) leads(a *sim.Answer, withToken bool) string {
	now := j.local(a.At)
	var best *termDeadline
	var bestToken uint64
	for _, t := range j.h.Terms {
		if t.Node != j.node || t.Incarnation != a.Incarnation || withToken && t.Token != a.Token {
			continue
		}
		at := j.termOf(t)
		if at == nil {
			continue
		}
		d, ok := at.deadlineAt(a.At)
		if !ok {
			continue
		}
		if now < d.local {
			return ""
		}
		if best == nil || d.local > best.local {
			best, bestToken = &d, t.Token
		}
	}
	under := "in any term"
	if withToken {
		under = fmt.Sprintf("under token %d", a.Token)
	}
	if best == nil {
		return fmt.Sprintf("it does not lead %s: no term of its incarnation %d with a grant it had learned of", under, a.Incarnation)
	}
	return fmt.Sprintf("it does not lead %s: the term of token %d ended at its local deadline, %v after the send at %v of its last successful write, and the answer came %v after that on its clock",
		under, bestToken, j.s.termLength(), best.send, now-best.local)
}

// lookedAt is when the node looked at op's answer: when it came, or, if
// the process stopped as it came (an answer pause: the answer sat in its
// buffers), when the process ran again.
func (j *answerJudge) lookedAt(op *sim.S3Op) time.Duration {
	for _, f := range j.h.Faults {
		if f.Node == j.node && f.Kind == sim.FaultAnswerPause.String() && f.From == op.Return {
			return f.To
		}
	}
	return op.Return
}

// deadlineBefore is deadlineAt for what the node knew just before at:
// an event at the very instant at may have come before or after the
// node's answer, in either order.
func (t *answeredTerm) deadlineBefore(at time.Duration) (d termDeadline, ok bool) {
	for _, x := range t.deadlines {
		if x.from >= at {
			break
		}
		d, ok = x, true
	}
	return d, ok
}

// ownBytes returns, for w, a write from outside the nodes that read
// showed, the node's own write of the same bytes in read's incarnation,
// sent before the answer (the first attempt, whose send the elector
// counts from), as the node takes what it shows: its write applied. It
// returns w if the node sent no such write.
func (j *answerJudge) ownBytes(w *lockWrite, read *sim.S3Op) *lockWrite {
	for i := range j.h.S3 {
		o := &j.h.S3[i]
		if o.Node == j.node && o.Incarnation == read.Incarnation && o.Op == "PutObject" && o.Call <= read.Return && unquote(o.BodyETag) == w.etag {
			own := *w
			own.op, own.send = o, o.Call
			return &own
		}
	}
	return w
}

// shown is the write an answer of op with etag showed the node: the
// latest write of etag, taken for the node's own where someone else
// wrote its bytes again (ownBytes).
func (j *answerJudge) shown(op *sim.S3Op, etag string) (*lockWrite, bool) {
	w, ok := j.lock.latest(etag, op.Return)
	if ok && w.op.Node < 0 {
		w = j.ownBytes(w, op)
	}
	return w, ok
}

// endingRead is a read of the node that showed the lock object missing or
// a record other than a live one of its own: it ends every term of its
// incarnation but the one of token keep (0: all of them).
type endingRead struct {
	at   time.Duration
	inc  int
	keep uint64
}

// endedBy reports whether the node stopped term t, of its incarnation and
// token k, by at: a read it sent showed the lock object missing, or a
// record that is not the term's own (replaced, released, another token),
// which ends a term before its deadline.
func (j *answerJudge) endedBy(k termKey, t *answeredTerm, at time.Duration) bool {
	if !j.readsDone {
		j.reads, j.readsDone = j.endingReads(), true
	}
	for _, r := range j.reads {
		if r.inc == k.inc && r.at >= t.began && r.at <= at && r.keep != k.token {
			return true
		}
	}
	return false
}

// endingReads lists the node's reads that can end a term (endingRead).
func (j *answerJudge) endingReads() []endingRead {
	var out []endingRead
	for i := range j.h.S3 {
		op := &j.h.S3[i]
		if op.Node != j.node || op.Op != "GetObject" || op.Return < 0 || op.TornBodyETag != "" || j.rereads[op] || op.Status != 200 && op.Status != 404 {
			continue
		}
		r := endingRead{at: op.Return, inc: op.Incarnation}
		if op.Status == 200 {
			if w, ok := j.shown(op, op.ETag); ok && w.op.Node == j.node && w.op.Incarnation == op.Incarnation && w.record && !w.released {
				r.keep = w.token
			}
		}
		out = append(out, r)
	}
	return out
}
