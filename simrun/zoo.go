package simrun

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/zoo"
)

// cmdZoo runs every scenario of the zoo (zoo.Scenarios: the careful lock,
// then each deliberately broken variant of it; with -masked or -swarm the
// masked variants too) seed by seed from 1, until its first failing seed
// or the budget, and reports how fast the default campaign catches each
// mistake; -swarm adds the median and the longest time to a catch. It
// exits 0 if every variant was caught and the careful control passed its
// whole budget, 1 otherwise.
func (cli *program) cmdZoo(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlags("zoo", stderr)
	budget := fs.Int("seeds", 2000, "the most seeds to run per scenario")
	first := fs.Uint64("start", 1, "the first seed (with -guided, the first fresh seed, which also seeds the campaign's choices)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "scenarios run in parallel")
	shrink := fs.Int("shrink", 0, "shrink each first failure with this many runs at most (0: do not shrink), and write the shrunk reproducers to -out as VARIANT.min.json")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	masked := fs.Bool("masked", false, "also run the masked variants (zoo.Masked), which the other defences of the careful lock hide")
	swarm := fs.Bool("swarm", false, "every variant, the masked ones included, under plain swarm seeds: the first failing seed of each and the time to it, with the median and the longest (-seeds defaults to 20000); exit 0 only if every variant is caught")
	guided := fs.Bool("guided", false, "as -swarm, but each variant under a guided campaign of at most -seeds runs (fresh seeds from 1, which also seed its choices; see 'simrun run -guided'); a first failure's reproducer is written to -out")
	outDir := fs.String("out", "", "with -guided or -shrink: the `DIR` for the first failures' reproducers and the shrunk ones (default: a new directory in the system's temporary directory)")
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	if *swarm && *guided {
		return 0, fmt.Errorf("%w: -swarm and -guided are two ways to run the swarm: give one", errUsage)
	}
	if cmdline.IsSet(fs, "out") && !*guided && *shrink == 0 {
		return 0, fmt.Errorf("%w: -out names where -guided and -shrink write their reproducers; give -guided or -shrink", errUsage)
	}
	if *swarm || *guided {
		*masked = true
		if !cmdline.IsSet(fs, "seeds") {
			*budget = 20000
		}
	}
	if err := checkRange(*first, *budget, *workers); err != nil {
		return 0, err
	}
	if *shrink < 0 {
		return 0, fmt.Errorf("%w: -shrink must not be negative, got %d", errUsage, *shrink)
	}
	start := time.Now()
	scs, err := cli.zooScenarios(zoo.Scenarios())
	if err != nil {
		return 0, err
	}
	unmasked := len(scs)
	if *masked {
		more, err := cli.zooScenarios(zoo.MaskedScenarios())
		if err != nil {
			return 0, err
		}
		scs = append(scs, more...)
	}
	var out *guidedOut
	if *guided {
		out = &guidedOut{dir: *outDir}
	}
	shrunk := out // where the shrunk reproducers go
	if shrunk == nil && *shrink > 0 {
		shrunk = &guidedOut{dir: *outDir, prefix: "simrun-zoo-"}
	}
	prog := newProgress("zoo", "seeds", 0)
	if *guided {
		prog.unit = "runs"
	}
	prog.partsTotal, prog.partUnit = uint64(len(scs)), "scenarios"
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	rows, err := cli.zooRows(scs, *first, *budget, *workers, *shrink, out, shrunk, prog)
	stopProgress()
	if err != nil {
		return 0, err
	}
	for i := unmasked; i < len(rows); i++ {
		rows[i].Masked = true
	}
	sum := schema.Zoo{Header: schema.NewHeader(schema.CommandZoo), Budget: *budget, Start: *first, Workers: *workers, ControlPassed: true,
		Wall: faults.Duration(time.Since(start)), Rows: rows, Swarm: *swarm, Guided: *guided, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	var catches []time.Duration
	for _, r := range rows {
		switch {
		case r.Control:
			sum.ControlPassed = sum.ControlPassed && !r.Caught
		default:
			sum.Variants++
			if r.Caught {
				sum.Caught++
				catches = append(catches, r.Wall.D())
			}
		}
	}
	if len(catches) > 0 && sum.Caught == sum.Variants {
		slices.Sort(catches)
		median := catches[len(catches)/2]
		if len(catches)%2 == 0 {
			median = (catches[len(catches)/2-1] + median) / 2
		}
		sum.MedianCatch, sum.MaxCatch = faults.Duration(median), faults.Duration(catches[len(catches)-1])
	}
	if *asJSON {
		if err := schema.Write(stdout, sum); err != nil {
			return 0, err
		}
	} else if err := cli.printZoo(stdout, &sum, *shrink > 0); err != nil {
		return 0, err
	}
	if sum.Caught < sum.Variants || !sum.ControlPassed {
		return harness.Unsafe.ExitCode(), nil
	}
	return exitOK, nil
}

// zooScenarios are the program's scenarios of scs, which it must know, so
// that the commands the zoo prints replay in it.
func (cli *program) zooScenarios(scs []harness.Scenario) ([]harness.Scenario, error) {
	out := make([]harness.Scenario, len(scs))
	for i, sc := range scs {
		var err error
		if out[i], err = cli.catalog.Lookup(sc.Name); err != nil {
			return nil, fmt.Errorf("%w: this program was not given the zoo's scenarios (simrun.Scenarios(zoo.All()...)): %v", errUsage, err)
		}
	}
	return out, nil
}

// zooRows runs each scenario on one of workers goroutines, seeds in order
// within a scenario (or, with out, a guided campaign of each that writes
// its first failure's reproducer to out), and returns the rows in the order
// of scs.
// shrunk is where shrunk reproducers go; prog counts the seeds (runs) and
// the scenarios done.
func (cli *program) zooRows(scs []harness.Scenario, first uint64, budget, workers, shrink int, out, shrunk *guidedOut, prog *runProgress) ([]schema.ZooRow, error) {
	rows := make([]schema.ZooRow, len(scs))
	err := harness.Work(context.Background(), min(workers, len(scs)), harness.Count(uint64(len(scs))), func(i uint64) error {
		var err error
		if out != nil {
			rows[i], err = cli.zooGuided(scs[i], first, budget, shrink, out, prog)
		} else {
			rows[i], err = cli.zooRun(scs[i], first, budget, shrink, shrunk, prog)
		}
		prog.finishPart()
		return err
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// zooRun runs sc from seed first until a seed fails or budget seeds
// passed.
func (cli *program) zooRun(sc harness.Scenario, first uint64, budget, shrink int, shrunk *guidedOut, prog *runProgress) (schema.ZooRow, error) {
	row := schema.ZooRow{Scenario: sc.Name, Control: sc.Expect != harness.Caught, Judged: &harness.Judged{}}
	start := time.Now()
	for seed := first; seed < first+uint64(budget); seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			return row, fmt.Errorf("%s seed %d: %w", sc.Name, seed, err)
		}
		judged(&row, o)
		prog.add(o.Verdict != harness.Pass)
		if o.Verdict == harness.Pass {
			continue
		}
		row.Wall = faults.Duration(time.Since(start))
		row.Caught, row.Seed, row.Verdict = true, seed, o.Verdict.String()
		row.Replay = cli.repro(harness.Repro{Scenario: sc.Name, Seed: seed})
		describeCatch(&row, o)
		return row, cli.shrinkCatch(sc, &row, harness.ReproducerFor(sc, o), shrink, shrunk)
	}
	row.Wall = faults.Duration(time.Since(start))
	return row, nil
}

// zooGuided runs a guided campaign of sc (fresh seeds from first, which
// also seeds its choices, on one goroutine) until a run fails or budget
// runs passed, and writes the failing run's reproducer to out.
func (cli *program) zooGuided(sc harness.Scenario, first uint64, budget, shrink int, out *guidedOut, prog *runProgress) (schema.ZooRow, error) {
	row := schema.ZooRow{Scenario: sc.Name, Control: sc.Expect != harness.Caught, Judged: &harness.Judged{}}
	start := time.Now()
	var failed *harness.GuidedRun
	_, err := harness.Guided(context.Background(), harness.GuidedConfig{Scenario: sc, Seed: first, Start: first, Runs: uint64(budget), Workers: 1,
		Done: func(r *harness.GuidedRun) bool {
			judged(&row, r.Outcome)
			prog.add(r.Outcome.Verdict != harness.Pass)
			if r.Outcome.Verdict == harness.Pass {
				r.Outcome.Result.Release()
				return true
			}
			failed = r
			return false
		}})
	row.Wall = faults.Duration(time.Since(start))
	if err != nil || failed == nil {
		return row, err
	}
	o := failed.Outcome
	row.Caught, row.Seed, row.Verdict, row.Parent = true, o.Seed, o.Verdict.String(), failed.Parent
	describeCatch(&row, o)
	path, err := out.write(failed)
	if err != nil {
		return row, err
	}
	row.Reproducer = path
	row.Replay = cli.repro(harness.Repro{File: path})
	return row, cli.shrinkCatch(sc, &row, failed.Reproducer(), shrink, out)
}

// judged counts a run of the row's scenario: a seed run, whether it left
// the assumptions, and what its checkers judged.
func judged(row *schema.ZooRow, o *harness.Outcome) {
	row.Seeds++
	if len(o.Outside) > 0 {
		row.Outside++
	}
	row.Judged.Add(o)
}

// describeCatch fills in what the failing run o of a variant showed: its
// plan's size, and its first violation or its failure.
func describeCatch(row *schema.ZooRow, o *harness.Outcome) {
	row.PlanEvents = len(o.Plan.Events)
	switch {
	case len(o.Violations) > 0:
		row.Violation = &o.Violations[0]
	case o.Result.Failure != nil:
		row.Failure = o.Result.Failure.Error()
	}
}

// shrinkCatch shrinks the failing run rep with at most budget runs (none
// if budget is 0), records how it went, and writes the shrunk reproducer
// to out.
func (cli *program) shrinkCatch(sc harness.Scenario, row *schema.ZooRow, rep *harness.Reproducer, budget int, out *guidedOut) error {
	if budget <= 0 {
		return nil
	}
	small, runs, err := harness.Shrink(sc, rep, budget)
	row.ShrinkRuns = runs
	if err != nil {
		row.ShrinkFailure = err.Error()
		return nil
	}
	n := len(small.Plan.Events)
	row.ShrunkEvents = &n
	row.Shrunk, err = out.writeShrunk(sc.Name, small)
	return err
}

// printZoo prints the rows as a table, the control first.
func (cli *program) printZoo(w io.Writer, s *schema.Zoo, shrunk bool) error {
	fmt.Fprintf(w, "zoo: the careful lock and %d broken variants under the swarm campaign, seeds %d..%d each (%d workers)\n\n",
		s.Variants, s.Start, s.Start+uint64(s.Budget)-1, s.Workers)
	switch {
	case s.Swarm:
		fmt.Fprintf(w, "(plain swarm seeds from %d, no reproducer of any variant; WALL is the time to the first failing seed)\n\n", s.Start)
	case s.Guided:
		fmt.Fprintf(w, "(a guided campaign of each, fresh seeds from %d, no reproducer of any variant; SEEDS are its runs, WALL the time to the first failing one)\n\n", s.Start)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "VARIANT\tCAUGHT\tVERDICT\tCHECKER\tSEEDS\tINSIDE\tEXCUSED\tWALL\tPLAN EVENTS"
	if shrunk {
		head += "\tSHRUNK"
	}
	fmt.Fprintln(tw, head+"\tREPLAY")
	for _, r := range s.Rows {
		name := strings.TrimPrefix(r.Scenario, "zoo/")
		caught := "no"
		if r.Caught {
			caught = "yes"
		}
		verdict, checker, events, shrink, replay := "pass", "-", "-", "-", "-"
		if r.Caught {
			verdict, checker, events, replay = r.Verdict, zooChecker(&r), fmt.Sprint(r.PlanEvents), r.Replay
			if r.ShrunkEvents != nil {
				shrink = fmt.Sprint(*r.ShrunkEvents)
			}
		}
		if r.Control {
			name += " (control)"
			caught = "-"
		}
		if r.Masked {
			name += " (masked)"
		}
		inside, excused := "-", "-"
		if r.Judged != nil {
			inside, excused = fmt.Sprint(r.Judged.Inside), fmt.Sprint(r.Judged.Excused())
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%s\t%s\t%.2fs\t%s", name, caught, verdict, checker, r.Seeds, inside, excused, r.Wall.D().Seconds(), events)
		if shrunk {
			line += "\t" + shrink
		}
		fmt.Fprintln(tw, line+"\t"+replay)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	unit := "seeds"
	if s.Guided {
		unit = "runs"
	}
	control := fmt.Sprintf("the careful control passed all %d %s", s.Budget, unit)
	if !s.ControlPassed {
		control = "the careful control FAILED (see its row): a variant's failure is not attributable to its mistake"
	}
	fmt.Fprintf(w, "\n%d of %d variants caught; %s; wall %.2fs\n", s.Caught, s.Variants, control, s.Wall.D().Seconds())
	fmt.Fprintf(w, "INSIDE: the seeds judged wholly inside the lock's assumptions; EXCUSED: the violations faults outside them excused\n")
	for _, r := range s.Rows {
		if r.Control && r.Judged != nil {
			fmt.Fprintf(w, "what the careful control's %d %s judged:\n", r.Seeds, unit)
			for _, l := range r.Judged.Lines(uint64(r.Seeds), uint64(r.Outside), unit) {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	if (s.Swarm || s.Guided) && s.Caught == s.Variants {
		fmt.Fprintf(w, "time to catch a variant: median %.2fs, longest %.2fs (GOMAXPROCS=%d, %d workers)\n",
			s.MedianCatch.D().Seconds(), s.MaxCatch.D().Seconds(), s.GOMAXPROCS, s.Workers)
	}
	for _, r := range s.Rows {
		if r.Shrunk != "" {
			fmt.Fprintf(w, "shrunk reproducers: %s/VARIANT.min.json ('%s')\n", filepath.Dir(r.Shrunk),
				cli.repro(harness.Repro{File: r.Shrunk}))
			break
		}
	}
	fmt.Fprintf(w, "each variant's mistake: %s; a failure's reproducer: %s\n", cli.repro(harness.Repro{Verb: "list", Flags: []string{"-v"}}),
		cli.repro(harness.Repro{Flags: []string{"-scenario", "zoo/NAME", "-seed", "S", "-o", "FILE"}}))
	for _, r := range s.Rows {
		if !r.Control && !r.Caught {
			fmt.Fprintf(w, "not caught in %d seeds: %s\n", r.Seeds, r.Scenario)
		}
	}
	return nil
}

// zooChecker names what caught a variant: the checker and rule of its
// first violation, or the kind of failure of a crash.
func zooChecker(r *schema.ZooRow) string {
	switch {
	case r.Violation == nil:
		if kind, _, ok := strings.Cut(r.Failure, " "); ok {
			return kind
		}
		return "-"
	case r.Violation.Rule != "":
		return r.Violation.Checker + "/" + r.Violation.Rule
	}
	return r.Violation.Checker
}
