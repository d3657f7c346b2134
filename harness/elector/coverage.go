package elector

import (
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// The production elector's coverage: its transitions, in the order of
// protocol.Transitions(), and the kinds of S3 answer it got in each phase
// that sends a request (Answers), both reported by its Metrics hook.

// TransitionsSet and AnswersSet name the elector's coverage
// sets.
const (
	TransitionsSet = "elector transitions"
	AnswersSet     = "elector answers by phase"
)

// PhaseAnswer is a kind of S3 answer the elector got to a request it sent
// in a phase: Metrics.Request's Answer, in the phase of the elector's last
// transition before it.
type PhaseAnswer struct {
	Phase  protocol.Phase
	Answer protocol.Cause
}

// String renders the pair as "renewing: 412".
func (p PhaseAnswer) String() string { return p.Phase.String() + ": " + p.Answer.String() }

// Answers lists the answers the elector can get in each phase that
// sends a request: to its reads (following, and checking after a renewal
// or a release whose outcome was not a plain success) a record or no
// object, a 409, a 5xx, no answer or a refusal; to its writes (acquiring,
// renewing, releasing) also a 412, and a write that could not be sent.
func Answers() []PhaseAnswer { return append([]PhaseAnswer(nil), electorAnswers...) }

var electorAnswers = func() []PhaseAnswer {
	reads := []protocol.Cause{protocol.CauseOK, protocol.CauseConflict, protocol.CauseNotFound,
		protocol.CauseServerError, protocol.CauseNoAnswer, protocol.CauseRefused}
	writes := []protocol.Cause{protocol.CauseOK, protocol.CausePreconditionFailed, protocol.CauseConflict, protocol.CauseNotFound,
		protocol.CauseServerError, protocol.CauseNoAnswer, protocol.CauseRefused, protocol.CauseNotSent}
	var out []PhaseAnswer
	for _, ph := range []protocol.Phase{protocol.PhaseReading, protocol.PhaseAwaitingExpiry, protocol.PhaseAcquiring,
		protocol.PhaseRenewing, protocol.PhaseCheckingRenewal, protocol.PhaseReleasing, protocol.PhaseCheckingRelease} {
		causes := reads
		switch ph {
		case protocol.PhaseAcquiring, protocol.PhaseRenewing, protocol.PhaseReleasing:
			causes = writes
		}
		for _, c := range causes {
			out = append(out, PhaseAnswer{ph, c})
		}
	}
	return out
}()

// Coverage is the production elector's coverage, as Protocol
// declares it: its transitions (TransitionsSet, point i is
// protocol.Transitions()[i]) and the answers it got by phase
// (AnswersSet, point i is Answers()[i]).
func Coverage() []harness.CoverageSet { return append([]harness.CoverageSet(nil), coverage...) }

var electorTransitions = protocol.Transitions()

var coverage = func() []harness.CoverageSet {
	ts := harness.CoverageSet{Name: TransitionsSet}
	for _, t := range electorTransitions {
		ts.Points = append(ts.Points, t.String())
	}
	as := harness.CoverageSet{Name: AnswersSet}
	for _, a := range electorAnswers {
		as.Points = append(as.Points, a.String())
	}
	return []harness.CoverageSet{ts, as}
}()

// electorIndex maps a transition and a (phase, answer) pair to its point:
// the table spans the phases and causes protocol.Transitions() uses; -1
// marks pairs that are no point.
var electorIndex = func() (ix struct {
	phases, causes int
	transitions    []int16
	answers        []int16
}) {
	for _, t := range electorTransitions {
		ix.phases = max(ix.phases, int(t.From)+1, int(t.To)+1)
		ix.causes = max(ix.causes, int(t.Cause)+1)
	}
	for _, a := range electorAnswers {
		ix.phases = max(ix.phases, int(a.Phase)+1)
		ix.causes = max(ix.causes, int(a.Answer)+1)
	}
	ix.transitions = make([]int16, ix.phases*ix.causes*ix.phases)
	ix.answers = make([]int16, ix.phases*ix.causes)
	for i := range ix.transitions {
		ix.transitions[i] = -1
	}
	for i := range ix.answers {
		ix.answers[i] = -1
	}
	for i, t := range electorTransitions {
		ix.transitions[(int(t.From)*ix.causes+int(t.Cause))*ix.phases+int(t.To)] = int16(i)
	}
	for i, a := range electorAnswers {
		ix.answers[int(a.Phase)*ix.causes+int(a.Answer)] = int16(len(electorTransitions) + i)
	}
	return ix
}()

// electorTransition is the point of transition t in TransitionsSet,
// or -1 if protocol.Transitions() does not declare it.
func electorTransition(t protocol.Transition) int {
	ix := &electorIndex
	if int(t.From) < ix.phases && int(t.Cause) < ix.causes && int(t.To) < ix.phases {
		return int(ix.transitions[(int(t.From)*ix.causes+int(t.Cause))*ix.phases+int(t.To)])
	}
	return -1
}

// electorCover watches one incarnation of the elector through its Metrics
// hooks, which Config installs: it marks its transitions and answers in
// the run's coverage (set, nil if the protocol declares none), and reports
// its first undeclared transition (TransitionsCheck) through report (the
// node's Env.Report, nil outside a run).
type electorCover struct {
	set      *sim.Coverage
	report   func(checker, message string)
	phase    protocol.Phase
	reported bool
}

// transition is Metrics.Transition: it marks the transition, or reports
// it if it is undeclared, and notes the phase it leads to.
func (c *electorCover) transition(t protocol.Transition) {
	c.phase = t.To
	i := electorTransition(t)
	if i < 0 {
		c.undeclared(t)
		return
	}
	c.set.Hit(i)
}

// request is Metrics.Request: it marks the answer in the current phase.
func (c *electorCover) request(r protocol.Request) {
	ix := &electorIndex
	if int(c.phase) < ix.phases && int(r.Answer) < ix.causes {
		c.set.Hit(int(ix.answers[int(c.phase)*ix.causes+int(r.Answer)]))
	}
}

// withHooks adds to cfg the Metrics hooks of an electorCover for env's
// coverage and reports, keeping any hooks cfg has: Transition always,
// Request if the run declares coverage.
func withHooks(cfg *protocol.Config, env sim.Env) {
	c := &electorCover{set: env.Coverage, report: env.Report}
	m := &cfg.Metrics
	if prev := m.Transition; prev != nil {
		m.Transition = func(t protocol.Transition) { c.transition(t); prev(t) }
	} else {
		m.Transition = c.transition
	}
	if env.Coverage == nil {
		return
	}
	if prev := m.Request; prev != nil {
		m.Request = func(r protocol.Request) { c.request(r); prev(r) }
	} else {
		m.Request = c.request
	}
}
