package harness

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Scenario is a named, documented way to run a protocol: the world, the
// protocol and what goes wrong, as a function of the seed.
type Scenario struct {
	// Name is how the scenario is chosen on the command line and how
	// reproducer files name it.
	Name string
	// Doc tells the scenario's story in a sentence or two.
	Doc string
	// Expect says what the scenario's protocol is expected to do.
	Expect Expectation
	// Build makes the run for a seed.
	Build func(seed uint64) Setup
	// Draw, if set, is how the scenario draws its run: the world from the
	// seed, and every random decision of its plan (its nodes, duration
	// and plan) from src, a stream of choices (faults.Source). Build must
	// then give, for every seed, the nodes, duration and plan that Draw
	// gives with the seed's own stream (faults.NewSource(seed)): Drawn
	// makes such a Build. Shrinking (Shrink) and guided campaigns (Guided)
	// draw runs with other choices through it, and run Build's run for the
	// seed with those nodes, duration and plan, as a Reproducer's
	// overrides: a scenario that wraps Build to change anything else of
	// the run (its store, its audit) wraps Draw's runs too; one that
	// changes the plan wraps Draw as well. A scenario without Draw is
	// shrunk by leaving parts of its plan out (faults.Within), and a
	// guided campaign runs only fresh seeds of it.
	Draw func(seed uint64, src *faults.Source) Setup
	_    struct{}
}

// Drawn is sc with its Build drawn by its Draw, each seed from its own
// stream of choices (faults.NewSource).
func Drawn(sc Scenario) Scenario {
	draw := sc.Draw
	sc.Build = func(seed uint64) Setup { return draw(seed, faults.NewSource(seed)) }
	return sc
}

// Expectation is what a scenario expects of its protocol.
type Expectation string

const (
	// Survives: inside the protocol's assumptions; no violation, no overlap,
	// a leader once faults heal.
	Survives Expectation = "survives"
	// Fenced: the scenario leaves the protocol's assumptions; two leaders
	// may overlap, and fencing must reject every stale write.
	Fenced Expectation = "outside assumptions, fenced"
	// Either: each run is judged by where its plan falls; survives inside
	// the assumptions, fenced outside them.
	Either Expectation = "survives inside, fenced outside"
	// Caught: the scenario runs a deliberately broken protocol, and the
	// harness must report the violation.
	Caught Expectation = "broken protocol, caught"
)

// Setup is one run ready to go: the world, its fault plan and the protocol.
//
// The protocol's candidate is the one every node runs: Config.Candidate must
// be left nil (RunSetup refuses a Setup that sets it), so that no second
// copy of the candidate can disagree with the protocol that is judged.
type Setup struct {
	Config   sim.Config
	Plan     *faults.Plan
	Protocol Protocol
	// Audit, if set, judges a finished run by a property of the scenario's
	// own (an application-level one, say) besides the election checkers.
	// Its violations count, except those of a checker the harness judges
	// against the faults (the watermark checker's: see Watermarks). A
	// Setup that is run several times (exploration, shrinking) must keep
	// its audit's state per run (Config.Setup is called at the start of
	// every run); so must Watermarks.
	Audit func(*sim.Result) []linearizability.Violation
	// Watermarks, if set, returns a finished run's watermark history (the
	// entries its applications wrote, the watermarks the lock object
	// held), which the harness judges with the watermark checker
	// (linearizability.CheckWatermarks), its excuses scoped by the lineage
	// of the records that handed each watermark on.
	Watermarks func(*sim.Result) linearizability.WatermarkHistory
	// FailOutside holds the protocol to a higher bar than its assumptions:
	// an overlap of leaders that a fault outside them accounts for fails
	// the run (Unsafe; the violation's rule is RuleOutside) instead of
	// being excused. Meant for a protocol without fencing tokens
	// (Protocol.NoFencingTokens), whose overlaps there are two leaders
	// acting at once in production; for one with tokens it asks that
	// leaders never overlap even where the fence would refuse the stale
	// writes.
	FailOutside bool
}

// FailingOutside returns sc with every run judged with Setup.FailOutside.
func (sc Scenario) FailingOutside() Scenario {
	build := sc.Build
	sc.Build = func(seed uint64) Setup {
		s := build(seed)
		s.FailOutside = true
		return s
	}
	return sc
}

// World is the world every run starts from unless a scenario says
// otherwise: five nodes for a minute against AWS-flavoured S3 with
// realistic latencies. It names no candidate: the protocol of a Setup
// brings it.
func World(seed uint64) sim.Config {
	return sim.Config{
		Seed:          seed,
		Nodes:         5,
		Duration:      60 * time.Second,
		Bucket:        "sim-bucket",
		Key:           "leader.json",
		Dialect:       sim.DialectAWS,
		S3Request:     sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		S3Response:    sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		FenceRequest:  sim.Latency{Min: 1 * time.Millisecond, Max: 10 * time.Millisecond},
		FenceResponse: sim.Latency{Min: 1 * time.Millisecond, Max: 10 * time.Millisecond},
		WriteInterval: 500 * time.Millisecond,
		MaxSteps:      2_000_000,
	}
}
