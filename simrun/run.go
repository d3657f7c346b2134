package simrun

import (
	"crypto/rand"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
)

func hashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// scenarioFlag registers the -scenario flag.
func (cli *program) scenarioFlag(fs *flag.FlagSet) *string {
	return fs.String("scenario", cli.def, "scenario to run (see 'simrun list')")
}

func (cli *program) lookup(name string) (harness.Scenario, error) {
	sc, err := cli.catalog.Lookup(name)
	if err != nil {
		return sc, fmt.Errorf("%w: %v ('%s' lists them all; a protocol given to simrun.Main by a program of your own is known to that program only)", errUsage, err, cli.repro(harness.Repro{Verb: "list"}))
	}
	return sc, nil
}

func (cli *program) cmdRun(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlags("run", stderr)
	scenario := cli.scenarioFlag(fs)
	seeds := fs.Int("seeds", 1000, "number of seeds to run")
	start := fs.Uint64("start", 1, "first seed of the range")
	seed := fs.Uint64("seed", 0, "run this one seed (instead of -seeds/-start)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "parallel runs")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	s3 := s3Flag(fs)
	expectFlag := fs.String("expect", "", "for a scenario meant to fail: succeed if some seed is judged `VERDICT` (unsafe, liveness, ...) and every other passes")
	untilFailure := fs.Bool("until-failure", false, "run fresh seeds until one fails: from a random -start (printed) unless given, at most -seeds (default 10,000,000)")
	showCoverage := fs.Bool("coverage", false, "list the coverage points no run reached, by name (the summary counts them)")
	guided := fs.Bool("guided", false, "guided: run -seeds runs, a quarter of them fresh seeds from -start (which also seeds the choices), the others derived from the plans that reached a coverage point first, by mutating their faults and knobs; a failure's reproducer is written to -out")
	outDir := fs.String("out", "", "with -guided: the `DIR` for the reproducers of failures (default: a new directory in the system's temporary directory, made at the first failure)")
	failOutside := failOutsideFlag(fs)
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	var expect harness.Verdict
	if *expectFlag != "" {
		v, err := harness.ParseVerdict(*expectFlag)
		if err != nil || v == harness.Pass {
			return 0, fmt.Errorf("%w: -expect %q: want a failing verdict: unsafe, liveness, crashed, inconclusive or blocked", errUsage, *expectFlag)
		}
		expect = v
	}
	if cmdline.IsSet(fs, "out") && !*guided {
		return 0, fmt.Errorf("%w: -out names where -guided writes its failures; give -guided", errUsage)
	}
	if cmdline.IsSet(fs, "seed") {
		if cmdline.IsSet(fs, "seeds") || cmdline.IsSet(fs, "start") || *untilFailure || *guided {
			return 0, fmt.Errorf("%w: -seed runs one seed; do not combine it with -seeds, -start, -until-failure or -guided", errUsage)
		}
		*start, *seeds = *seed, 1
	}
	ctx, caught := cmdline.StopOnSignal()
	defer caught.Release()
	if *untilFailure {
		if !cmdline.IsSet(fs, "seeds") {
			*seeds = 10_000_000
		}
		if !cmdline.IsSet(fs, "start") {
			*start = randomStart()
			fmt.Fprintf(stderr, "simrun: running fresh seeds from %d until one fails (-start %d repeats this)\n", *start, *start)
		}
	}
	if err := checkRange(*start, *seeds, *workers); err != nil {
		return 0, err
	}
	path3 := *s3
	sc, err := cli.lookup(*scenario)
	if err != nil {
		return 0, err
	}
	sc = path3.scenario(sc)
	if *failOutside {
		sc = sc.FailingOutside()
	}
	prog := newProgress(sc.Name, "seeds", uint64(*seeds))
	if *guided {
		prog.unit = "runs"
	}
	if *untilFailure && !cmdline.IsSet(fs, "seeds") {
		prog.total = 0 // a bound, not the work to do
	}
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	var out *guidedOut
	if *guided {
		out = &guidedOut{dir: *outDir}
	}
	results, cov, g, wall, err := cli.runRange(ctx, sc, *start, uint64(*seeds), *workers, *untilFailure, prog, path3, out)
	stopProgress()
	if err != nil {
		return 0, err
	}
	sig := caught.Caught()
	ran := len(results)
	sum := schema.Run{Header: schema.NewHeader(schema.CommandRun), Scenario: sc.Name, FirstSeed: *start,
		Seeds: uint64(ran), Workers: *workers, Wall: faults.Duration(wall),
		SeedsPerSecond: float64(ran) / wall.Seconds(), Failures: []schema.SeedResult{}, Interrupted: sig != nil}
	for _, r := range results {
		sum.Counts.Add(r.counts)
		if r.verdict != harness.Pass {
			sum.Failures = append(sum.Failures, r.SeedResult)
		}
	}
	sum.Coverage, sum.Guided = cov, g
	if *asJSON {
		if err := schema.Write(stdout, sum); err != nil {
			return 0, err
		}
	} else {
		cli.printSummary(stdout, &sum, *showCoverage)
	}
	if sig != nil {
		fmt.Fprintf(stderr, "simrun: interrupted by %v after %d of %d seeds\n", sig, ran, *seeds)
		return cmdline.SignalStatus(sig), nil
	}
	if *expectFlag != "" {
		return expected(stderr, results, expect), nil
	}
	return sum.Worst().ExitCode(), nil
}

// failOutsideFlag registers the -fail-outside flag.
func failOutsideFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("fail-outside", false, "fail a seed on an overlap of leaders even where a fault outside the protocol's assumptions accounts for it (excused otherwise): for a protocol without fencing tokens, such an overlap is two leaders acting at once in production")
}

