package harness

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// ExploreResult is what an exhaustive exploration found.
type ExploreResult struct {
	// Executions is the number of schedules run to their end and judged.
	Executions int
	// Stopped counts the executions that partial-order reduction stopped
	// before their end as equivalent to one run already; they are not
	// judged and not among Executions.
	Stopped int
	// Pruned counts the scheduling alternatives within the bounds that
	// partial-order reduction did not run, each standing for at least one
	// execution of the full search equivalent to one it ran.
	Pruned int
	// Distinct counts the different traces among them (by trace hash).
	Distinct int
	// Exhausted reports that every schedule within the bounds was run.
	Exhausted bool
	// Found is the first execution that did not pass, with the path that
	// replays it; nil if none.
	Found *Outcome
	Path  Path
}

// Path identifies one explored execution: the choice points at which it
// took an alternative other than the default, and which one.
type Path []uint64

// String writes the path compactly as "index:alternative" pairs of its
// non-default choices ("" is the all-defaults execution).
func (p Path) String() string {
	var parts []string
	for i, v := range p {
		if v != 0 {
			parts = append(parts, strconv.Itoa(i)+":"+strconv.FormatUint(v, 10))
		}
	}
	return strings.Join(parts, ",")
}

// ParsePath reads what Path.String writes.
func ParsePath(s string) (Path, error) {
	var p Path
	if s == "" {
		return p, nil
	}
	for _, part := range strings.Split(s, ",") {
		i, v, ok := strings.Cut(part, ":")
		idx, err1 := strconv.Atoi(i)
		alt, err2 := strconv.ParseUint(v, 10, 64)
		if !ok || err1 != nil || err2 != nil || idx < 0 || idx > 1_000_000 {
			return nil, fmt.Errorf("bad path element %q: want index:alternative", part)
		}
		for len(p) <= idx {
			p = append(p, 0)
		}
		p[idx] = alt
	}
	return p, nil
}

// Small shrinks a scenario's run for exploration: nodes nodes and a run of
// d, with the plan cut as shrinking cuts it (faults of removed nodes
// dropped, faults that no longer heal in time dropped: faults.Plan.ForNodes
// and Cut).
func Small(s Setup, nodes int, d time.Duration) Setup {
	s.Config.Nodes, s.Config.Duration = nodes, d
	s.Config.Identities, s.Config.Clocks = nil, nil
	if s.Plan != nil {
		s.Plan = s.Plan.ForNodes(nodes).Cut(d)
	}
	return s
}

// Explore runs setup under every schedule within the bounds, depth first,
// until one does not pass or maxExecutions runs have started. The seed fixes
// the choices the explorer does not enumerate (setup and entropy).
func Explore(s Setup, seed uint64, b sim.ExploreBounds, maxExecutions int) (ExploreResult, error) {
	return ExploreEach(s, sim.NewExplorer(seed, b), maxExecutions, func(o *Outcome, _ Path) bool { return o.Verdict == Pass })
}

// ExploreEach runs setup under each schedule ex enumerates, calling visit
// with every execution judged and the path that replays it, until visit
// returns false, maxExecutions runs have started (those stopped early
// included) or the schedules are exhausted. Found is the first execution
// that did not pass, whether or not the exploration went on after it.
func ExploreEach(s Setup, ex *sim.Explorer, maxExecutions int, visit func(o *Outcome, p Path) bool) (ExploreResult, error) {
	var r ExploreResult
	seen := map[uint64]bool{}
	for {
		run := s
		run.Config.Chooser = ex
		o, err := RunSetup(run, false)
		if err != nil {
			return r, err
		}
		if err := ex.Err(); err != nil {
			return r, err
		}
		goOn := true
		if !ex.StoppedEarly() {
			r.Executions++
			if h := o.Result.Hash(); !seen[h] {
				seen[h] = true
				r.Distinct++
			}
			p := Path(ex.Path())
			if o.Verdict != Pass && r.Found == nil {
				r.Found, r.Path = o, p
			}
			goOn = visit(o, p)
		}
		if !goOn || ex.Executions >= maxExecutions {
			r.Stopped, r.Pruned = ex.Stopped, ex.Pruned
			return r, nil
		}
		more := ex.Next()
		r.Stopped, r.Pruned = ex.Stopped, ex.Pruned
		if !more {
			r.Exhausted = true
			return r, nil
		}
	}
}

// ReplayPath runs the one execution of an exploration that path identifies.
func ReplayPath(s Setup, seed uint64, b sim.ExploreBounds, path Path, keepTrace bool) (*Outcome, error) {
	ex := sim.NewExplorer(seed, b)
	ex.Replay(path)
	s.Config.Chooser = ex
	return RunSetup(s, keepTrace)
}
