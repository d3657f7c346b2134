package harness

import (
	"errors"
	"fmt"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Outcome is one judged run.
type Outcome struct {
	Scenario string
	Seed     uint64
	Verdict  Verdict
	// Violations are what decided an Unsafe or Stuck verdict.
	Violations []linearizability.Violation
	// Outside lists how the run left the protocol's assumptions; Expected
	// are the violations that this permits (overlaps, reused tokens),
	// reported but not counted.
	Outside  []string
	Expected []linearizability.Violation
	// Overlaps are the intervals in which two nodes both led.
	Overlaps []linearizability.Overlap
	// S3 is the linearizability check of the run's S3 history.
	S3     linearizability.S3Result
	Plan   *faults.Plan
	Result *sim.Result
}

// RunSeed runs scenario sc with seed and judges the result. keepTrace keeps
// every trace event (for replay); the hash is always computed.
func RunSeed(sc Scenario, seed uint64, keepTrace bool) (*Outcome, error) {
	o, err := RunSetup(sc.Build(seed), keepTrace)
	if o != nil {
		o.Scenario, o.Seed = sc.Name, seed
	}
	return o, err
}

// ErrInvalidSetup is wrapped by the errors RunSetup returns for a Setup it
// cannot run.
var ErrInvalidSetup = errors.New("harness: invalid setup")

// RunSetup runs one prepared run and judges it. The nodes run
// s.Protocol.Candidate; a Setup whose Config names a candidate of its own is
// refused, so that the protocol judged is always the protocol run.
func RunSetup(s Setup, keepTrace bool) (*Outcome, error) {
	if s.Config.Candidate != nil {
		return nil, fmt.Errorf("%w: Config.Candidate is set; the candidate is the protocol's (Setup.Protocol.Candidate) and is set by RunSetup", ErrInvalidSetup)
	}
	if s.Protocol.Candidate == nil {
		return nil, fmt.Errorf("%w: protocol %q has no candidate", ErrInvalidSetup, s.Protocol.Name)
	}
	cfg := s.Config
	cfg.Candidate = s.Protocol.Candidate
	cfg.KeepTrace = keepTrace
	plan := s.Plan
	if plan == nil {
		plan = &faults.Plan{}
	}
	if err := faults.Apply(plan, &cfg); err != nil {
		return nil, err
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Seed: cfg.Seed, Plan: plan, Result: res, Outside: plan.Outside(s.Protocol.Assumptions)}
	if res.Failure != nil {
		o.Verdict = Crashed
		if res.Failure.Kind == sim.FailureBlocked {
			o.Verdict = Blocked
		}
		return o, nil
	}
	judge(o, s.Protocol, plan)
	return o, nil
}

// judge applies the checkers and the assumptions to a finished run.
func judge(o *Outcome, p Protocol, plan *faults.Plan) {
	h := o.Result.History
	var found []linearizability.Violation
	if !p.NoFencingTokens {
		found = linearizability.CheckElection(h)
	}
	o.S3 = linearizability.CheckS3(h, S3CheckTimeout)
	o.Overlaps = linearizability.Overlaps(h)
	overlaps := linearizability.OverlapViolations(o.Overlaps)
	if len(o.Outside) == 0 {
		o.Violations = append(found, overlaps...)
	} else {
		for _, v := range found {
			if v.Checker == "fencing" && v.Rule != linearizability.RuleSharedEpoch {
				o.Violations = append(o.Violations, v)
			} else {
				o.Expected = append(o.Expected, v)
			}
		}
		o.Expected = append(o.Expected, overlaps...)
	}
	if o.S3.Result == porcupine.Illegal {
		// The S3 the protocol talked to did not behave as one object store
		// (a fault outside S3's semantics, or a simulator bug): under any
		// assumptions the run proves nothing about the protocol.
		o.Violations = append(o.Violations, linearizability.Violation{Checker: "s3-linearizable", At: h.End,
			Message: fmt.Sprintf("the history of %d S3 requests is not linearizable against the object-store model", o.S3.Ops)})
	}
	if len(o.Violations) > 0 {
		o.Verdict = Unsafe
		return
	}
	if p.LivenessBound <= 0 {
		if o.S3.Result == porcupine.Unknown {
			o.Verdict = Inconclusive
		}
		return // the protocol promises no bound: liveness is not judged
	}
	if v := linearizability.CheckLiveness(h, plan.HealAt.D(), p.LivenessBound); len(v) > 0 {
		o.Violations = v
		o.Verdict = Stuck
		return
	}
	if o.S3.Result == porcupine.Unknown {
		o.Verdict = Inconclusive
	}
}
