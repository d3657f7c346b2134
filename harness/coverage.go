package harness

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// CoverageSet is a named set of coverage points: states, transitions or
// answers of a protocol that a run may or may not reach. A protocol
// declares its sets in Protocol.Coverage and its candidate marks each
// point it reaches with Env.Coverage.Hit(i), where i counts the points of
// every set before it (set 0's points are 0..len-1, set 1's follow). The
// harness adds a set of its own to every run, read from the run's history
// whatever the protocol (RunShapes).
type CoverageSet struct {
	// Name says what the points are, in the plural ("lock
	// transitions"); it names the set in reports, which merge sets by
	// name.
	Name string
	// Points names every point of the set, each once.
	Points []string
}

// coverageOf is the coverage sets of a run of p: p's own, then the
// harness's (RunShapes), and the number of p's points.
func coverageOf(p Protocol) (sets []CoverageSet, own int) {
	for _, s := range p.Coverage {
		own += len(s.Points)
	}
	sets = make([]CoverageSet, 0, len(p.Coverage)+1)
	sets = append(sets, p.Coverage...)
	return append(sets, runShapes), own
}

// CoverageOf returns the coverage sets of every run of protocol p, as an
// Outcome lists them: p's own (Protocol.Coverage), then the harness's
// (RunShapes).
func CoverageOf(p Protocol) []CoverageSet {
	sets, _ := coverageOf(p)
	return sets
}

// RunShapes is the set of coverage points the harness reads from every
// run's history, whatever the protocol: how many terms there were, how
// leadership passed between nodes and how soon, how tokens followed each
// other, the fenced writes refused or accepted late, the kinds of S3 answer
// the nodes got, the violations that faults outside the assumptions
// excused, whether the run ended with a leader, and what the protocols
// answered the callers who asked them who leads. A protocol that
// declares no coverage of its own (the zoo's locks) is still guided by
// these (guided mode).
func RunShapes() CoverageSet { return runShapes }

// The points of RunShapes, in order.
const (
	shapeTerms0 = iota
	shapeTerms1
	shapeTerms2
	shapeTerms4
	shapeTerms8
	shapeHandOverlap
	shapeHand100ms
	shapeHand1s
	shapeHandLease
	shapeHandLater
	shapeReleadSame
	shapeReleadRestart
	shapeTokenNext
	shapeTokenJump
	shapeTokenSame
	shapeTokenLower
	shapeStaleRefused
	shapeLateAccepted
	shapeNoLeaderAtEnd
	shapeExcused // one per excusedCheckers
)

// excusedCheckers are the checkers whose excused violations RunShapes
// tells apart.
var excusedCheckers = []string{"overlap", "monotonic-tokens", "fencing", "unique-holder", linearizability.LeaseCheckName}

// s3Ops and s3Classes are the requests and kinds of answers RunShapes
// tells apart: each op with each class.
var (
	s3Ops     = []string{"GetObject", "PutObject", "DeleteObject"}
	s3Classes = []string{"2xx", "404", "409", "412", "other 4xx", "5xx", "no answer"}
)

// answerShapes are the kinds of answer (sim.History.Answers) RunShapes
// tells apart, in the order answerShape numbers them.
var answerShapes = []string{
	"asked whether it leads: yes", "asked whether it leads: no",
	"asked at a term's deadline: yes", "asked at a term's deadline: no",
	"asked who leads: itself", "asked who leads: another holder", "asked who leads: no holder",
	"told of a new leader", "asked whether healthy: yes", "asked whether healthy: no",
}

// answerShape is the index in answerShapes of a's kind.
func answerShape(a sim.Answer) int {
	switch a.Ask {
	case sim.AskIsLeader, sim.AskLease:
		k := 0
		if a.Aimed {
			k = 2
		}
		if !a.Yes {
			k++
		}
		return k
	case sim.AskLeader:
		switch {
		case a.Yes:
			return 4
		case a.Holder != "":
			return 5
		}
		return 6
	case sim.AskNewLeader:
		return 7
	}
	if a.Yes {
		return 8
	}
	return 9
}

var runShapes = func() CoverageSet {
	s := CoverageSet{Name: "run shapes", Points: []string{
		"no term", "1 term", "2-3 terms", "4-7 terms", "8 terms or more",
		"hand-over to another node: overlapping", "hand-over to another node within 100ms", "hand-over to another node within 1s",
		"hand-over to another node within a lease", "hand-over to another node after a lease or more",
		"a node leads again in one incarnation", "a node leads again after a restart",
		"next token one above the last", "next token further above the last", "next token equal to the last", "next token below the last",
		"a stale fenced write refused", "a fenced write accepted after its term ended", "no leader at the end",
	}}
	for _, c := range excusedCheckers {
		s.Points = append(s.Points, "excused: "+c)
	}
	for _, op := range s3Ops {
		for _, c := range s3Classes {
			s.Points = append(s.Points, "S3 "+op+" answered "+c)
		}
	}
	s.Points = append(s.Points, answerShapes...)
	return s
}()

