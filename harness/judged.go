package harness

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Judged tallies what the checkers judged over a set of runs, so that a
// pass says what it stands for: how many runs stayed wholly inside the
// protocol's assumptions, and, per checker, how many violations were
// judged and how many of them faults outside the assumptions excused, by
// kind of fault. Every summary of runs (simrun run, campaign, merge, zoo,
// Check's failure) carries one.
type Judged struct {
	// Inside counts the runs judged (not crashed or blocked) that no
	// fault took outside the protocol's assumptions (Outcome.Outside is
	// empty).
	Inside uint64 `json:"insideAssumptions"`
	// Unfenced counts the runs of a protocol that declares no fencing
	// tokens (Protocol.NoFencingTokens): its overlaps of leaders outside
	// the assumptions are two leaders acting at once in production.
	Unfenced uint64 `json:"unfenced,omitempty"`
	// Checkers are the tallies of the checkers that judged a violation,
	// sorted by name.
	Checkers []CheckerJudged `json:"checkers,omitempty"`
}

// CheckerJudged is one checker's tally (Violation.Checker): the
// violations it judged, those excused, and those counted though a fault
// outside the assumptions accounts for them (FailedOutside: overlaps,
// under Setup.FailOutside). ByFault counts the last two by the kinds of
// fault that account for them (Excused.FaultKinds), sorted by kind.
// Judged - Excused were counted against the protocol.
type CheckerJudged struct {
	Checker       string       `json:"checker"`
	Judged        uint64       `json:"judged"`
	Excused       uint64       `json:"excused"`
	FailedOutside uint64       `json:"failedOutside,omitempty"`
	ByFault       []FaultCount `json:"byFault,omitempty"`
}

// FaultCount is how many violations a kind of fault accounts for.
type FaultCount struct {
	Kind  string `json:"kind"`
	Count uint64 `json:"count"`
}

// Add tallies one judged run.
func (j *Judged) Add(o *Outcome) {
	if len(o.Outside) == 0 && o.Verdict != Crashed && o.Verdict != Blocked {
		j.Inside++
	}
	if o.NoFencingTokens {
		j.Unfenced++
	}
	for _, v := range o.Violations {
		j.checker(v.Checker).Judged++
	}
	for _, x := range o.Excused {
		c := j.checker(x.Checker)
		c.Judged++
		c.Excused++
		c.addFault(x.FaultKinds(), 1)
	}
	for _, x := range o.FailedOutside { // among the Violations, judged
		c := j.checker(x.Checker)
		c.FailedOutside++
		c.addFault(x.FaultKinds(), 1)
	}
}

// checker is the tally of the checker name, added if j has none.
func (j *Judged) checker(name string) *CheckerJudged {
	i, ok := slices.BinarySearchFunc(j.Checkers, name, func(c CheckerJudged, name string) int { return strings.Compare(c.Checker, name) })
	if !ok {
		j.Checkers = slices.Insert(j.Checkers, i, CheckerJudged{Checker: name})
	}
	return &j.Checkers[i]
}

// addFault counts n more violations the fault kind accounts for.
func (c *CheckerJudged) addFault(kind string, n uint64) {
	i, ok := slices.BinarySearchFunc(c.ByFault, kind, func(f FaultCount, kind string) int { return strings.Compare(f.Kind, kind) })
	if !ok {
		c.ByFault = slices.Insert(c.ByFault, i, FaultCount{Kind: kind})
	}
	c.ByFault[i].Count += n
}

// Merge adds k's tallies to j's.
func (j *Judged) Merge(k *Judged) {
	j.Inside += k.Inside
	j.Unfenced += k.Unfenced
	for _, kc := range k.Checkers {
		c := j.checker(kc.Checker)
		c.Judged += kc.Judged
		c.Excused += kc.Excused
		c.FailedOutside += kc.FailedOutside
		for _, f := range kc.ByFault {
			c.addFault(f.Kind, f.Count)
		}
	}
}

