package simrun

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
)

// printCoverage prints what runs reached of their coverage points: one
// line, and with full the points never reached, set by set, by name.
func printCoverage(w io.Writer, c *schema.Coverage, runs uint64, full bool) {
	line := c.Summary(runs)
	if line == "" {
		return
	}
	fmt.Fprintf(w, "coverage: %s\n", line)
	if !full {
		return
	}
	for i := range c.Sets {
		s := &c.Sets[i]
		never := s.Never()
		if len(never) == 0 {
			fmt.Fprintf(w, "  every one of the %d %s reached\n", len(s.Points), s.Name)
			continue
		}
		fmt.Fprintf(w, "  never reached, %d of the %d %s:\n", len(never), len(s.Points), s.Name)
		for _, n := range never {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
}

const coverageUsage = `usage:
  simrun coverage [-scenario NAME] [-seeds N] [-start S] [-workers N] [-guided] [-json] [-doc FILE]

Runs the -seeds seeds of a scenario from -start, as 'simrun run' does (or,
with -guided, a guided campaign of as many runs, as 'simrun run -guided'
does), and prints what they reached of their coverage points: for every
set (the production elector's transitions and the answers it got in each
phase, declared in protocol.Transitions(); the harness's run shapes; a
protocol of your own's), how many points the first 100, 1000, ... runs
had reached, then every point with the number of runs that reached it and
the first seed (guided: run) that did, and the points no run reached.
-doc writes the same as the Markdown document docs/coverage.md is, with
the reason each elector transition the runs did not reach is out of their
reach.

Exit status: 0, or 2 for bad usage. Verdicts do not change it ('simrun
run' judges), but the runs that failed are listed on stderr with their
replay commands (of a guided run, its reproducer file's).

flags:
`

// cmdCoverage runs `simrun coverage`.
func (cli *program) cmdCoverage(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("coverage", stderr, coverageUsage)
	scenario := cli.scenarioFlag(fs)
	seeds := fs.Int("seeds", 1000, "number of seeds to run")
	start := fs.Uint64("start", 1, "first seed of the range")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel runs")
	asJSON := fs.Bool("json", false, "print the coverage as JSON")
	docFile := fs.String("doc", "", "write the coverage as a Markdown document to `FILE` (docs/coverage.md; - for standard output)")
	guided := fs.Bool("guided", false, "run a guided campaign of -seeds runs instead (see 'simrun run -guided')")
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	if err := checkRange(*start, *seeds, *workers); err != nil {
		return 0, err
	}
	if err := checkOutput("-doc", *docFile); err != nil {
		return 0, err
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-doc", *docFile)
	if err != nil {
		return 0, err
	}
	sc, err := cli.lookup(*scenario)
	if err != nil {
		return 0, err
	}
	ctx, caught := cmdline.StopOnSignal()
	defer caught.Release()
	var out *guidedOut
	prog := newProgress(sc.Name, "seeds", uint64(*seeds))
	if *guided {
		out, prog.unit = &guidedOut{}, "runs"
	}
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	results, cov, g, wall, err := cli.runRange(ctx, sc, *start, uint64(*seeds), *workers, false, prog, s3Fast, out)
	stopProgress()
	if err != nil {
		return 0, err
	}
	if sig := caught.Caught(); sig != nil {
		fmt.Fprintf(stderr, "simrun: interrupted by %v after %d of %d seeds\n", sig, len(results), *seeds)
		return cmdline.SignalStatus(sig), nil
	}
	doc := schema.CoverageRun{Header: schema.NewHeader(schema.CommandCoverage), Scenario: sc.Name, FirstSeed: *start,
		Seeds: uint64(len(results)), Workers: *workers, Wall: faults.Duration(wall), Coverage: *cov, Guided: g}
	if *asJSON {
		if err := schema.Write(stdout, doc); err != nil {
			return 0, err
		}
	} else {
		printCoverageTable(text, &doc)
	}
	printFailed(stderr, results)
	if *docFile != "" {
		var buf bytes.Buffer
		missing := writeCoverageDoc(&buf, &doc, strings.Join(append([]string{"coverage"}, args...), " "))
		if err := writeOutput(stdout, "-doc", *docFile, buf.Bytes()); err != nil {
			return 0, err
		}
		if len(missing) > 0 {
			fmt.Fprintf(stderr, "simrun: %s: no reason is recorded why the runs did not reach %d elector transitions (add them to electorNotes in simrun/coverage_notes.go): %s\n",
				*docFile, len(missing), strings.Join(missing, "; "))
			return exitFailed, nil
		}
	}
	return exitOK, nil
}

// printCoverageTable prints every point of every set with the runs that
// reached it and the first seed that did.
func printCoverageTable(w io.Writer, d *schema.CoverageRun) {
	first := "seed"
	if d.Guided != nil {
		first = "run"
		fmt.Fprintf(w, "scenario %s: %d guided runs (fresh seeds from %d) in %.2fs\n%s\n", d.Scenario, d.Seeds, d.FirstSeed, d.Wall.D().Seconds(), guidedLine(d.Guided))
	} else {
		fmt.Fprintf(w, "scenario %s: %d seeds (%d..%d) in %.2fs\n", d.Scenario, d.Seeds, d.FirstSeed, d.FirstSeed+d.Seeds-1, d.Wall.D().Seconds())
	}
	printCoverage(w, &d.Coverage, d.Seeds, false)
	printGrowth(w, d)
	for _, s := range d.Coverage.Sets {
		fmt.Fprintf(w, "\n%s: %d of %d reached in %d runs\n", s.Name, s.Reached, len(s.Points), s.Runs)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  RUNS\tFIRST %s\tPOINT\n", strings.ToUpper(first))
		for _, p := range s.Points {
			if p.Runs == 0 {
				fmt.Fprintf(tw, "  never\t-\t%s\n", p.Name)
				continue
			}
			fmt.Fprintf(tw, "  %d\t%d\t%s\n", p.Runs, p.First, p.Name)
		}
		tw.Flush()
	}
}

// growthPoints are the numbers of runs after which printGrowth counts the
// points reached.
var growthPoints = []uint64{100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000}

// growth lists, for each set, the points reached after 100, 200, 500, ...
// runs, and after all of them.
func growth(d *schema.CoverageRun) (after []uint64, reached [][]int) {
	for _, n := range growthPoints {
		if n < d.Seeds {
			after = append(after, n)
		}
	}
	after = append(after, d.Seeds)
	for _, s := range d.Coverage.Sets {
		row := make([]int, len(after))
		for i, n := range after {
			last := n // a guided run's number
			if d.Guided == nil {
				last = d.FirstSeed + n - 1
			}
			row[i] = s.ReachedBy(last)
		}
		reached = append(reached, row)
	}
	return after, reached
}

// printGrowth prints how many points of each set the first runs reached.
func printGrowth(w io.Writer, d *schema.CoverageRun) {
	after, reached := growth(d)
	width := len("reached after runs")
	for _, s := range d.Coverage.Sets {
		width = max(width, len(fmt.Sprintf("%s (%d)", s.Name, len(s.Points))))
	}
	fmt.Fprintf(w, "\n%-*s", width, "reached after runs")
	for _, n := range after {
		fmt.Fprintf(w, " %7d", n)
	}
	fmt.Fprintln(w)
	for i, s := range d.Coverage.Sets {
		fmt.Fprintf(w, "%-*s", width, fmt.Sprintf("%s (%d)", s.Name, len(s.Points)))
		for _, k := range reached[i] {
			fmt.Fprintf(w, " %7d", k)
		}
		fmt.Fprintln(w)
	}
}

// printFailed lists the runs that did not pass, at most ten, with their
// replay commands.
func printFailed(w io.Writer, results []seedResult) {
	var failed []seedResult
	for _, r := range results {
		if r.verdict != harness.Pass {
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(w, "simrun: %d runs did not pass:\n", len(failed))
	for i, f := range failed {
		if i == 10 {
			fmt.Fprintf(w, "  ... and %d more\n", len(failed)-10)
			break
		}
		what := fmt.Sprintf("seed %d", f.Seed)
		if f.Run != 0 {
			what = fmt.Sprintf("run %d (seed %d)", f.Run, f.Seed)
		}
		replay := f.Replay
		if replay == "" {
			replay = "no reproducer kept"
		}
		fmt.Fprintf(w, "  %s: %s; replay: %s\n", what, f.Verdict, replay)
	}
}
