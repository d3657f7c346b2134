package scenarios

import (
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Verdict is the judgement of one run.
type Verdict int

const (
	// Pass: the run finished and every checker was satisfied.
	Pass Verdict = iota
	// Unsafe: a safety checker found a violation.
	Unsafe
	// Crashed: the run could not finish (a panic in protocol code, the
	// step budget exceeded).
	Crashed
)

// String names the verdict.
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Unsafe:
		return "unsafe"
	case Crashed:
		return "crashed"
	}
	return "unknown"
}

// Outcome is one judged run.
type Outcome struct {
	Scenario   string
	Seed       uint64
	Verdict    Verdict
	Violations []linearizability.Violation
	Result     *sim.Result
}

// RunSeed runs scenario sc with seed and judges the result. keepTrace keeps
// every trace event (for replay); the hash is always computed.
func RunSeed(sc Scenario, seed uint64, keepTrace bool) (*Outcome, error) {
	cfg := sc.Config(seed)
	cfg.KeepTrace = keepTrace
	res, err := sim.Run(cfg)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Scenario: sc.Name, Seed: seed, Result: res}
	if res.Failure != nil {
		o.Verdict = Crashed
		return o, nil
	}
	o.Violations = linearizability.CheckElection(res.History)
	if len(o.Violations) > 0 {
		o.Verdict = Unsafe
	}
	return o, nil
}
