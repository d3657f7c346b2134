package htmlreport

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/sim"
)

// The election history, as porcupine checks and draws it: every term of
// the run becomes two operations of its node, "leads with token T" at the
// instant the application was told it leads and "steps down" at the
// instant it saw its term end (none for a term still open at the end of
// the run), each an instant of true time. The model is a register of the
// leadership: who leads with which token, and the highest token handed
// out so far. A node may start leading only with a token higher than every
// token before (for a protocol that hands out tokens) and, but for runs
// that left the protocol's assumptions, only while no one else leads; it
// steps down only from a term it holds. So an overlap of two leaders,
// a token used twice and a token lower than an earlier one make the history
// illegal, and porcupine shows where. Each term is also drawn as a bar in
// the colour of its token, on its node's row between its two operations.
//
// This is the strict reading: the harness's own checkers, which excuse
// violations that a fault outside the assumptions accounts for, decide the
// verdict.

// electionKind is what an election operation records.
type electionKind uint8

const (
	electionLeads electionKind = iota
	electionStepsDown
)

// electionInput is one operation of the election history: porcupine's
// Input. Operations have no output.
type electionInput struct {
	kind  electionKind
	node  int
	token uint64
}

// electionLeader is one node leading with a token.
type electionLeader struct {
	node  int
	token uint64
}

// electionState is the register: who leads (sorted by node, then token),
// and the highest token handed out. States are values: Step copies.
type electionState struct {
	leaders []electionLeader
	highest uint64
}

// electionRules are what the model enforces.
type electionRules struct {
	// tokens: every term's token must be higher than every earlier one.
	tokens bool
	// overlaps: leaders may overlap (the run left the assumptions); only
	// the tokens are checked.
	overlaps bool
}

// model is the register as a porcupine model.
func (r electionRules) model() porcupine.Model {
	return porcupine.Model{
		Init:                      func() any { return electionState{} },
		Step:                      r.step,
		Equal:                     electionEqual,
		DescribeOperation:         describeElectionOperation,
		DescribeState:             describeElectionState,
		DescribeOperationMetadata: func(info any) string { s, _ := info.(string); return s },
	}
}

func (r electionRules) step(state, input, _ any) (bool, any) {
	s, in := state.(electionState), input.(*electionInput)
	me := electionLeader{in.node, in.token}
	switch in.kind {
	case electionLeads:
		if r.tokens && in.token <= s.highest && s.highest > 0 {
			return false, s
		}
		if !r.overlaps && len(s.leaders) > 0 {
			return false, s
		}
		leaders := append(slices.Clone(s.leaders), me)
		slices.SortFunc(leaders, func(a, b electionLeader) int {
			return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.token, b.token))
		})
		return true, electionState{leaders: leaders, highest: max(s.highest, in.token)}
	default:
		i := slices.Index(s.leaders, me)
		if i < 0 {
			return false, s
		}
		return true, electionState{leaders: slices.Delete(slices.Clone(s.leaders), i, i+1), highest: s.highest}
	}
}

func electionEqual(a, b any) bool {
	x, y := a.(electionState), b.(electionState)
	return x.highest == y.highest && slices.Equal(x.leaders, y.leaders)
}

func describeElectionOperation(input, _ any) string {
	in := input.(*electionInput)
	if in.kind == electionLeads {
		return fmt.Sprintf("n%d leads, token %d", in.node, in.token)
	}
	return fmt.Sprintf("n%d steps down", in.node)
}

func describeElectionState(state any) string {
	s := state.(electionState)
	var b strings.Builder
	if len(s.leaders) == 0 {
		b.WriteString("no leader")
	}
	for i, l := range s.leaders {
		if i > 0 {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "n%d (token %d)", l.node, l.token)
	}
	switch len(s.leaders) {
	case 1:
		b.WriteString(" leads")
	case 0:
	default:
		b.WriteString(" lead")
	}
	if s.highest > 0 {
		b.WriteString("; highest token " + strconv.FormatUint(s.highest, 10))
	}
	return b.String()
}