// outsideFlags are what a printed command adds to judge a run as o was
// judged: -fail-outside if it was (harness.Outcome.FailOutside).
func outsideFlags(o *harness.Outcome) []string {
	if o.FailOutside {
		return []string{"-fail-outside"}
	}
	return nil
}

// expected judges a run of a scenario meant to fail: success if some seed
// was judged expect and every other seed passed; else the status of the
// worst other verdict, or 1 if no seed failed at all.
func expected(w io.Writer, results []seedResult, expect harness.Verdict) int {
	shown, other := 0, harness.Pass
	for _, r := range results {
		switch r.verdict {
		case expect:
			shown++
		case harness.Pass:
		default:
			other = harness.Worst(other, r.verdict)
		}
	}
	switch {
	case other != harness.Pass:
		fmt.Fprintf(w, "simrun: expected %s, but some seeds are judged %s\n", expect, other)
		return other.ExitCode()
	case shown == 0:
		fmt.Fprintf(w, "simrun: expected %s, but every seed passed: the harness no longer catches it\n", expect)
		return harness.Unsafe.ExitCode()
	}
	fmt.Fprintf(w, "simrun: as expected, %d of %d seeds are judged %s\n", shown, len(results), expect)
	return exitOK
}

func (cli *program) printSummary(w io.Writer, s *schema.Run, showCoverage bool) {
	seeds := fmt.Sprintf("%d seeds (%d..%d)", s.Seeds, s.FirstSeed, s.FirstSeed+s.Seeds-1)
	switch {
	case s.Guided != nil:
		seeds = fmt.Sprintf("%d guided runs (fresh seeds from %d)", s.Seeds, s.FirstSeed)
		if s.Interrupted {
			seeds += " (interrupted)"
		}
	case s.Interrupted:
		seeds = fmt.Sprintf("%d seeds from %d (interrupted)", s.Seeds, s.FirstSeed)
	}
	unit := "seeds"
	if s.Guided != nil {
		unit = "runs"
	}
	fmt.Fprintf(w, "scenario %s: %s", s.Scenario, seeds)
	printCounts(w, &s.Counts, false, unit)
	fmt.Fprintf(w, "wall %.2fs with %d workers: %.0f %s/s\n", s.Wall.D().Seconds(), s.Workers, s.SeedsPerSecond, unit)
	if s.Guided != nil {
		fmt.Fprintln(w, guidedLine(s.Guided))
	}
	printCoverage(w, s.Coverage, s.Seeds, showCoverage)
	const show = 10
	for i, f := range s.Failures {
		if i == show {
			fmt.Fprintf(w, "... and %d more failing seeds (use -json for all)\n", len(s.Failures)-show)
			break
		}
		switch {
		case f.Parent != 0:
			fmt.Fprintf(w, "\nrun %d (seed %d, derived from run %d: %s): %s\n", f.Run, f.Seed, f.Parent, strings.Join(f.Mutations, "; "), f.Verdict)
		case f.Run != 0:
			fmt.Fprintf(w, "\nrun %d (fresh seed %d): %s\n", f.Run, f.Seed, f.Verdict)
		default:
			fmt.Fprintf(w, "\nseed %d: %s\n", f.Seed, f.Verdict)
		}
		if f.Failure != "" {
			fmt.Fprintf(w, "  %s\n", f.Failure)
		}
		for j, v := range f.Violations {
			if j == 3 {
				fmt.Fprintf(w, "  ... %d more violations\n", len(f.Violations)-3)
				break
			}
			fmt.Fprintf(w, "  %s\n", v)
		}
		if f.Replay == "" {
			fmt.Fprintf(w, "  no reproducer kept: %d of this signature were written\n", guidedKeep)
			continue
		}
		if f.Reproducer != "" {
			fmt.Fprintf(w, "  reproducer: %s\n", f.Reproducer)
		}
		fmt.Fprintf(w, "  replay: %s\n", f.Replay)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "\nadd -o FILE to a replay for a reproducer file (then '%s'), -html FILE for a page\n", cli.repro(harness.Repro{Verb: "shrink", Flags: []string{"FILE"}}))
	}
}

// printCounts ends a summary's first line with the verdicts counted (with
// nondet, the nondeterministic seeds too), and prints what was judged:
// the runs inside and outside the protocol's assumptions, the overlaps of
// leaders and the stale writes the fence refused, then the violations
// judged, excused and counted (schema.Counts.JudgedLines). unit counts
// runs: "seeds", or "runs" of a guided campaign.
func printCounts(w io.Writer, c *schema.Counts, nondet bool, unit string) {
	fmt.Fprintf(w, ": %d pass, %d unsafe, %d liveness, %d crashed", c.Pass, c.Unsafe, c.Liveness, c.Crashed)
	if c.Inconclusive > 0 {
		fmt.Fprintf(w, ", %d inconclusive", c.Inconclusive)
	}
	if c.Blocked > 0 {
		fmt.Fprintf(w, ", %d blocked outside the simulator", c.Blocked)
	}
	if nondet {
		fmt.Fprintf(w, ", %d nondeterministic", c.Nondeterministic)
	}
	fmt.Fprintln(w)
	lines := c.JudgedLines(unit)
	lines[0] += fmt.Sprintf("; %d overlaps of leaders; %d stale writes refused by the fence", c.Overlaps, c.Refused)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// randomStart is a fresh seed to start from: drawn from the operating
// system, outside any run (every run is still a function of its seed), and
// small enough that ten million seeds after it do not overflow.
func randomStart() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])>>2 + 1
}
