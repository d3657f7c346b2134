package schema

import (
	"fmt"

	"github.com/s3lease/s3lease/harness"
)

// Counts are the tallies of a set of runs (run, campaign, merge). Every
// seed is counted once in exactly one of Pass, Unsafe, Liveness, Crashed,
// Inconclusive, Blocked and Nondeterministic; the other four count, over
// all seeds, the runs outside the protocol's assumptions, the overlaps of
// leaders, the stale writes refused by the fenced resource, and the
// violations that faults outside the assumptions account for (reported
// and not counted against the protocol).
type Counts struct {
	Pass             uint64 `json:"pass"`
	Unsafe           uint64 `json:"unsafe"`
	Liveness         uint64 `json:"liveness"`
	Crashed          uint64 `json:"crashed"`
	Inconclusive     uint64 `json:"inconclusive"`
	Blocked          uint64 `json:"blocked"`
	Nondeterministic uint64 `json:"nondeterministic"`
	Outside          uint64 `json:"outsideAssumptions"`
	Overlaps         uint64 `json:"overlaps"`
	Refused          uint64 `json:"refusedWrites"`
	Excused          uint64 `json:"excusedViolations"`
	// Judged is what the checkers judged: the seeds wholly inside the
	// protocol's assumptions, and per checker the violations judged,
	// excused (by kind of fault) and counted. Documents before version 4
	// do not record it: it is nil when seeds were counted without it
	// (Add keeps it so: a sum with such counts is not known either).
	Judged *harness.Judged `json:"judged,omitempty"`
	// Counts are not comparable with ==, which would compare Judged's
	// pointer: reflect.DeepEqual compares them.
	_ [0]func()
}

// JudgedKnown reports whether c records what was judged of every seed it
// counts (Judged).
func (c Counts) JudgedKnown() bool { return c.Judged != nil || c.Seeds() == 0 }

// JudgedLines says what was judged, as summaries print it
// (harness.Judged.Lines) of c's runs, counted in unit ("seeds", "runs");
// if c does not record it, the runs outside the assumptions and the
// violations excused, and that the rest is not recorded.
func (c Counts) JudgedLines(unit string) []string {
	runs := c.Seeds()
	if !c.JudgedKnown() {
		return []string{fmt.Sprintf("%d %s (%.1f%%) outside the protocol's assumptions; %d violations excused by the faults that left them",
			c.Outside, unit, 100*float64(c.Outside)/float64(max(runs, 1)), c.Excused),
			fmt.Sprintf("what was judged inside the assumptions, by checker, is not recorded (documents before schema %d)", judgedSince)}
	}
	j := c.Judged
	if j == nil {
		j = &harness.Judged{}
	}
	return j.Lines(runs, c.Outside, unit)
}

// judgedSince is the first schema version that records Counts.Judged.
const judgedSince = 4

// Seeds is the number of seeds counted.
func (c Counts) Seeds() uint64 {
	return c.Pass + c.Unsafe + c.Liveness + c.Crashed + c.Inconclusive + c.Blocked + c.Nondeterministic
}

// Failures is the number of seeds that did not pass.
func (c Counts) Failures() uint64 { return c.Seeds() - c.Pass }

// Of returns the tally of seeds judged v.
func (c *Counts) Of(v harness.Verdict) *uint64 {
	switch v {
	case harness.Pass:
		return &c.Pass
	case harness.Unsafe:
		return &c.Unsafe
	case harness.Liveness:
		return &c.Liveness
	case harness.Inconclusive:
		return &c.Inconclusive
	case harness.Blocked:
		return &c.Blocked
	}
	return &c.Crashed
}

// CountsOf counts one run: its verdict, whether it left the protocol's
// assumptions, its overlaps of leaders, its excused violations, the
// stale writes the fence refused, and what its checkers judged.
func CountsOf(o *harness.Outcome) Counts {
	c := Counts{Overlaps: uint64(len(o.Overlaps)), Excused: uint64(len(o.Excused)), Judged: &harness.Judged{}}
	*c.Of(o.Verdict) = 1
	c.Judged.Add(o)
	if len(o.Outside) > 0 {
		c.Outside = 1
	}
	if o.Result != nil && o.Result.History != nil {
		for _, w := range o.Result.History.Writes {
			if !w.Accepted {
				c.Refused++
			}
		}
	}
	return c
}

// Add adds o's tallies to c's. What was judged is summed while both
// record it (JudgedKnown), and is unknown from then on otherwise; the sum
// is a new Judged, so that copies of c (a report of a campaign that goes
// on) keep theirs.
func (c *Counts) Add(o Counts) {
	switch {
	case !c.JudgedKnown() || !o.JudgedKnown():
		c.Judged = nil
	case o.Judged != nil:
		sum := &harness.Judged{}
		if c.Judged != nil {
			sum.Merge(c.Judged)
		}
		sum.Merge(o.Judged)
		c.Judged = sum
	}
	c.Pass += o.Pass
	c.Unsafe += o.Unsafe
	c.Liveness += o.Liveness
	c.Crashed += o.Crashed
	c.Inconclusive += o.Inconclusive
	c.Blocked += o.Blocked
	c.Nondeterministic += o.Nondeterministic
	c.Outside += o.Outside
	c.Overlaps += o.Overlaps
	c.Refused += o.Refused
	c.Excused += o.Excused
}

// Worst returns the most serious verdict counted, in the harness's order
// of severity; a nondeterministic seed counts as crashed. Pass if every
// seed passed.
func (c Counts) Worst() harness.Verdict {
	c.Crashed += c.Nondeterministic
	worst := harness.Pass
	for _, v := range harness.Verdicts() {
		if *c.Of(v) > 0 {
			worst = v
		}
	}
	return worst
}
