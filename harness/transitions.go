package harness

import (
	"fmt"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TransitionsCheck names the violations of the production elector's
// declared state machine: a transition it reported (Metrics.Transition)
// that protocol.Transitions() does not list. The elector's phases and what
// moves it between them are its own code's, whatever the faults do to its
// clocks, its process and its S3 answers, so these violations are never
// excused and make a run Unsafe. The hooks that ElectorSettings.Config
// installs report the first such transition of each incarnation through
// the node's sim.Env.Report; the judge reads them from the run's
// sim.Result.Reports.
const TransitionsCheck = "transitions"

// undeclared reports t, which protocol.Transitions() does not declare, if
// it is the incarnation's first.
func (c *electorCover) undeclared(t protocol.Transition) {
	if c.reported || c.report == nil {
		return
	}
	c.reported = true
	c.report(TransitionsCheck, fmt.Sprintf("took the transition %v, which protocol.Transitions() does not declare", t))
}

// reportedViolations are the violations the nodes' own code reported
// (sim.Result.Reports): each of the checker it names, at the instant it
// was reported, which nothing excuses.
func reportedViolations(rs []sim.Report) []linearizability.Violation {
	if len(rs) == 0 {
		return nil
	}
	out := make([]linearizability.Violation, 0, len(rs))
	for _, r := range rs {
		out = append(out, linearizability.Violation{Checker: r.Checker, At: r.At, Nodes: []int{r.Node},
			Message: fmt.Sprintf("node %d, incarnation %d, at %v: %s", r.Node, r.Incarnation, r.At, r.Message)})
	}
	return out
}