// termText is a term in words, for a tooltip.
func termText(t sim.Term) string {
	end := "to " + secs(t.End) + " (" + secs(t.End-t.Start) + ")"
	if t.Open {
		end = "to the end of the run (still leading)"
	}
	return fmt.Sprintf("n%d (identity %q, incarnation %d) leads with token %d from %s %s",
		t.Node, t.Identity, t.Incarnation, t.Token, secs(t.Start), end)
}

// electionHistory is the election history of h as porcupine operations,
// and the terms as annotations: a bar on the node's row from when it
// began to lead to when it stepped down.
//
// An operation takes effect at one instant, but porcupine draws an
// operation of no length too narrow to read. So every instant t of true
// time becomes 4t, and an operation at t spans [4t, 4t+1]: no other
// instant lies inside, so the operations are ordered as their instants
// are (those at the same instant may go in either order), and each is
// wide enough for its words. A term's bar spans [4s+2, 4e-1], clear of
// both.
func electionHistory(h *sim.History) ([]porcupine.Operation, []porcupine.Annotation) {
	var ops []porcupine.Operation
	var bars []porcupine.Annotation
	op := func(t sim.Term, kind electionKind, at time.Duration, meta string) porcupine.Operation {
		return porcupine.Operation{ClientId: t.Node, Input: &electionInput{kind, t.Node, t.Token},
			Call: 4 * int64(at), Return: 4*int64(at) + 1, Metadata: meta}
	}
	for i, t := range h.Terms {
		meta := fmt.Sprintf("term %d: %s", i+1, termText(t))
		ops = append(ops, op(t, electionLeads, t.Start, meta))
		end := 4*int64(h.End) + 2
		if !t.Open {
			ops = append(ops, op(t, electionStepsDown, t.End, meta))
			end = 4*int64(t.End) - 1
		}
		if from := 4*int64(t.Start) + 2; end > from {
			bars = append(bars, porcupine.Annotation{
				ClientId: t.Node, Start: from, End: end,
				Description: "token " + strconv.FormatUint(t.Token, 10), Details: meta,
				TextColor: "#fff", BackgroundColor: tokenColor(t.Token),
			})
		}
	}
	return ops, bars
}

// electionCheck is the outcome of checking a run's election history.
type electionCheck struct {
	Result porcupine.CheckResult
	Rules  electionRules
	Terms  int
	info   porcupine.LinearizationInfo
}

// checkElection checks the terms of h against the register. The check
// gives up after timeout (Unknown): histories of a few hundred terms take
// milliseconds, as only terms that begin or end at the same instant can be
// ordered more than one way.
func checkElection(h *sim.History, outside bool, timeout time.Duration) electionCheck {
	rules := electionRules{overlaps: outside}
	for _, t := range h.Terms {
		rules.tokens = rules.tokens || t.Token != 0
	}
	ops, bars := electionHistory(h)
	res, info := porcupine.CheckOperationsVerbose(rules.model(), ops, timeout)
	info.AddAnnotations(bars)
	return electionCheck{Result: res, Rules: rules, Terms: len(h.Terms), info: info}
}

// visualize writes porcupine's page of the checked election history.
func (c electionCheck) visualize(w io.Writer) error {
	return porcupine.Visualize(c.Rules.model(), c.info, w)
}

// rulesText says what the check enforced, for the caption.
func (r electionRules) rulesText() string {
	var parts []string
	if !r.overlaps {
		parts = append(parts, "at most one leader at a time")
	}
	if r.tokens {
		parts = append(parts, "each new leader's token higher than every token before it")
	}
	if len(parts) == 0 {
		return "that each node steps down only from a term it holds (the run left the assumptions, which allows overlaps, and the protocol hands out no tokens)"
	}
	s := strings.Join(parts, ", and ")
	if r.overlaps {
		s += " (overlaps of leaders are not judged: the run left the protocol's assumptions)"
	}
	return s
}
