package comparison

import (
	"fmt"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Judgement is the verdict of the checkers on one run's history.
type Judgement struct {
	Verdict harness.Verdict
	// Violations are what decided an Unsafe or Liveness verdict.
	Violations []linearizability.Violation
	// S3 is the linearizability check of the S3 history.
	S3 linearizability.S3Result
}

// Judge runs on h every checker harness.RunSetup runs on a simulated run:
// the election checkers (unique holder, monotonic tokens, fencing), the
// linearizability check of the S3 history (with harness.S3CheckTimeout),
// the overlap check and the liveness check with p's bound, measured from
// the start of the run. It judges as harness.RunSetup does a run whose plan
// has no faults: nothing left the assumptions, so every violation counts
// and none is excused. The tests hold it to harness.RunSetup's verdict on
// the simulator's runs.
func Judge(h *sim.History, p harness.Protocol) Judgement {
	var j Judgement
	if !p.NoFencingTokens {
		j.Violations = linearizability.CheckElection(h)
	}
	j.S3 = linearizability.CheckS3(h, harness.S3CheckTimeout)
	j.Violations = append(j.Violations, linearizability.OverlapViolations(linearizability.Overlaps(h))...)
	if j.S3.Result == porcupine.Illegal {
		j.Violations = append(j.Violations, linearizability.Violation{Checker: "s3-linearizable", At: h.End,
			Message: fmt.Sprintf("the history of %d S3 requests is not linearizable against the object-store model", j.S3.Ops)})
	}
	switch {
	case len(j.Violations) > 0:
		j.Verdict = harness.Unsafe
		return j
	case p.LivenessBound > 0:
		// Without faults, the heal is the start of the run.
		if v := linearizability.CheckLiveness(h, 0, p.LivenessBound); len(v) > 0 {
			j.Violations, j.Verdict = v, harness.Liveness
			return j
		}
	}
	if j.S3.Result == porcupine.Unknown {
		j.Verdict = harness.Inconclusive
	}
	return j
}
