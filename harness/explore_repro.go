package harness

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// ExploreChoice is the part of a reproducer that names one execution of an
// exploration: the bounds it explored within and the path of choices that
// reaches the execution.
type ExploreChoice struct {
	Faults int `json:"faults"`
	Delays int `json:"delays"`
	Depth  int `json:"depth"`
	// Path is Path.String's form ("index:alternative,...").
	Path string `json:"path"`
}

// Bounds are the choice's exploration bounds.
func (c *ExploreChoice) Bounds() sim.ExploreBounds {
	return sim.ExploreBounds{MaxFaults: c.Faults, MaxDelays: c.Delays, MaxDepth: c.Depth}
}

// ExploreReproducer makes the reproducer of an execution an exploration
// found: o is the outcome of ReplayPath or Explore's Found on Small(the
// scenario's Build(seed), nodes, d), with bounds b and path p.
func ExploreReproducer(o *Outcome, nodes int, d faults.Duration, b sim.ExploreBounds, p Path) *Reproducer {
	sig := SignatureOf(o)
	r := &Reproducer{Version: ReproVersion, Scenario: o.Scenario, Seed: o.Seed, Nodes: nodes, Duration: d,
		Plan: clonePlan(o.Plan), Expect: &sig, FailOutside: o.FailOutside,
		Explore: &ExploreChoice{Faults: b.MaxFaults, Delays: b.MaxDelays, Depth: b.MaxDepth, Path: p.String()}}
	if r.Plan == nil {
		r.Plan = &faults.Plan{}
	}
	r.normalize()
	return r
}

// exploreSetup is Setup for a reproducer of an exploration.
func (r *Reproducer) exploreSetup(sc Scenario) (Setup, error) {
	c := r.Explore
	if r.Nodes < 1 || r.Duration <= 0 {
		return Setup{}, badRepro("an exploration's reproducer needs nodes and duration")
	}
	if c.Faults < 0 || c.Delays < 0 || c.Depth < 0 {
		return Setup{}, badRepro("explore bounds must not be negative (faults %d, delays %d, depth %d)", c.Faults, c.Delays, c.Depth)
	}
	path, err := ParsePath(c.Path)
	if err != nil {
		return Setup{}, badRepro("explore path: %v", err)
	}
	s := Small(sc.Build(r.Seed), r.Nodes, r.Duration.D())
	if r.Plan != nil {
		s.Plan = clonePlan(r.Plan)
	}
	if s.Plan != nil {
		if err := s.Plan.Validate(s.Config.Nodes, s.Config.Duration); err != nil {
			return Setup{}, badRepro("plan for %d nodes and %v: %v", s.Config.Nodes, s.Config.Duration, err)
		}
	}
	ex := sim.NewExplorer(r.Seed, c.Bounds())
	ex.Replay(path)
	s.Config.Chooser = ex
	return s, nil
}
