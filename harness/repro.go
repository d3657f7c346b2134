package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/s3lease/s3lease/faults"
)

// ReproVersion is the version of the reproducer file format this harness
// writes and reads. Files of another version are refused: a reproducer is
// only a reproducer for the harness that made it.
const ReproVersion = 1

// MaxReproNodes bounds the nodes a reproducer may ask for.
const MaxReproNodes = 1000

// MaxReproBytes bounds the size of a reproducer file.
const MaxReproBytes = 16 << 20

// ErrBadReproducer is wrapped by every error about a reproducer's content:
// malformed JSON, unknown fields, another version, an unknown scenario, an
// invalid plan or overrides that do not fit together.
var ErrBadReproducer = errors.New("bad reproducer")

// Reproducer is everything a run needs, as a file: harness version,
// scenario, seed, and the overrides that make it smaller than the
// scenario's own run. Its JSON form is what `simrun replay FILE` reads and
// `simrun replay -seed S -o FILE` and `simrun shrink` write:
//
//	{
//	  "version": 1,
//	  "scenario": "naive-skew",
//	  "seed": 1,
//	  "nodes": 2,
//	  "duration": "21s",
//	  "plan": {"healAt": "20s", "clocks": [{"node": 1, "offset": "2.1s", "driftPPM": 0}], "s3": {}},
//	  "expect": {"verdict": "unsafe", "checkers": ["overlap"]}
//	}
type Reproducer struct {
	Version  int    `json:"version"` // ReproVersion; files of another version are refused
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Nodes, if not 0, replaces the scenario's number of nodes. Without a
	// Plan, the scenario's plan loses the clocks and events of the nodes
	// that no longer exist; with one, the plan must fit.
	Nodes int `json:"nodes,omitempty"`
	// Duration, if not 0, replaces the scenario's run length; it must
	// exceed the plan's healAt.
	Duration faults.Duration `json:"duration,omitempty"`
	// Plan, if set, replaces the plan the scenario draws for the seed.
	Plan *faults.Plan `json:"plan,omitempty"`
	// Expect, if set, is what the run is expected to show.
	Expect *Signature `json:"expect,omitempty"`
	// Explore, if set, makes the run one execution of an exploration
	// (simrun explore): the scenario's run cut to Nodes and Duration as
	// exploration cuts it (Small), its schedule the path's choices within
	// the bounds. Nodes and Duration are then required.
	Explore *ExploreChoice `json:"explore,omitempty"`
	// FailOutside judges the run with Setup.FailOutside, as the run it
	// reproduces was.
	FailOutside bool `json:"failOutside,omitempty"`
}

// Signature identifies a failure so that many seeds hitting one bug read as
// one: the verdict and the checkers (checker/rule where the violation names
// a rule) of the violations that decided it, sorted and de-duplicated, with
// no times, nodes or tokens. A crashed run's single "checker" is the kind
// of failure: "panic" or "stuck" (the step budget ran out).
type Signature struct {
	Verdict  string   `json:"verdict"`
	Checkers []string `json:"checkers,omitempty"`
}

// SignatureOf returns the signature of an outcome.
func SignatureOf(o *Outcome) Signature {
	s := Signature{Verdict: o.Verdict.String()}
	switch o.Verdict {
	case Crashed, Blocked:
		if o.Result != nil && o.Result.Failure != nil {
			s.Checkers = []string{o.Result.Failure.Kind.String()}
		}
	case Unsafe, Liveness:
		for _, v := range o.Violations {
			c := v.Checker
			if v.Rule != "" {
				c += "/" + v.Rule
			}
			s.Checkers = append(s.Checkers, c)
		}
		slices.Sort(s.Checkers)
		s.Checkers = slices.Compact(s.Checkers)
	}
	return s
}

// String renders the signature as "unsafe: fencing/stale-accepted, overlap",
// or just the verdict if no checker decided it.
func (s Signature) String() string {
	if len(s.Checkers) == 0 {
		return s.Verdict
	}
	return s.Verdict + ": " + strings.Join(s.Checkers, ", ")
}

