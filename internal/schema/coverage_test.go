package schema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// TestCoverageMergeIsAddingUp: runs counted in one tally, or split in any
// way between tallies that are merged in any order, give the same tally:
// per point the runs that reached it and the lowest seed that did, per set
// the runs and the points reached.
func TestCoverageMergeIsAddingUp(t *testing.T) {
	sets := []harness.CoverageSet{{Name: "a", Points: []string{"a0", "a1", "a2"}}, {Name: "b", Points: []string{"b0", "b1"}}}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(t, "runs")
		whole := &schema.Coverage{}
		parts := make([]*schema.Coverage, rapid.IntRange(1, 4).Draw(t, "parts"))
		for i := range parts {
			parts[i] = &schema.Coverage{}
		}
		for i := range n {
			c := sim.NewCoverage(5)
			for p := range 5 {
				if rapid.Bool().Draw(t, "hit") {
					c.Hit(p)
				}
			}
			seed := uint64(100 - i)
			if err := whole.Add(sets, c, seed); err != nil {
				t.Fatal(err)
			}
			if err := parts[rapid.IntRange(0, len(parts)-1).Draw(t, "part")].Add(sets, c, seed); err != nil {
				t.Fatal(err)
			}
		}
		merged := &schema.Coverage{}
		for _, i := range rapid.Permutation([]int{0, 1, 2, 3}[:len(parts)]).Draw(t, "order") {
			if err := merged.Merge(parts[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := merged.Check(); err != nil {
			t.Fatal(err)
		}
		if n > 0 && !reflect.DeepEqual(sortedSets(merged), sortedSets(whole)) {
			t.Fatalf("merged %+v\nwhole %+v", merged, whole)
		}
	})
}

// sortedSets orders a tally's sets by name, for comparison.
func sortedSets(c *schema.Coverage) []schema.CoverageSet {
	out := append([]schema.CoverageSet(nil), c.Sets...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Name < out[i].Name {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestCoverageTally: what one tally says of a few runs, point by point.
func TestCoverageTally(t *testing.T) {
	sets := []harness.CoverageSet{{Name: "elector transitions", Points: []string{"x", "y", "z"}}, {Name: "run shapes", Points: []string{"s"}}}
	var c schema.Coverage
	for _, r := range []struct {
		seed uint64
		hits []int
	}{{7, []int{0}}, {3, []int{0, 3}}, {9, []int{0, 1, 1, 1}}} {
		cov := sim.NewCoverage(4)
		for _, h := range r.hits {
			cov.Hit(h)
		}
		if err := c.Add(sets, cov, r.seed); err != nil {
			t.Fatal(err)
		}
	}
	ts := c.Sets[0]
	if ts.Runs != 3 || ts.Reached != 2 || ts.Points[0].Runs != 3 || ts.Points[0].First != 3 || ts.Points[1].Runs != 1 || ts.Points[1].First != 9 || ts.Points[2].Runs != 0 {
		t.Fatalf("transitions %+v", ts)
	}
	if got := ts.Never(); len(got) != 1 || got[0] != "z" {
		t.Fatalf("never %v", got)
	}
	if ts.ReachedBy(3) != 1 || ts.ReachedBy(8) != 1 || ts.ReachedBy(9) != 2 {
		t.Fatalf("reached by 3, 8, 9: %d %d %d", ts.ReachedBy(3), ts.ReachedBy(8), ts.ReachedBy(9))
	}
	if got := c.Summary(3); got != "2 of 3 elector transitions, 1 of 1 run shapes reached" {
		t.Fatalf("summary %q", got)
	}
	if got := c.Summary(5); !strings.Contains(got, "(in 3 of the runs)") {
		t.Fatalf("summary of 5 runs, 3 counted: %q", got)
	}
	// A set of the same name with other points does not add up.
	if err := c.Add([]harness.CoverageSet{{Name: "run shapes", Points: []string{"t"}}}, sim.NewCoverage(1), 1); err == nil {
		t.Fatal("a set of another point was added")
	}
	bad := c
	bad.Sets = append([]schema.CoverageSet(nil), c.Sets...)
	bad.Sets[0].Reached = 3
	if bad.Check() == nil {
		t.Fatal("Check passed a tally that miscounts its points")
	}
}
