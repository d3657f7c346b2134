package elector

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// AnswerCheck is the checker of what the elector tells its application
// and its operators (sim.History.Answers, harness.Protocol.Answers); its
// rules are the RuleAnswer constants.
const AnswerCheck = harness.AnswerCheck

// The rules of AnswerCheck.
const (
	// RuleAnswerLease: IsLeader, Lease or Leader().Self said yes only
	// inside a term of the node's own, before its local deadline, under
	// that term's token. Unsafe: an application acts on the yes.
	RuleAnswerLease = "lease"
	// RuleAnswerLeader: Leader() named a holder, with a token, whose record
	// was the lock object's content within the age it stated. Unsafe: a
	// contract the answer states broke (a request routed to a holder that
	// had released, a decision on a stale leader that claims to be fresh).
	RuleAnswerLeader = "leader"
	// RuleAnswerNewLeader: OnNewLeader named the holder of the record the
	// node had just observed, and never went back to a record older than
	// the one it last named unless that record became current again.
	// Unsafe, as Leader's.
	RuleAnswerNewLeader = "new-leader"
	// RuleAnswerHealthy: Healthy(tolerance) failed once the elector was
	// stuck past its tolerance, and only then (each with a grace of a
	// RetryPeriod for the definition's edges). Liveness: a wrong answer
	// keeps a stuck process alive, or restarts a working one.
	RuleAnswerHealthy = "healthy"
)

// Answers judges what node's elector, with settings s, told its
// application and operators (sim.History.Answers), against the rest of
// the history, on the node's clock as clock and the history's stalls make
// it: the rules RuleAnswerLease, RuleAnswerLeader and RuleAnswerNewLeader
// (wrong, Unsafe unless a fault outside the assumptions accounts for the
// answer on its node at its instant), and RuleAnswerHealthy (slow,
// Liveness).
func (s Settings) Answers(h *sim.History, node int, clock sim.ClockModel) (wrong, slow []linearizability.Violation) {
	asked := false
	for i := range h.Answers {
		if h.Answers[i].Node == node {
			asked = true
			break
		}
	}
	if !asked {
		return nil, nil
	}
	j := newAnswerJudge(s, h, node, clock)
	last := map[int]*lockWrite{} // the record each incarnation's last OnNewLeader named
	for i := range h.Answers {
		a := &h.Answers[i]
		if a.Node != node {
			continue
		}
		var why string
		rule := RuleAnswerLease
		switch a.Ask {
		case sim.AskIsLeader, sim.AskLease:
			if a.Yes {
				why = j.leads(a, a.Ask == sim.AskLease)
			}
		case sim.AskLeader:
			if a.Yes {
				why = j.leads(a, false)
			}
			if why == "" && a.Observed && a.Holder != "" {
				why, rule = j.leader(a), RuleAnswerLeader
			}
		case sim.AskNewLeader:
			rule = RuleAnswerNewLeader
			why, last[a.Incarnation] = j.newLeader(a, last[a.Incarnation])
		case sim.AskHealthy:
			if why := j.healthy(a); why != "" {
				slow = append(slow, answerViolation(RuleAnswerHealthy, a, why))
			}
			continue
		}
		if why != "" {
			wrong = append(wrong, answerViolation(rule, a, why))
		}
	}
	return wrong, slow
}

// answerViolation is a violation of rule by answer a.
func answerViolation(rule string, a *sim.Answer, why string) linearizability.Violation {
	return linearizability.Violation{Checker: AnswerCheck, Rule: rule, At: a.At, Nodes: []int{a.Node}, Token: a.Token,
		Message: fmt.Sprintf("n%d's %s answer at %v (%s): %s", a.Node, a.Ask, a.At, describeAnswer(a), why)}
}

// describeAnswer says what a answered.
func describeAnswer(a *sim.Answer) string {
	switch a.Ask {
	case sim.AskIsLeader:
		return "leads: " + yesNo(a.Yes)
	case sim.AskLease:
		if a.Yes {
			return fmt.Sprintf("leads under token %d", a.Token)
		}
		return "leads: no"
	case sim.AskLeader:
		return fmt.Sprintf("holder %q, token %d, self %v, observed %v ago", a.Holder, a.Token, a.Yes, a.Age)
	case sim.AskNewLeader:
		return fmt.Sprintf("new leader %q", a.Holder)
	}
	if a.Yes {
		return fmt.Sprintf("healthy within %v", a.Tolerance)
	}
	return fmt.Sprintf("unhealthy within %v: %s", a.Tolerance, a.Problem)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// answerJudge is what the answer rules of one node measure against: the
// node's clock, the terms its own writes gave it, and the records the
// lock object held.
type answerJudge struct {
	s     Settings
	h     *sim.History
	node  int
	mono  sim.MonoClock
	terms map[termKey][]*answeredTerm
	lock  *lockContents
	// reads are the node's reads that can end a term early (see endedBy),
	// listed once, on first use.
	reads     []endingRead
	readsDone bool
	// rereads are the reads the elector read again at once, and did not
	// act on.
	rereads rereads
}

// newAnswerJudge prepares the judge of node's answers.
func newAnswerJudge(s Settings, h *sim.History, node int, clock sim.ClockModel) *answerJudge {
	clock.Stalls = append([]sim.ClockStall(nil), clock.Stalls...)
	for _, f := range h.Faults {
		if f.Node == node && f.Kind == sim.FaultClockStall.String() {
			clock.Stalls = append(clock.Stalls, sim.ClockStall{At: f.From, For: f.To - f.From})
		}
	}
	j := &answerJudge{s: s, h: h, node: node, mono: clock.Mono(), lock: lockContentsOf(h), rereads: rereadsOf(h)}
	j.terms = j.termsOf()
	return j
}

// local is the node's monotonic reading at true time t (less its origin).
func (j *answerJudge) local(t time.Duration) time.Duration { return j.mono.Reading(t) }
