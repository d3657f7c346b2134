package elector

import (
	"fmt"

	"github.com/s3lease/s3lease/protocol"
)

// TransitionsCheck names the violations of the production elector's
// declared state machine: a transition it reported (Metrics.Transition)
// that protocol.Transitions() does not list. The elector's phases and what
// moves it between them are its own code's, whatever the faults do to its
// clocks, its process and its S3 answers, so these violations are never
// excused and make a run Unsafe. The hooks that Settings.Config
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
