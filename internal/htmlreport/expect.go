package htmlreport

import "github.com/s3lease/s3lease/harness"

// expectation is what the page says about a scenario that runs a protocol
// broken on purpose (harness.Caught): that the failure on the page is the
// harness doing its job, or, for a run that passed, that the harness did
// not catch the mistake in this run.
type expectation struct {
	// Caught reports that the harness reported the run (any verdict but
	// pass, as simrun zoo counts it).
	Caught bool
	Text   string
}

// expectationOf returns the statement for outcome o of a scenario whose
// expectation is expect; nil unless expect is harness.Caught.
func expectationOf(expect harness.Expectation, o *harness.Outcome) *expectation {
	if expect != harness.Caught {
		return nil
	}
	switch o.Verdict {
	case harness.Pass:
		return &expectation{Caught: false, Text: "This protocol is broken on purpose, and the harness did NOT catch it in this run: every property held. Another seed may catch it; if none does, the harness has a blind spot."}
	case harness.Unsafe, harness.Liveness:
		return &expectation{Caught: true, Text: "This protocol is broken on purpose; the harness caught it. The failure below is the harness doing its job, not a bug in the production elector."}
	}
	return &expectation{Caught: true, Text: "This protocol is broken on purpose; the harness caught it, though not by a broken property: the run is " + o.Verdict.String() + "."}
}