// Equal reports whether two signatures are the same.
func (s Signature) Equal(t Signature) bool {
	return s.Verdict == t.Verdict && slices.Equal(s.Checkers, t.Checkers)
}

// LoadReproducer reads a reproducer and checks it strictly: unknown fields,
// trailing data, another version, an unknown scenario, nodes or duration out
// of range, a plan that does not fit the resulting nodes and duration (a
// clock or event for a node beyond Nodes included), a duration that leaves
// no liveness phase after healAt, or an expectation naming no verdict are
// all refused with an error wrapping ErrBadReproducer. Empty lists are
// read as absent and expected checkers sorted, so that writing a loaded
// reproducer and loading it again gives an equal one.
func LoadReproducer(r io.Reader) (*Reproducer, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxReproBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxReproBytes {
		return nil, badRepro("larger than %d bytes", MaxReproBytes)
	}
	// The version is read first, so that a file of another version is
	// refused as such rather than for a field this version does not know.
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, badRepro("not a JSON reproducer: %v", err)
	}
	switch {
	case head.Version == nil:
		return nil, badRepro("no \"version\" field; this harness reads version %d", ReproVersion)
	case *head.Version != ReproVersion:
		return nil, badRepro("version %d; this harness reads version %d only", *head.Version, ReproVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep Reproducer
	if err := dec.Decode(&rep); err != nil {
		return nil, badRepro("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRepro("data after the reproducer's JSON object")
	}
	rep.normalize()
	if err := rep.validate(); err != nil {
		return nil, err
	}
	return &rep, nil
}

func badRepro(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadReproducer, fmt.Sprintf(format, args...))
}

// normalize makes empty lists absent and sorts the expected checkers.
func (r *Reproducer) normalize() {
	if r.Plan != nil {
		if len(r.Plan.Clocks) == 0 {
			r.Plan.Clocks = nil
		}
		if len(r.Plan.Events) == 0 {
			r.Plan.Events = nil
		}
	}
	if r.Expect != nil {
		slices.Sort(r.Expect.Checkers)
		r.Expect.Checkers = slices.Compact(r.Expect.Checkers)
		if len(r.Expect.Checkers) == 0 {
			r.Expect.Checkers = nil
		}
	}
}

// Setup is the run the reproducer describes: sc.Build(seed) with the
// overrides applied, sc being the scenario the reproducer names
// (Catalog.Resolve finds it). The plan is a copy, never r.Plan itself.
// Every problem with the reproducer is an error wrapping ErrBadReproducer.
func (r *Reproducer) Setup(sc Scenario) (Setup, error) {
	if err := r.validate(); err != nil {
		return Setup{}, err
	}
	if sc.Name != r.Scenario || sc.Build == nil {
		return Setup{}, badRepro("a run of scenario %q, not of %q", r.Scenario, sc.Name)
	}
	if r.Explore != nil {
		s, err := r.exploreSetup(sc)
		s.FailOutside = s.FailOutside || r.FailOutside
		return s, err
	}
	s := sc.Build(r.Seed)
	s.FailOutside = s.FailOutside || r.FailOutside
	if r.Plan != nil {
		s.Plan = clonePlan(r.Plan)
	} else {
		s.Plan = clonePlan(s.Plan)
		if r.Nodes > 0 && s.Plan != nil {
			s.Plan = s.Plan.ForNodes(r.Nodes)
		}
	}
	if r.Nodes > 0 {
		s.Config.Nodes = r.Nodes
		if len(s.Config.Identities) > r.Nodes {
			s.Config.Identities = s.Config.Identities[:r.Nodes]
		}
		if len(s.Config.Clocks) > r.Nodes {
			s.Config.Clocks = s.Config.Clocks[:r.Nodes]
		}
	}
	if r.Duration > 0 {
		s.Config.Duration = r.Duration.D()
		if s.Plan != nil && s.Plan.HealAt >= r.Duration {
			return Setup{}, badRepro("duration %v leaves no liveness phase: it must exceed the plan's healAt %v", r.Duration, s.Plan.HealAt)
		}
	}
	if s.Plan != nil {
		if err := s.Plan.Validate(s.Config.Nodes, s.Config.Duration); err != nil {
			return Setup{}, fmt.Errorf("%w: plan for %d nodes and %v: %w", ErrBadReproducer, s.Config.Nodes, s.Config.Duration, err)
		}
	}
	return s, nil
}

// validate checks what the reproducer says on its own, without its
// scenario: its version, overrides and expectation.
func (r *Reproducer) validate() error {
	if r.Version != ReproVersion {
		return badRepro("version %d; this harness reads version %d only", r.Version, ReproVersion)
	}
	if r.Scenario == "" {
		return badRepro("no scenario")
	}
	if r.Nodes < 0 || r.Nodes > MaxReproNodes {
		return badRepro("nodes %d outside [1, %d] (0 or absent: the scenario's)", r.Nodes, MaxReproNodes)
	}
	if r.Duration < 0 {
		return badRepro("duration %v is negative (0 or absent: the scenario's)", r.Duration)
	}
	if e := r.Expect; e != nil {
		if _, err := ParseVerdict(e.Verdict); err != nil {
			return badRepro("expected verdict %q: %v", e.Verdict, err)
		}
		if e.Verdict == Pass.String() && len(e.Checkers) > 0 {
			return badRepro("a passing run has no checkers, but %v are expected", e.Checkers)
		}
		if slices.Contains(e.Checkers, "") {
			return badRepro("an expected checker is empty")
		}
	}
	return nil
}

// Run runs the reproducer, a run of scenario sc, and judges it; keepTrace
// keeps every trace event.
func (r *Reproducer) Run(sc Scenario, keepTrace bool) (*Outcome, error) {
	s, err := r.Setup(sc)
	if err != nil {
		return nil, err
	}
	o, err := RunSetup(s, keepTrace)
	if o != nil {
		o.Scenario, o.Seed = r.Scenario, r.Seed
	}
	return o, err
}

// ReproducerFor makes the reproducer of an outcome of RunSeed (or of
// Reproducer.Run) of scenario sc: its scenario, seed and plan, the number
// of nodes and duration where they differ from the scenario's, and the
// outcome's signature as the expectation. (A crashed run stopped before
// its end, so its duration is not known: a crashed run of a shortened
// reproducer gets the scenario's.)
func ReproducerFor(sc Scenario, o *Outcome) *Reproducer {
	sig := SignatureOf(o)
	r := &Reproducer{Version: ReproVersion, Scenario: o.Scenario, Seed: o.Seed, Plan: clonePlan(o.Plan), Expect: &sig, FailOutside: o.FailOutside}
	if r.Plan == nil {
		r.Plan = &faults.Plan{}
	}
	if sc.Build != nil && o.Result != nil && o.Result.History != nil {
		cfg := sc.Build(o.Seed).Config
		h := o.Result.History
		if h.Nodes > 0 && h.Nodes != cfg.Nodes {
			r.Nodes = h.Nodes
		}
		// A run that did not crash ran to its end, its duration.
		if o.Result.Failure == nil && h.End > 0 && h.End != cfg.Duration {
			r.Duration = faults.Duration(h.End)
		}
	}
	r.normalize()
	return r
}

// Marshal writes the reproducer as indented JSON ending in a newline, the
// form of reproducer files.
func (r *Reproducer) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// clonePlan returns a copy of p sharing nothing mutable with it.
func clonePlan(p *faults.Plan) *faults.Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.Clocks = slices.Clone(p.Clocks)
	c.Events = slices.Clone(p.Events)
	c.Settings = slices.Clone(p.Settings)
	c.Apps = slices.Clone(p.Apps)
	c.Names = slices.Clone(p.Names)
	return &c
}
