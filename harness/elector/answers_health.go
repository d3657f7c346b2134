package elector

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// healthy judges a, an answer of Healthy(a.Tolerance), against
// protocol.Elector.Healthy's definition of stuck, as the history shows
// it: a term whose OnStartedLeading (sim.Term.Returned) still runs
// more than the tolerance after the term's local deadline (the term not
// over, or its application ignoring its end), or a Run that made no
// progress for longer than LeaseDuration plus the tolerance (its node did
// not run: a pause, a stall). It must fail when a term's callback is
// surely stuck past the tolerance and a grace (a RetryPeriod) on the
// node's clock, while Run still runs (no stop since the incarnation
// began), and may fail only when one of those conditions holds within the
// grace. It returns why the answer is wrong, or "".
func (j *answerJudge) healthy(a *sim.Answer) string {
	now, grace := j.local(a.At), j.s.RetryPeriod
	var stuck, may string
	for _, t := range j.h.Terms {
		if t.Node != j.node || t.Incarnation != a.Incarnation || t.Start > a.At {
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
		over := now - d.local
		mayOver := over // the most the node may have seen: see deadlineBefore
		if b, ok := at.deadlineBefore(a.At); ok {
			mayOver = max(over, now-b.local)
		}
		returned := t.Returned
		if t.Open {
			returned = j.h.End + 1
		}
		if returned > a.At && over > a.Tolerance+grace && !j.stoppedBy(a.At) {
			stuck = fmt.Sprintf("the application of term %d had not returned %v after the term's local deadline on the node's clock", t.Token, over)
		}
		if j.finishing(t, a.At, grace) {
			returned = max(returned, a.At)
		}
		if returned+grace >= a.At && mayOver > a.Tolerance-grace {
			may = "a term's application ran past its deadline"
		}
	}
	if !a.Yes {
		if may != "" || j.stalled(a, now, grace) {
			return ""
		}
		return fmt.Sprintf("the elector was not stuck: no term's application ran %v past its deadline, and the node ran within %v (its lease) of the answer",
			a.Tolerance, j.s.LeaseDuration+a.Tolerance)
	}
	if stuck != "" {
		return stuck + ", more than the tolerance and a grace of " + grace.String()
	}
	return ""
}

// stalled reports whether the node did not run (a pause, a stall) until
// within grace of a, from an instant at which Run may have made its last
// progress (lastActive) more than LeaseDuration plus the tolerance, less
// grace, before a (on its clock): Run could make no progress meanwhile.
func (j *answerJudge) stalled(a *sim.Answer, now, grace time.Duration) bool {
	var ps []sim.FaultSpan
	for _, f := range j.h.Faults {
		if f.Node == j.node && pauseKind(f.Kind) {
			ps = append(ps, f)
		}
	}
	for _, p := range sim.MergeSpans(ps) {
		if p.From <= a.At && p.To+grace >= a.At && now-j.local(j.lastActive(p.From, a.Incarnation)) > j.s.LeaseDuration+a.Tolerance-grace {
			return true
		}
	}
	return false
}

// lastActive is the last instant, at or before at, at which the node's
// incarnation inc sent an S3 request or received an answer: Run marks
// progress when a call or a wait ends, and a wait ends in a request, so
// Run may have made none since (it was waiting when the pause came).
func (j *answerJudge) lastActive(at time.Duration, inc int) time.Duration {
	last := time.Duration(0)
	for i := range j.h.S3 {
		op := &j.h.S3[i]
		if op.Node != j.node || op.Incarnation != inc || op.Call > at {
			continue
		}
		last = max(last, op.Call)
		if op.Return >= 0 && op.Return <= at {
			last = max(last, op.Return)
		}
	}
	return min(last, at)
}

// pauseKind reports whether a fault of kind stops the node's process.
func pauseKind(kind string) bool {
	switch kind {
	case sim.FaultPause.String(), sim.FaultAnswerPause.String(), sim.FaultPauseBeforeWrite.String(), sim.FaultClockStall.String():
		return true
	}
	return false
}

// stoppedBy reports whether the node's incarnation that runs at at was
// stopped by then: its Run has returned, or is returning, and an
// elector whose Run is not running is healthy.
func (j *answerJudge) stoppedBy(at time.Duration) bool {
	stopped := false
	for _, f := range j.h.Faults {
		if f.Node != j.node || f.From > at {
			continue
		}
		switch f.Kind {
		case "stop":
			stopped = true
		case "restart", "crash":
			stopped = false
		}
	}
	return stopped
}

// finishing reports whether Run may still have been finishing term t at
// at: a request of its incarnation sent after the term ended, within a
// lease of its end (a release, the read that checks it), was still
// without its answer within grace of at. Until Run has finished the term
// the elector counts it as not over (protocol.Elector.Healthy).
func (j *answerJudge) finishing(t sim.Term, at, grace time.Duration) bool {
	if t.Open {
		return false
	}
	for i := range j.h.S3 {
		op := &j.h.S3[i]
		if op.Node == j.node && op.Incarnation == t.Incarnation && op.Call >= t.End && op.Call <= min(at, t.End+j.s.LeaseDuration) &&
			(op.Return < 0 || op.Return+grace >= at) {
			return true
		}
	}
	return false
}
