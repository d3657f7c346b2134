package mutation

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Entry is one mutant of a report and what became of it.
type Entry struct {
	Mutant
	// Status is the result's status, Equivalent for a mutant the triage
	// table calls equivalent (and that was not run), or "" for a mutant
	// not run yet (an interrupted run).
	Status Status `json:"status"`
	// Result is nil for a mutant that was not run.
	Result *Result `json:"result,omitempty"`
	// Judgement is the triage table's entry for the mutant, if any.
	Judgement *Judgement `json:"judgement,omitempty"`
}

// Counts tallies the mutants of a report by status. Valid counts those
// the scores are over: run, and neither invalid, equivalent nor
// speed-only.
type Counts struct {
	Selected      int `json:"selected"`
	Invalid       int `json:"invalid"`
	Equivalent    int `json:"equivalent"`
	SpeedOnly     int `json:"speedOnly"`
	NotRun        int `json:"notRun"`
	Valid         int `json:"valid"`
	KilledBySwarm int `json:"killedBySwarm"`
	KilledByTests int `json:"killedByTests"`
	Survived      int `json:"survived"`
	// Untested counts the survivors whose test suite was not run.
	Untested int `json:"untested"`
}

// Report is the outcome of a mutation run over the selected mutants: what
// `simrun mutate -json` prints and -o writes as markdown.
type Report struct {
	// Command is the command line that produced the report.
	Command    string `json:"command"`
	Package    string `json:"package"`
	SourceHash string `json:"sourceHash"`
	Seeds      int    `json:"seeds"`
	Workers    int    `json:"workers"`
	// Tests reports whether the test suite ran on swarm survivors.
	Tests bool `json:"tests"`
	// TestCommand is the test suite's command.
	TestCommand string `json:"testCommand,omitempty"`
	// Enumerated is the number of mutants of the package; Counts tallies
	// those selected.
	Enumerated int    `json:"enumerated"`
	Selection  string `json:"selection,omitempty"`
	// Counts tallies the selected mutants of every area.
	Counts Counts `json:"counts"`
	// SwarmScore is the percentage of the valid mutants of the election
	// path (AreaElection) that the swarm killed; SuiteScore that the
	// swarm or the test suite killed. They are the score -min-score
	// gates; both are 0 when no mutant of the election path is valid.
	SwarmScore float64 `json:"swarmScore"`
	SuiteScore float64 `json:"suiteScore"`
	// Areas gives the counts and scores of each area with a selected
	// mutant, in the order of Areas; All those of every area together.
	Areas []AreaScore `json:"areas"`
	All   AreaScore   `json:"all"`
	// SeedsToCatch summarises the seeds the swarm needed to kill a
	// mutant, over the mutants it killed at a seed.
	SeedsToCatch struct {
		Median uint64 `json:"median"`
		P90    uint64 `json:"p90"`
		Max    uint64 `json:"max"`
	} `json:"seedsToCatch"`
	// Time sums the step times of the mutants run (in this run or
	// recorded earlier); Wall is this invocation's wall time.
	Time struct {
		Build time.Duration `json:"build"`
		Swarm time.Duration `json:"swarm"`
		Test  time.Duration `json:"test"`
	} `json:"time"`
	Wall        time.Duration `json:"wall"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Mutants     []Entry       `json:"mutants"`
	// StaleTriage lists the triage judgements of the package that match
	// no mutant: the code they judged changed; review them.
	StaleTriage []Judgement `json:"staleTriage,omitempty"`
	// Misjudged lists the mutants judged equivalent that were run (with
	// -check-equivalent) and killed: the judgement is wrong.
	Misjudged []string `json:"misjudged,omitempty"`
}

// AreaScore is the tally and the scores of the mutants of one area (Area
// "" for all areas together).
type AreaScore struct {
	Area       Area    `json:"area,omitempty"`
	Counts     Counts  `json:"counts"`
	SwarmScore float64 `json:"swarmScore"`
	SuiteScore float64 `json:"suiteScore"`
}

// tally counts the entries in area a ("" for all).
func tally(entries []Entry, a Area) AreaScore {
	s := AreaScore{Area: a}
	c := &s.Counts
	for _, e := range entries {
		if a != "" && e.Area != a {
			continue
		}
		c.Selected++
		switch e.Status {
		case Invalid:
			c.Invalid++
		case Equivalent:
			c.Equivalent++
		case SpeedOnly:
			c.SpeedOnly++
		case "":
			c.NotRun++
		case KilledBySwarm:
			c.KilledBySwarm++
		case KilledByTests:
			c.KilledByTests++
		case Survived:
			c.Survived++
			if !e.Result.Tested {
				c.Untested++
			}
		}
	}
	c.Valid = c.KilledBySwarm + c.KilledByTests + c.Survived
	if c.Valid > 0 {
		s.SwarmScore = 100 * float64(c.KilledBySwarm) / float64(c.Valid)
		s.SuiteScore = 100 * float64(c.KilledBySwarm+c.KilledByTests) / float64(c.Valid)
	}
	return s
}

// newReport tallies entries.
func newReport(entries []Entry) *Report {
	r := &Report{Mutants: entries}
	r.All = tally(entries, "")
	r.Counts = r.All.Counts
	for _, a := range Areas {
		if s := tally(entries, a); s.Counts.Selected > 0 {
			r.Areas = append(r.Areas, s)
			if a == AreaElection {
				r.SwarmScore, r.SuiteScore = s.SwarmScore, s.SuiteScore
			}
		}
	}
	var catch []uint64
	for _, e := range entries {
		if e.Status == KilledBySwarm && e.Result.SeedsToCatch > 0 {
			catch = append(catch, e.Result.SeedsToCatch)
		}
		if e.Result != nil {
			r.Time.Build += e.Result.Build
			r.Time.Swarm += e.Result.Swarm
			r.Time.Test += e.Result.Test
		}
		if e.Judgement != nil && e.Judgement.Kind == KindEquivalent && e.Result != nil && e.Result.Killed() {
			r.Misjudged = append(r.Misjudged, e.ID)
		}
	}
	if len(catch) > 0 {
		slices.Sort(catch)
		r.SeedsToCatch.Median = catch[(len(catch)-1)/2]
		r.SeedsToCatch.P90 = catch[(len(catch)-1)*9/10]
		r.SeedsToCatch.Max = catch[len(catch)-1]
	}
	return r
}

// Survivors returns the entries that survived.
func (r *Report) Survivors() []Entry {
	var s []Entry
	for _, e := range r.Mutants {
		if e.Status == Survived {
			s = append(s, e)
		}
	}
	return s
}

// WriteSummary writes a few lines for a terminal: the counts, the scores
// and the survivors.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	c := r.Counts
	fmt.Fprintf(&b, "mutants: %d enumerated, %d selected: %d invalid, %d equivalent, %d speed-only, %d not run; %d valid\n",
		r.Enumerated, c.Selected, c.Invalid, c.Equivalent, c.SpeedOnly, c.NotRun, c.Valid)
	fmt.Fprintf(&b, "killed by swarm (%d seeds): %d, by tests: %d, survived: %d", r.Seeds, c.KilledBySwarm, c.KilledByTests, c.Survived)
	if c.Untested > 0 {
		fmt.Fprintf(&b, " (%d not tested)", c.Untested)
	}
	b.WriteString("\n")
	for _, a := range r.Areas {
		fmt.Fprintf(&b, "%s: swarm score: %.1f%%   whole-suite score: %.1f%%   (%d valid, %d killed by swarm, %d by tests, %d survived)\n",
			areaTitle(a.Area), a.SwarmScore, a.SuiteScore, a.Counts.Valid, a.Counts.KilledBySwarm, a.Counts.KilledByTests, a.Counts.Survived)
	}
	if len(r.Areas) > 1 {
		fmt.Fprintf(&b, "all areas: swarm score: %.1f%%   whole-suite score: %.1f%%\n", r.All.SwarmScore, r.All.SuiteScore)
	}
	for _, e := range r.Survivors() {
		fmt.Fprintf(&b, "survived: %s %s %s %s %s [%s]\n", e.ID, e.Pos(), e.Func, e.Operator, e.Snippet(), e.Area)
	}
	for _, id := range r.Misjudged {
		fmt.Fprintf(&b, "misjudged: %s is in the triage table as equivalent but was killed\n", id)
	}
	for _, j := range r.StaleTriage {
		fmt.Fprintf(&b, "stale triage entry: %s %s %s %q\n", j.File, j.Func, j.Operator, j.Original)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a markdown document.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	r.mdHeader(&b)
	r.mdScore(&b)
	r.byGroup(&b, "area", func(e Entry) string { return string(e.Area) })
	r.byGroup(&b, "operator", func(e Entry) string { return string(e.Operator) })
	r.byGroup(&b, "file", func(e Entry) string { return e.File })
	r.mdSurvivors(&b)
	r.mdExcluded(&b)
	r.mdTriage(&b)
	r.mdAll(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdHeader writes the title and how the report was made.
func (r *Report) mdHeader(b *strings.Builder) {
	fmt.Fprintf(b, "# Mutation testing of %s\n\n", r.Package)
	b.WriteString("<!-- Generated by the command below (package mutation); do not edit: rerun it. -->\n\n")
	fmt.Fprintf(b, "Command: `%s`\n\n", r.Command)
	fmt.Fprintf(b, "Sources: `%s` (SHA-256 of the package's non-test files). ", short12(r.SourceHash))
	fmt.Fprintf(b, "Swarm: `run -seeds %d -workers %d -until-failure -start 1` of simrun built with each mutant. ", r.Seeds, r.Workers)
	if r.Tests {
		fmt.Fprintf(b, "Tests on swarm survivors: `%s`.\n\n", r.TestCommand)
	} else {
		b.WriteString("Tests: not run (-tests=false).\n\n")
	}
	if r.Interrupted {
		b.WriteString("**The run was interrupted: mutants not run are counted as not run.**\n\n")
	}
}

// mdScore writes the counts, the scores of each area, the seeds it took
// to catch a mutant, and the time spent.
func (r *Report) mdScore(b *strings.Builder) {
	c := r.Counts
	b.WriteString("## Score\n\n")
	b.WriteString("| | mutants |\n|---|---:|\n")
	fmt.Fprintf(b, "| enumerated | %d |\n| selected%s | %d |\n", r.Enumerated, parenthesize(r.Selection), c.Selected)
	fmt.Fprintf(b, "| invalid (do not type-check or build) | %d |\n| equivalent (triage table) | %d |\n", c.Invalid, c.Equivalent)
	fmt.Fprintf(b, "| speed-only (fail only the speed guards: the same values, more slowly) | %d |\n", c.SpeedOnly)
	if c.NotRun > 0 {
		fmt.Fprintf(b, "| not run | %d |\n", c.NotRun)
	}
	fmt.Fprintf(b, "| **valid** | **%d** |\n| killed by swarm | %d |\n| killed by tests | %d |\n| survived | %d |\n\n",
		c.Valid, c.KilledBySwarm, c.KilledByTests, c.Survived)
	for _, a := range r.Areas {
		r.mdArea(b, a)
	}
	if len(r.Areas) > 1 {
		fmt.Fprintf(b, "All areas together: swarm score %.1f%%, whole-suite score %.1f%%.  \n", r.All.SwarmScore, r.All.SuiteScore)
	}
	b.WriteString("\nThe swarm score of the election path is the one `-min-score` gates: the code that decides who leads, " +
		"for how long, with which token, and what is written to S3. Observability is code whose only effect is what the " +
		"elector reports (Metrics, Healthy, phases and transitions, Leader, OnNewLeader): users see it, but no safety " +
		"or liveness checker of the swarm can. Configuration rules are what NewElector accepts: the swarm builds electors " +
		"only from settings it draws valid. Real is code the simulator replaces (the real clock). Each is scored apart " +
		"(package mutation: Scope, Judgement.Area).\n\n")
	if c.KilledBySwarm > 0 {
		fmt.Fprintf(b, "Seeds to catch (mutants killed at a seed): median %d, 90th percentile %d, max %d.\n\n",
			r.SeedsToCatch.Median, r.SeedsToCatch.P90, r.SeedsToCatch.Max)
	}
	if run := c.Invalid + c.Valid; run > 0 {
		fmt.Fprintf(b, "Time over the %d mutants run: build %v, swarm %v, tests %v (mean per mutant %v); this invocation's wall time %v.\n\n",
			run, r.Time.Build.Round(time.Second), r.Time.Swarm.Round(time.Second), r.Time.Test.Round(time.Second),
			((r.Time.Build + r.Time.Swarm + r.Time.Test) / time.Duration(run)).Round(100*time.Millisecond), r.Wall.Round(time.Second))
	}
}

// mdArea writes the scores of one area.
func (r *Report) mdArea(b *strings.Builder, a AreaScore) {
	ac := a.Counts
	if ac.Valid == 0 {
		fmt.Fprintf(b, "%s: no valid mutant (%d selected, %d equivalent, %d invalid).  \n",
			capitalize(areaTitle(a.Area)), ac.Selected, ac.Equivalent, ac.Invalid)
		return
	}
	fmt.Fprintf(b, "%s: **Swarm score: %.1f%%** (%d of %d valid mutants killed by the swarm alone within %d seeds), ",
		capitalize(areaTitle(a.Area)), a.SwarmScore, ac.KilledBySwarm, ac.Valid, r.Seeds)
	fmt.Fprintf(b, "**Whole-suite score: %.1f%%** (%d of %d killed by the swarm or the tests)", a.SuiteScore, ac.KilledBySwarm+ac.KilledByTests, ac.Valid)
	if ac.Untested > 0 {
		fmt.Fprintf(b, "; %d survivors were not tested", ac.Untested)
	}
	if ac.SpeedOnly > 0 {
		fmt.Fprintf(b, "; counted as valid, its %d speed-only mutants would make the swarm score %.1f%%",
			ac.SpeedOnly, 100*float64(ac.KilledBySwarm)/float64(ac.Valid+ac.SpeedOnly))
	}
	b.WriteString(".  \n")
}

// mdSurvivors writes the table of surviving mutants.
func (r *Report) mdSurvivors(b *strings.Builder) {
	b.WriteString("## Survivors\n\n")
	s := r.Survivors()
	if len(s) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	b.WriteString("| id | where | func | area | operator | change | tests | triage |\n|---|---|---|---|---|---|---|---|\n")
	for _, e := range s {
		tested := "passed"
		if !e.Result.Tested {
			tested = "not run"
		}
		note := "untriaged"
		if e.Judgement != nil {
			note = string(e.Judgement.Kind) + ": " + e.Judgement.Reason
		}
		fmt.Fprintf(b, "| %s | %s:%d | %s | %s | %s | %s | %s | %s |\n", e.ID, e.File, e.Line, e.Func, e.Area, e.Operator,
			code(e.Snippet()), tested, cell(note))
	}
	b.WriteString("\n")
}

// mdExcluded writes the tables of the mutants the scores leave out: the
// speed-only and the equivalent ones.
func (r *Report) mdExcluded(b *strings.Builder) {
	b.WriteString("## Speed-only mutants\n\nThe swarm passed them and the only tests they fail are the speed guards (tests that a fast path is taken, which judge no value): " +
		"they compute what the elector computes, more slowly. Excluded from the scores, as equivalent mutants are; unlike those, a run shows it.\n\n")
	r.mdExcludedTable(b, SpeedOnly, "tests failed", func(e Entry) string { return strings.Join(e.Result.FailedTests, ", ") })
	b.WriteString("## Equivalent mutants\n\nExcluded from the scores; the reasons are the triage table's (mutation/triage.go).\n\n")
	r.mdExcludedTable(b, Equivalent, "why equivalent", func(e Entry) string { return cell(e.Judgement.Reason) })
}

// mdExcludedTable writes the table of the mutants of status s, with a last
// column named last that why fills, or None.
func (r *Report) mdExcludedTable(b *strings.Builder, s Status, last string, why func(Entry) string) {
	var rows []Entry
	for _, e := range r.Mutants {
		if e.Status == s {
			rows = append(rows, e)
		}
	}
	if len(rows) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	fmt.Fprintf(b, "| id | where | func | operator | change | %s |\n|---|---|---|---|---|---|\n", last)
	for _, e := range rows {
		fmt.Fprintf(b, "| %s | %s:%d | %s | %s | %s | %s |\n", e.ID, e.File, e.Line, e.Func, e.Operator, code(e.Snippet()), why(e))
	}
	b.WriteString("\n")
}

// mdTriage writes the triage entries to review: mutants judged equivalent
// but killed, and entries that match no mutant.
func (r *Report) mdTriage(b *strings.Builder) {
	if len(r.Misjudged) == 0 && len(r.StaleTriage) == 0 {
		return
	}
	b.WriteString("## Triage to review\n\n")
	for _, id := range r.Misjudged {
		fmt.Fprintf(b, "- %s is judged equivalent but was killed.\n", id)
	}
	for _, j := range r.StaleTriage {
		fmt.Fprintf(b, "- stale: %s %s %s %s matches no mutant.\n", j.File, j.Func, j.Operator, code(fold(j.Original)+" → "+fold(j.Replacement)))
	}
	b.WriteString("\n")
}

// mdAll writes the table of every mutant.
func (r *Report) mdAll(b *strings.Builder) {
	b.WriteString("## All mutants\n\n")
	b.WriteString("| id | where | func | operator | change | status | first failing seed | detail |\n|---|---|---|---|---|---|---:|---|\n")
	for _, e := range r.Mutants {
		status, seed, detail := string(e.Status), "", ""
		if e.Status == "" {
			status = "not run"
		}
		if res := e.Result; res != nil {
			if res.FirstFailingSeed > 0 {
				seed = fmt.Sprint(res.FirstFailingSeed)
			}
			detail = res.Verdict
			if res.Detail != "" {
				detail = strings.TrimPrefix(detail+": ", ": ") + res.Detail
			}
			if len(res.FailedTests) > 0 {
				detail = strings.Join(res.FailedTests, ", ")
			}
		}
		fmt.Fprintf(b, "| %s | %s:%d | %s | %s | %s | %s | %s | %s |\n", e.ID, e.File, e.Line, e.Func, e.Operator,
			code(e.Snippet()), status, seed, cell(cut(detail, 160)))
	}
}

// byGroup writes the scores per group.
func (r *Report) byGroup(b *strings.Builder, name string, key func(Entry) string) {
	groups := map[string][]Entry{}
	for _, e := range r.Mutants {
		groups[key(e)] = append(groups[key(e)], e)
	}
	fmt.Fprintf(b, "### By %s\n\n| %s | valid | killed by swarm | by tests | survived | swarm score |\n|---|---:|---:|---:|---:|---:|\n", name, name)
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		t := tally(groups[k], "")
		c := t.Counts
		score := "–"
		if c.Valid > 0 {
			score = fmt.Sprintf("%.0f%%", t.SwarmScore)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %s |\n", k, c.Valid, c.KilledBySwarm, c.KilledByTests, c.Survived, score)
	}
	b.WriteString("\n")
}

// areaTitle names an area in a report.
func areaTitle(a Area) string {
	switch a {
	case AreaElection:
		return "election path"
	case AreaObservability:
		return "observability"
	case AreaReal:
		return "real (never simulated)"
	case AreaConfig:
		return "configuration rules"
	}
	return string(a)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func short12(s string) string { return s[:min(12, len(s))] }

func parenthesize(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// code formats s as inline code inside a table cell.
func code(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "``" + s + "``"
	}
	return "`" + s + "`"
}

// cell makes s fit in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
}
