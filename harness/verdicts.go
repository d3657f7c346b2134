package harness

import (
	"fmt"
	"time"
)

// Verdict is the judgement of one run. Verdicts, their names, their order
// of severity and the exit status of each are defined here and nowhere
// else: every command, campaign and report asks a Verdict.
type Verdict int

const (
	// Pass: the run finished and every property held.
	Pass Verdict = iota
	// Unsafe: a safety property broke: inside the protocol's assumptions,
	// any checker or an overlap of leaders; outside them, a stale write
	// accepted or a current one refused by the fenced resource; under any
	// faults, a rule that nothing excuses (the records a node wrote,
	// Protocol.AuditWrites; a rule its own code reported broken,
	// sim.Env.Report).
	Unsafe
	// Liveness: the protocol did not make progress as it promised: no
	// leader, or no stable leader, once faults healed; or a node sent S3
	// requests faster than the protocol's own bound (Protocol.RequestRate:
	// a retry storm, which S3 throttles and bills).
	Liveness
	// Crashed: the run could not finish (a panic in protocol code, the step
	// budget exceeded).
	Crashed
	// Inconclusive: every property that could be judged held, but the
	// linearizability check of the S3 history timed out. Never a pass.
	Inconclusive
	// Blocked: code under simulation blocked on something the simulator
	// does not own (a bare channel, time.Sleep, a mutex held across a
	// simulated call) and the run could not go on. The protocol breaks the
	// harness's contract, so nothing about it could be judged.
	Blocked
	numVerdicts
)

// verdictInfo is everything about a verdict, in one table: its name, its
// exit status, and its rank (higher is worse).
var verdictInfo = [numVerdicts]struct {
	name string
	exit int
	rank int
}{
	Pass:         {"pass", 0, 0},
	Inconclusive: {"inconclusive", 5, 1},
	Liveness:     {"liveness", 3, 2},
	Blocked:      {"blocked", 6, 3},
	Crashed:      {"crashed", 4, 4},
	Unsafe:       {"unsafe", 1, 5},
}

// ExitUsage is the exit status of a command given bad input.
const ExitUsage = 2

// S3CheckTimeout bounds the porcupine check of one run's S3 history. Legal
// histories of the scenarios here take milliseconds; a check that runs out
// of time makes the run Inconclusive.
var S3CheckTimeout = 10 * time.Second

// S3PorcupineEvery makes porcupine, the general linearizability checker,
// check every run whose seed is a multiple of it, beside the fast checker
// that decides most runs (linearizability.CheckS3): a standing sample on
// which the two must agree. Porcupine also checks every run the fast
// checker finds illegal or cannot decide. 1 means every run; 0 none but
// those.
var S3PorcupineEvery uint64 = 64

// Verdicts returns every verdict, from the least to the most severe.
func Verdicts() []Verdict {
	out := make([]Verdict, numVerdicts)
	for v := range numVerdicts {
		out[verdictInfo[v].rank] = v
	}
	return out
}

// String names the verdict as reports and reproducer files write it.
func (v Verdict) String() string {
	if v < 0 || v >= numVerdicts {
		return fmt.Sprintf("verdict(%d)", int(v))
	}
	return verdictInfo[v].name
}

// ExitCode is the exit status of a command whose worst verdict is v:
// pass 0, unsafe 1, liveness 3, crashed 4, inconclusive 5, blocked 6
// (2 is bad input).
func (v Verdict) ExitCode() int {
	if v < 0 || v >= numVerdicts {
		return verdictInfo[Crashed].exit
	}
	return verdictInfo[v].exit
}

// Worse reports whether v is more severe than w: unsafe, then crashed,
// then blocked, then liveness, then inconclusive, then pass.
func (v Verdict) Worse(w Verdict) bool { return v.rank() > w.rank() }

func (v Verdict) rank() int {
	if v < 0 || v >= numVerdicts {
		return -1
	}
	return verdictInfo[v].rank
}

// Worst returns the most severe of vs, or Pass for none.
func Worst(vs ...Verdict) Verdict {
	w := Pass
	for _, v := range vs {
		if v.Worse(w) {
			w = v
		}
	}
	return w
}

// ParseVerdict returns the verdict a report or reproducer names.
func ParseVerdict(name string) (Verdict, error) {
	for v := range numVerdicts {
		if verdictInfo[v].name == name {
			return v, nil
		}
	}
	return Pass, fmt.Errorf("unknown verdict %q (known: pass, unsafe, liveness, crashed, inconclusive, blocked)", name)
}