// s3Class is the index in s3Classes of an answer's status (0: no answer).
func s3Class(status int) int {
	switch {
	case status == 0:
		return 6
	case status >= 200 && status < 300:
		return 0
	case status == 404:
		return 1
	case status == 409:
		return 2
	case status == 412:
		return 3
	case status >= 500:
		return 5
	}
	return 4
}

// markShapes marks in c, from point base on, the run shapes of outcome o
// of a protocol whose lease is lease.
func markShapes(c *sim.Coverage, base int, o *Outcome, lease time.Duration) {
	h := o.Result.History
	if h == nil {
		return
	}
	hit := func(i int) { c.Hit(base + i) }
	switch n := len(h.Terms); {
	case n == 0:
		hit(shapeTerms0)
	case n == 1:
		hit(shapeTerms1)
	case n < 4:
		hit(shapeTerms2)
	case n < 8:
		hit(shapeTerms4)
	default:
		hit(shapeTerms8)
	}
	open := false
	for i, t := range h.Terms {
		open = open || t.Open
		if i == 0 {
			continue
		}
		prev := h.Terms[i-1]
		switch {
		case t.Token == prev.Token+1:
			hit(shapeTokenNext)
		case t.Token > prev.Token:
			hit(shapeTokenJump)
		case t.Token == prev.Token:
			hit(shapeTokenSame)
		default:
			hit(shapeTokenLower)
		}
		if t.Node != prev.Node {
			switch gap := t.Start - prev.End; {
			case gap < 0:
				hit(shapeHandOverlap)
			case gap < 100*time.Millisecond:
				hit(shapeHand100ms)
			case gap < time.Second:
				hit(shapeHand1s)
			case gap < lease:
				hit(shapeHandLease)
			default:
				hit(shapeHandLater)
			}
		}
	}
	// A node that leads again: its last term before this one.
	for i, t := range h.Terms {
		for j := i - 1; j >= 0; j-- {
			if p := h.Terms[j]; p.Node == t.Node {
				if p.Incarnation == t.Incarnation {
					hit(shapeReleadSame)
				} else {
					hit(shapeReleadRestart)
				}
				break
			}
		}
	}
	if !open {
		hit(shapeNoLeaderAtEnd)
	}
	for _, w := range h.Writes {
		if !w.Accepted {
			hit(shapeStaleRefused)
			continue
		}
		for _, t := range h.Terms {
			if t.Node == w.Node && t.Token == w.Token && !t.Open && w.Sent > t.End {
				hit(shapeLateAccepted)
				break
			}
		}
	}
	for _, x := range o.Excused {
		for k, name := range excusedCheckers {
			if x.Checker == name {
				hit(shapeExcused + k)
			}
		}
	}
	s3 := shapeExcused + len(excusedCheckers)
	for _, op := range h.S3 {
		if op.Node < 0 {
			continue // a write from outside the nodes
		}
		for k, name := range s3Ops {
			if op.Op == name {
				status := op.Status
				if op.Return < 0 {
					status = 0
				}
				hit(s3 + k*len(s3Classes) + s3Class(status))
			}
		}
	}
	answers := s3 + len(s3Ops)*len(s3Classes)
	for _, a := range h.Answers {
		hit(answers + answerShape(a))
	}
}

// checkCoverage reports a protocol whose coverage sets are malformed: an
// unnamed set, two sets of one name (RunShapes' included), a set without
// points. It allocates nothing: RunSetup checks every run.
func checkCoverage(sets []CoverageSet) error {
	for i, s := range sets {
		switch {
		case s.Name == "":
			return fmt.Errorf("%w: a coverage set has no name", ErrInvalidSetup)
		case s.Name == runShapes.Name:
			return fmt.Errorf("%w: coverage set %q: the harness's own set has that name", ErrInvalidSetup, s.Name)
		case len(s.Points) == 0:
			return fmt.Errorf("%w: coverage set %q has no points", ErrInvalidSetup, s.Name)
		}
		for _, t := range sets[:i] {
			if t.Name == s.Name {
				return fmt.Errorf("%w: two coverage sets are called %q", ErrInvalidSetup, s.Name)
			}
		}
	}
	return nil
}

// ValidateCoverage reports coverage sets a protocol may not declare: an
// unnamed set, two sets of one name (RunShapes' included), a set without
// points, or a point named twice in a set. RunSetup refuses a protocol
// whose sets fail the first three; reports merge sets by name and points
// by position and name, which the last would confuse.
func ValidateCoverage(sets []CoverageSet) error {
	if err := checkCoverage(sets); err != nil {
		return err
	}
	for _, s := range sets {
		seen := make(map[string]bool, len(s.Points))
		for _, p := range s.Points {
			if seen[p] {
				return fmt.Errorf("%w: coverage set %q names point %q twice", ErrInvalidSetup, s.Name, p)
			}
			seen[p] = true
		}
	}
	return nil
}