// Excused is the number of violations, of every checker, that faults
// outside the assumptions excused.
func (j *Judged) Excused() uint64 {
	var n uint64
	for _, c := range j.Checkers {
		n += c.Excused
	}
	return n
}

// Lines renders the tally as summaries print it, for runs runs (counted
// in unit: "seeds", "runs") of which outside left the protocol's
// assumptions: how many were judged wholly inside them; a plain line when
// most left them; a line per checker that judged a violation, with the
// violations judged, excused (by the kinds of fault that excused them)
// and counted, or one line saying none was; and, for a protocol without
// fencing tokens, its overlaps of leaders outside the assumptions.
func (j *Judged) Lines(runs, outside uint64, unit string) []string {
	pct := func(n uint64) float64 { return 100 * float64(n) / float64(max(runs, 1)) }
	lines := []string{fmt.Sprintf("%s (%.1f%%) judged wholly inside the protocol's assumptions, %d outside them",
		counted(j.Inside, unit), pct(j.Inside), outside)}
	if 2*outside > runs {
		held := "the fence held, not that leaders never overlapped"
		if j.Unfenced > 0 {
			held = "what broke was excused, not that leaders never acted at once"
		}
		lines = append(lines, fmt.Sprintf("most %s (%.1f%%) ran outside the protocol's assumptions: a pass there means %s", unit, pct(outside), held))
	}
	if len(j.Checkers) == 0 {
		lines = append(lines, "no violation judged, none excused")
	}
	for _, c := range j.Checkers {
		line := fmt.Sprintf("%s: %d judged, %d excused", c.Checker, c.Judged, c.Excused)
		if c.Excused > 0 && c.FailedOutside == 0 {
			line += " (" + byFault(c.ByFault) + ")"
		}
		line += fmt.Sprintf(", %d counted", c.Judged-c.Excused)
		if c.FailedOutside > 0 {
			line += fmt.Sprintf(" (%d of them outside the assumptions, by fail-outside; %s)", c.FailedOutside, byFault(c.ByFault))
		}
		lines = append(lines, line)
	}
	if j.Unfenced > 0 {
		var ov CheckerJudged
		if i := slices.IndexFunc(j.Checkers, func(c CheckerJudged) bool { return c.Checker == "overlap" }); i >= 0 {
			ov = j.Checkers[i]
		}
		how := "excused"
		switch {
		case ov.FailedOutside > 0 && ov.Excused > 0:
			how = fmt.Sprintf("%d excused, %d failed by fail-outside", ov.Excused, ov.FailedOutside)
		case ov.FailedOutside > 0:
			how = "failed by fail-outside"
		}
		lines = append(lines, fmt.Sprintf("%s of leaders outside the assumptions, %s; with no fencing token, each is two leaders acting at once",
			counted(ov.Excused+ov.FailedOutside, "overlaps"), how))
	}
	return lines
}

// counted is n things of a plural noun: "3 seeds", "1 seed".
func counted(n uint64, plural string) string {
	if n == 1 {
		plural = strings.TrimSuffix(plural, "s")
	}
	return fmt.Sprintf("%d %s", n, plural)
}

// byFaultShown is how many kinds of fault a checker's line names; the rest
// are summed up.
const byFaultShown = 4

// byFault lists the counts by kind of fault, most first:
// "vm-suspend 812, delete-lock 300, 2 other kinds 7".
func byFault(fs []FaultCount) string {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b FaultCount) int { return cmp.Compare(b.Count, a.Count) })
	var parts []string
	var rest uint64
	for i, f := range fs {
		if i < byFaultShown || len(fs) == byFaultShown+1 {
			parts = append(parts, fmt.Sprintf("%s %d", f.Kind, f.Count))
		} else {
			rest += f.Count
		}
	}
	if n := len(fs) - len(parts); n > 0 {
		parts = append(parts, fmt.Sprintf("%d other kinds %d", n, rest))
	}
	return strings.Join(parts, ", ")
}
