package schema

import (
	"fmt"
	"strings"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// CoverageRun is what `simrun coverage -json` prints: what a range of
// seeds of a scenario reached of their coverage points, point by point.
type CoverageRun struct {
	Header
	Scenario  string          `json:"scenario"`
	FirstSeed uint64          `json:"firstSeed"`
	Seeds     uint64          `json:"seeds"`
	Workers   int             `json:"workers"`
	Wall      faults.Duration `json:"wall"`
	Coverage  Coverage        `json:"coverage"`
	// Guided is set for a guided campaign (coverage -guided): Seeds is
	// then its runs, and a point's First the number of the first run
	// that reached it.
	Guided *Guided `json:"guided,omitempty"`
}

// Coverage is what a set of runs reached of their coverage points (run,
// campaign, merge, guided): for each coverage set their protocols declare
// (harness.CoverageSet; the production elector's transitions and answers
// by phase, and the harness's run shapes), how many runs had the set,
// and for each point how many of them reached it and the first that did.
// Sets are matched by name, points by position and name.
type Coverage struct {
	Sets []CoverageSet `json:"sets"`
}

// CoverageSet is one set's tally.
type CoverageSet struct {
	Name string `json:"name"`
	// Runs counts the runs whose protocol declares the set.
	Runs uint64 `json:"runs"`
	// Reached is the number of points some run reached, of len(Points).
	Reached int             `json:"reached"`
	Points  []CoveragePoint `json:"points"`
}

// CoveragePoint is one point's tally.
type CoveragePoint struct {
	Name string `json:"name"`
	// Runs counts the runs that reached the point.
	Runs uint64 `json:"runs"`
	// First is the lowest seed that reached it (of a guided campaign: the
	// number of the run), when Runs is not 0.
	First uint64 `json:"first,omitempty"`
}

// Add counts one run: the sets it declared (harness.Outcome.Coverage) and
// the points it reached (harness.Outcome.Reached, numbered across the sets
// in order), as run number seed. A set of the same name but other points
// than one counted before is an error.
func (c *Coverage) Add(sets []harness.CoverageSet, reached sim.Coverage, seed uint64) error {
	base := 0
	for _, s := range sets {
		t, err := c.set(s.Name, s.Points)
		if err != nil {
			return err
		}
		t.Runs++
		for i := range s.Points {
			if !reached.Has(base + i) {
				continue
			}
			p := &t.Points[i]
			if p.Runs == 0 {
				t.Reached++
				p.First = seed
			} else {
				p.First = min(p.First, seed)
			}
			p.Runs++
		}
		base += len(s.Points)
	}
	return nil
}

// set returns the tally of the set called name with points, adding an
// empty one if there is none.
func (c *Coverage) set(name string, points []string) (*CoverageSet, error) {
	for i := range c.Sets {
		t := &c.Sets[i]
		if t.Name != name {
			continue
		}
		if len(t.Points) != len(points) {
			return nil, fmt.Errorf("schema: coverage set %q has %d points here, %d before", name, len(points), len(t.Points))
		}
		for j, p := range points {
			if t.Points[j].Name != p {
				return nil, fmt.Errorf("schema: coverage set %q: point %d is %q here, %q before", name, j, p, t.Points[j].Name)
			}
		}
		return t, nil
	}
	t := CoverageSet{Name: name, Points: make([]CoveragePoint, len(points))}
	for j, p := range points {
		t.Points[j].Name = p
	}
	c.Sets = append(c.Sets, t)
	return &c.Sets[len(c.Sets)-1], nil
}

// Merge adds the tallies of o (another shard's, another batch's) to c.
func (c *Coverage) Merge(o *Coverage) error {
	if o == nil {
		return nil
	}
	for _, s := range o.Sets {
		names := make([]string, len(s.Points))
		for i, p := range s.Points {
			names[i] = p.Name
		}
		t, err := c.set(s.Name, names)
		if err != nil {
			return err
		}
		t.Runs += s.Runs
		for i, p := range s.Points {
			if p.Runs == 0 {
				continue
			}
			q := &t.Points[i]
			if q.Runs == 0 {
				t.Reached++
				q.First = p.First
			} else {
				q.First = min(q.First, p.First)
			}
			q.Runs += p.Runs
		}
	}
	return nil
}

// Check reports a tally that is not consistent: a set's Reached that is
// not the number of points reached, a point reached by more runs than
// the set had, two sets of one name.
func (c *Coverage) Check() error {
	for i, s := range c.Sets {
		for _, t := range c.Sets[:i] {
			if t.Name == s.Name {
				return fmt.Errorf("coverage set %q twice", s.Name)
			}
		}
		reached := 0
		for _, p := range s.Points {
			if p.Runs > s.Runs {
				return fmt.Errorf("coverage set %q: point %q reached by %d runs of %d", s.Name, p.Name, p.Runs, s.Runs)
			}
			if p.Runs > 0 {
				reached++
			}
		}
		if reached != s.Reached {
			return fmt.Errorf("coverage set %q: %d points reached, but it says %d", s.Name, reached, s.Reached)
		}
	}
	return nil
}

// ReachedBy is the number of the set's points that a run numbered (or
// seeded) at most last reached: the set's coverage after the runs up to
// last, for runs numbered in order.
func (s *CoverageSet) ReachedBy(last uint64) int {
	k := 0
	for _, p := range s.Points {
		if p.Runs > 0 && p.First <= last {
			k++
		}
	}
	return k
}

// Never returns the names of the set's points no run reached.
func (s *CoverageSet) Never() []string {
	var out []string
	for _, p := range s.Points {
		if p.Runs == 0 {
			out = append(out, p.Name)
		}
	}
	return out
}

// Summary is the tally in one line: "87 of 104 elector transitions, 40 of
// 48 elector answers by phase, 35 of 45 run shapes reached", with the
// runs counted where fewer than runs had a set (a campaign resumed from a
// state that kept no coverage). "" if no set was counted.
func (c *Coverage) Summary(runs uint64) string {
	if c == nil || len(c.Sets) == 0 {
		return ""
	}
	parts := make([]string, len(c.Sets))
	for i, s := range c.Sets {
		parts[i] = fmt.Sprintf("%d of %d %s", s.Reached, len(s.Points), s.Name)
		if s.Runs < runs {
			parts[i] += fmt.Sprintf(" (in %d of the runs)", s.Runs)
		}
	}
	return strings.Join(parts, ", ") + " reached"
}
