package sim

import "time"

// Report is a broken rule that a node's own code reported (Env.Report):
// a property of the candidate that only code inside it can observe, as
// the production elector's declared state machine, which the harness's
// Metrics hooks in its configuration hold it to. The simulator stamps it
// with the reporting node, its incarnation and the true time; the
// harness judges every report a violation of the checker it names, which
// no fault excuses.
type Report struct {
	// Node and Incarnation are the reporting node and its incarnation.
	Node, Incarnation int
	// At is the true time of the report.
	At time.Duration
	// Checker names the rule broken; Message says how, in words.
	Checker, Message string
}

// report is the Env.Report of node n's incarnation inc: it records the
// report in the run's result. It draws no choice and writes no trace
// event, so a run that reports nothing is the run it would be without
// it.
func (n *Node) report(inc int) func(checker, message string) {
	return func(checker, message string) {
		w := n.w
		w.enter()
		w.reports = append(w.reports, Report{Node: n.Index, Incarnation: inc, At: w.now, Checker: checker, Message: message})
		w.leave()
	}
}
