package harness

import (
	"errors"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Outcome is one judged run.
type Outcome struct {
	Scenario string
	Seed     uint64
	Verdict  Verdict
	// Violations are what decided an Unsafe or Liveness verdict: every
	// violation no fault outside the assumptions accounts for.
	Violations []linearizability.Violation
	// Outside lists how the run left the protocol's assumptions (the Why
	// of each excuse); Excuses are those departures and what each may
	// account for; Excused are the violations they account for, reported
	// with their excuse and not counted.
	Outside []string
	Excuses []Excuse
	Excused []Excused
	// FailOutside: the run was judged with Setup.FailOutside, and
	// FailedOutside are the overlaps of leaders it counted for it (each
	// also among Violations, with the excuses that would have excused
	// it).
	FailOutside   bool
	FailedOutside []Excused
	// NoFencingTokens: the protocol declares no fencing tokens
	// (Protocol.NoFencingTokens), so it was judged by overlaps alone.
	NoFencingTokens bool
	// lineage is the lineage of the lock object's content from the run's
	// foreign writes (nil if it had none), by which token violations are
	// excused.
	lineage *lineage
	// Overlaps are the intervals in which two nodes both led.
	Overlaps []linearizability.Overlap
	// S3 is the linearizability check of the run's S3 history.
	S3     linearizability.S3Result
	Plan   *faults.Plan
	Result *sim.Result
	// Coverage names the run's coverage points: its protocol's sets
	// (Protocol.Coverage), then the harness's (RunShapes); Reached holds
	// those the run reached, numbered across the sets in that order: the
	// protocol's as its candidate marked them (Result.Coverage), then the
	// run shapes, marked once the run was judged.
	Coverage []CoverageSet
	Reached  sim.Coverage
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
// s.Protocol.Candidate, with the protocol's lock object key and S3 client
// timeout if it states them; a Setup whose Config names a candidate of its
// own is refused, so that the protocol judged is always the protocol run. A
// plan that gives the nodes settings or identities the protocol's own
// configuration refuses is refused too (ErrBadPlan), rather than run with
// nodes that cannot start and judged as the protocol's failure.
func RunSetup(s Setup, keepTrace bool) (*Outcome, error) {
	if s.Config.Candidate != nil {
		return nil, fmt.Errorf("%w: Config.Candidate is set; the candidate is the protocol's (Setup.Protocol.Candidate) and is set by RunSetup", ErrInvalidSetup)
	}
	if s.Protocol.Candidate == nil {
		return nil, fmt.Errorf("%w: protocol %q has no candidate", ErrInvalidSetup, s.Protocol.Name)
	}
	cfg := s.Config
	cfg.KeepTrace = keepTrace
	plan := s.Plan
	if plan == nil {
		plan = &faults.Plan{}
	}
	p, err := Configured(s.Protocol, plan, cfg.Nodes)
	if err != nil {
		return nil, err
	}
	if err := checkIdentities(p, plan, &cfg); err != nil {
		return nil, err
	}
	cfg.Candidate = p.Candidate
	if p.Key != "" {
		cfg.Key = p.Key
	}
	if p.S3ClientTimeout > 0 {
		cfg.S3ClientTimeout = p.S3ClientTimeout
	}
	if err := checkCoverage(p.Coverage); err != nil {
		return nil, err
	}
	sets, own := coverageOf(p)
	cfg.Coverage = own
	if err := faults.ApplyEncoded(plan, &cfg, p.EncodeRecord); err != nil {
		return nil, err
	}
	res, err := sim.Run(cfg)
	if err != nil {
		return nil, err
	}
	if p := cfg.Phases; p != nil {
		// The checkers' share, for the measurement of phases.
		begun := p.Since()
		defer func() { p.Checkers += p.Since() - begun }()
	}
	o := &Outcome{Seed: cfg.Seed, Plan: plan, Result: res, Coverage: sets, Reached: sim.NewCoverage(own + len(runShapes.Points)),
		FailOutside: s.FailOutside, NoFencingTokens: p.NoFencingTokens}
	o.Reached.Add(res.Coverage)
	if ex, ok := cfg.Chooser.(*sim.Explorer); ok && ex.StoppedEarly() {
		return o, nil // cut short by an exploration as equivalent to a run explored: nothing to judge
	}
	defer markShapes(&o.Reached, own, o, p.Assumptions.Lease)
	defer judging.Judging(res.History)()
	if res.History != nil {
		o.Excuses, o.lineage = excuses(p, plan, res.History)
		for _, e := range o.Excuses {
			if !slices.Contains(o.Outside, e.Why) {
				o.Outside = append(o.Outside, e.Why)
			}
		}
	}
	if res.Failure != nil {
		o.Verdict = Crashed
		if res.Failure.Kind == sim.FailureBlocked {
			o.Verdict = Blocked
		}
		return o, nil
	}
	clocks := make([]sim.ClockModel, cfg.Nodes)
	copy(clocks, cfg.Clocks)
	judge(o, p, plan, plan.ClockModels(clocks), s.Audit, s.Watermarks)
	return o, nil
}

// pace is p.Pace for every node of h, each with its clock model (a perfect
// clock where clocks gives none).
func pace(p Protocol, h *sim.History, clocks []sim.ClockModel) []linearizability.Violation {
	if p.Pace == nil {
		return nil
	}
	var out []linearizability.Violation
	for node := range h.Nodes {
		var c sim.ClockModel
		if node < len(clocks) {
			c = clocks[node]
		}
		out = append(out, p.Pace(h, node, c)...)
	}
	return out
}

// answers is p.Answers for every node of h, each with its clock model (a
// perfect clock where clocks gives none): the wrong answers and the slow.
func answers(p Protocol, h *sim.History, clocks []sim.ClockModel) (wrong, slow []linearizability.Violation) {
	if p.Answers == nil || len(h.Answers) == 0 {
		return nil, nil
	}
	for node := range h.Nodes {
		var c sim.ClockModel
		if node < len(clocks) {
			c = clocks[node]
		}
		w, s := p.Answers(h, node, c)
		wrong, slow = append(wrong, w...), append(slow, s...)
	}
	return wrong, slow
}

// judge applies the checkers and the assumptions to a finished run: every
// violation is either excused by a fault outside the assumptions that can
// account for it (Excuse) or counted; liveness is judged from the instant
// the faults really ended.
func judge(o *Outcome, p Protocol, plan *faults.Plan, clocks []sim.ClockModel, audit func(*sim.Result) []linearizability.Violation,
	watermarks func(*sim.Result) linearizability.WatermarkHistory) {
	h := o.Result.History
	var found []linearizability.Violation
	if !p.NoFencingTokens {
		found = linearizability.CheckElection(h)
		found = append(found, linearizability.CheckLeaseChecks(h)...)
	}
	found = append(found, initialRecord(p, plan, h)...)
	if p.AuditWrites != nil {
		found = append(found, p.AuditWrites(h, p.Node)...)
	}
	wrongAnswers, slowAnswers := answers(p, h, clocks)
	found = append(found, wrongAnswers...)
	if audit != nil {
		found = append(found, audit(o.Result)...)
	}
	if watermarks != nil {
		found = append(found, o.lineage.checkWatermarks(h, watermarks(o.Result))...)
	}
	if S3PorcupineEvery > 0 && o.Seed%S3PorcupineEvery == 0 {
		o.S3 = linearizability.CheckS3Porcupine(h, S3CheckTimeout)
	} else {
		o.S3 = linearizability.CheckS3(h, S3CheckTimeout)
	}
	// What the token checkers find within a lineage's terms that the
	// whole history's first violation hid.
	if !p.NoFencingTokens {
		found = append(found, o.lineage.extra(found)...)
	}
	o.Overlaps = linearizability.Overlaps(h)
	heal := healedAt(plan, h)
	classify := func(v linearizability.Violation, ov *linearizability.Overlap) {
		es := excusesFor(v, ov, staleGrant(v, h), o.Excuses, o.lineage, h)
		switch {
		case len(es) > 0 && ov != nil && o.FailOutside:
			v.Rule = RuleOutside
			v.Message += " (outside the assumptions, failed by fail-outside: " + Excused{Excuses: es}.Why() + ")"
			o.FailedOutside = append(o.FailedOutside, Excused{Violation: v, Excuses: es})
		case len(es) > 0:
			o.Excused = append(o.Excused, Excused{Violation: v, Excuses: es})
			return
		}
		o.Violations = append(o.Violations, v)
	}
	for _, v := range found {
		classify(v, nil)
	}
	for i, v := range linearizability.OverlapViolations(o.Overlaps) {
		classify(v, &o.Overlaps[i])
	}
	// What the nodes' own code reported broken (sim.Env.Report): a rule
	// of the code itself, which no fault excuses.
	o.Violations = append(o.Violations, reportedViolations(o.Result.Reports)...)
	if o.S3.Result == porcupine.Illegal {
		// The S3 the protocol talked to did not behave as one object store
		// (a fault outside S3's semantics, or a simulator bug): under any
		// assumptions the run proves nothing about the protocol.
		o.Violations = append(o.Violations, linearizability.Violation{Checker: "s3-linearizable", At: h.End,
			Message: fmt.Sprintf("the history of %d S3 requests is not linearizable against the object-store model", o.S3.Ops)})
	}
	if err := o.S3.Disagreement(); err != nil {
		// The fast checker and porcupine judged one history differently: a
		// bug in the harness, which no run may pass over.
		o.Violations = append(o.Violations, linearizability.Violation{Checker: "s3-checkers-agree", At: h.End, Message: err.Error()})
	}
	if len(o.Violations) > 0 {
		o.Verdict = Unsafe
		return
	}
	if v := linearizability.CheckRequestRate(h, p.RequestRateOf); len(v) > 0 {
		o.Violations = v
		o.Verdict = Liveness
		return
	}
	if v := append(pace(p, h, clocks), slowAnswers...); len(v) > 0 {
		o.Violations = v
		o.Verdict = Liveness
		return
	}
	if p.LivenessBound <= 0 {
		if o.S3.Result == porcupine.Unknown {
			o.Verdict = Inconclusive
		}
		return // the protocol promises no bound: liveness is not judged
	}
	if v := linearizability.CheckLiveness(h, heal, p.LivenessBound); len(v) > 0 {
		o.Violations = v
		o.Verdict = Liveness
		return
	}
	if o.S3.Result == porcupine.Unknown {
		o.Verdict = Inconclusive
	}
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
