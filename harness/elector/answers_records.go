package elector

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// leader judges a's named holder (Leader(), observed, a holder named): a
// live record of that holder with that token was the lock object's
// content at some instant from the observation, the instant the node's
// clock read a.Age before the answer (the send of the request that made
// it: protocol.LeaderInfo.Age), to the answer. It returns why the answer
// is wrong, or "".
func (j *answerJudge) leader(a *sim.Answer) string {
	from := j.mono.When(j.local(a.At) - a.Age)
	if j.lock.currentWithin(a.Holder, a.Token, from, a.At) {
		return ""
	}
	return fmt.Sprintf("no live record of %q with token %d was the lock object's content between %v (the observation it states, %v before the answer on its clock) and the answer",
		a.Holder, a.Token, from, a.Age)
}

// observed is the record the node's incarnation inc last observed by at:
// the write its last successful request before at (a read, or a write of
// its own) showed, and that request.
func (j *answerJudge) observed(inc int, at time.Duration) (*lockWrite, *sim.S3Op) {
	for i := len(j.h.S3) - 1; i >= 0; i-- {
		op := &j.h.S3[i]
		if op.Node != j.node || op.Incarnation != inc || op.Return < 0 || op.Return > at || op.Status != 200 || op.TornBodyETag != "" || j.rereads[op] {
			continue
		}
		switch op.Op {
		case "PutObject":
			w, _ := j.lock.latest(op.BodyETag, op.Return)
			return w, op
		case "GetObject":
			w, _ := j.lock.latest(op.ETag, op.Return)
			return w, op
		}
	}
	return nil, nil
}

// newLeader judges a, a call of OnNewLeader: it names the holder of the
// live record the node last observed, and that record is not older than
// the one the call before it (prev, of the same incarnation) named
// unless written again since. It returns why the call is wrong, or "",
// and the write it names.
func (j *answerJudge) newLeader(a *sim.Answer, prev *lockWrite) (string, *lockWrite) {
	w, op := j.observed(a.Incarnation, a.At)
	switch {
	case op == nil:
		return "the node had observed no record", nil
	case w == nil || !w.record:
		return fmt.Sprintf("the node's last observation, the %s answered at %v, showed no record", op.Op, op.Return), nil
	case w.released || w.holder != a.Holder:
		return fmt.Sprintf("the node's last observation, the %s answered at %v, showed the %s record of %q (token %d)",
			op.Op, op.Return, liveness(w), w.holder, w.token), w
	case prev != nil && w != prev && w.op.Return >= 0 && w.op.Return < prev.op.Call:
		return fmt.Sprintf("it goes back to the record of %q with token %d, written by %v, before the record of %q with token %d it named last was written at %v",
			w.holder, w.token, w.op.Return, prev.holder, prev.token, prev.op.Call), w
	}
	return "", w
}

// liveness says whether w's record is live or released.
func liveness(w *lockWrite) string {
	if w.released {
		return "released"
	}
	return "live"
}
