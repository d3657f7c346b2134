package simrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// zooRow is what `simrun zoo` reports of one lock of the zoo: the first
// failing seed of its scenario, or that there was none within the budget.
type zooRow struct {
	Scenario string `json:"scenario"`
	// Control marks the careful lock, which must pass every seed; the
	// variants must each fail one.
	Control bool `json:"control,omitempty"`
	// Caught: a seed failed (Unsafe, Liveness or Crashed).
	Caught bool `json:"caught"`
	// Seeds is how many seeds ran: up to and including the first failing
	// one, or the whole budget.
	Seeds int `json:"seeds"`
	// WallSeconds is the wall time those seeds took.
	WallSeconds float64 `json:"wallSeconds"`
	// Of the first failing seed: its number, verdict, the checker of its
	// first violation (checker/rule; for a crash, the kind of failure),
	// that violation in words, the number of events in its fault plan (the
	// size of its reproducer before shrinking), with -shrink the events
	// left after shrinking, and the command that replays it.
	Seed          uint64 `json:"seed,omitempty"`
	Verdict       string `json:"verdict,omitempty"`
	Checker       string `json:"checker,omitempty"`
	Violation     string `json:"violation,omitempty"`
	PlanEvents    int    `json:"planEvents,omitempty"`
	ShrunkEvents  *int   `json:"shrunkEvents,omitempty"`
	ShrinkRuns    int    `json:"shrinkRuns,omitempty"`
	Replay        string `json:"replay,omitempty"`
	ShrinkFailure string `json:"shrinkFailure,omitempty"`
}

// zooSummary is the machine-readable result of `simrun zoo -json`.
type zooSummary struct {
	Budget      int      `json:"budget"`
	Workers     int      `json:"workers"`
	Variants    int      `json:"variants"`
	Caught      int      `json:"caught"`
	ControlPass bool     `json:"controlPassed"`
	WallSeconds float64  `json:"wallSeconds"`
	Rows        []zooRow `json:"rows"`
}

// cmdZoo runs every scenario of the zoo (zoo.Scenarios: the careful lock,
// then each deliberately broken variant of it) seed by seed from 1, until
// its first failing seed or the budget, and reports how fast the default
// campaign catches each mistake. It exits 0 if every variant was caught and
// the careful control passed its whole budget, 1 otherwise.
func cmdZoo(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("zoo", stderr)
	budget := fs.Int("seeds", 2000, "the most seeds to run per scenario")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "scenarios run in parallel")
	shrink := fs.Int("shrink", 0, "shrink each first failure with this many runs at most (0: do not shrink)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	switch {
	case *budget < 1:
		return 0, fmt.Errorf("%w: -seeds must be at least 1, got %d", errUsage, *budget)
	case *workers < 1:
		return 0, fmt.Errorf("%w: -workers must be at least 1, got %d", errUsage, *workers)
	case *shrink < 0:
		return 0, fmt.Errorf("%w: -shrink must not be negative, got %d", errUsage, *shrink)
	}
	start := time.Now()
	rows, err := zooRows(zoo.Scenarios, *budget, *workers, *shrink)
	if err != nil {
		return 0, err
	}
	sum := zooSummary{Budget: *budget, Workers: *workers, ControlPass: true, WallSeconds: time.Since(start).Seconds(), Rows: rows}
	for _, r := range rows {
		switch {
		case r.Control:
			sum.ControlPass = sum.ControlPass && !r.Caught
		default:
			sum.Variants++
			if r.Caught {
				sum.Caught++
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return 0, err
		}
	} else if err := printZoo(stdout, &sum, *shrink > 0); err != nil {
		return 0, err
	}
	if sum.Caught < sum.Variants || !sum.ControlPass {
		return harness.Unsafe.ExitCode(), nil
	}
	return exitOK, nil
}

// zooRows runs each scenario on one of workers goroutines, seeds in order
// within a scenario, and returns the rows in the order of scs.
func zooRows(scs []harness.Scenario, budget, workers, shrink int) ([]zooRow, error) {
	rows := make([]zooRow, len(scs))
	err := harness.Work(context.Background(), min(workers, len(scs)), harness.Count(uint64(len(scs))), func(i uint64) error {
		var err error
		rows[i], err = zooRun(scs[i], budget, shrink)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// zooRun runs sc from seed 1 until a seed fails or budget seeds passed.
func zooRun(sc harness.Scenario, budget, shrink int) (zooRow, error) {
	row := zooRow{Scenario: sc.Name, Control: sc.Expect != harness.Caught}
	start := time.Now()
	for seed := uint64(1); seed <= uint64(budget); seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			return row, fmt.Errorf("%s seed %d: %w", sc.Name, seed, err)
		}
		row.Seeds++
		if o.Verdict == harness.Pass {
			continue
		}
		row.WallSeconds = time.Since(start).Seconds()
		row.Caught, row.Seed, row.Verdict = true, seed, o.Verdict.String()
		row.Replay = harness.ReplayCommand(sc.Name, seed)
		row.PlanEvents = len(o.Plan.Events)
		switch {
		case len(o.Violations) > 0:
			v := o.Violations[0]
			row.Checker, row.Violation = v.Checker, v.String()
			if v.Rule != "" {
				row.Checker += "/" + v.Rule
			}
		case o.Result.Failure != nil:
			row.Checker, row.Violation = o.Result.Failure.Kind.String(), o.Result.Failure.Error()
		}
		if shrink > 0 {
			small, runs, err := harness.Shrink(harness.ReproducerFor(o), shrink)
			row.ShrinkRuns = runs
			if err != nil {
				row.ShrinkFailure = err.Error()
			} else {
				n := len(small.Plan.Events)
				row.ShrunkEvents = &n
			}
		}
		return row, nil
	}
	row.WallSeconds = time.Since(start).Seconds()
	return row, nil
}

// printZoo prints the rows as a table, the control first.
func printZoo(w io.Writer, s *zooSummary, shrunk bool) error {
	fmt.Fprintf(w, "zoo: the careful lock and %d broken variants under the swarm campaign, seeds 1..%d each (%d workers)\n\n",
		s.Variants, s.Budget, s.Workers)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "VARIANT\tCAUGHT\tVERDICT\tCHECKER\tSEEDS\tWALL\tPLAN EVENTS"
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
			verdict, checker, events, replay = r.Verdict, r.Checker, fmt.Sprint(r.PlanEvents), r.Replay
			if r.ShrunkEvents != nil {
				shrink = fmt.Sprint(*r.ShrunkEvents)
			}
		}
		if r.Control {
			name += " (control)"
			caught = "-"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%.2fs\t%s", name, caught, verdict, checker, r.Seeds, r.WallSeconds, events)
		if shrunk {
			line += "\t" + shrink
		}
		fmt.Fprintln(tw, line+"\t"+replay)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	control := fmt.Sprintf("the careful control passed all %d seeds", s.Budget)
	if !s.ControlPass {
		control = "the careful control FAILED (see its row): a variant's failure is not attributable to its mistake"
	}
	fmt.Fprintf(w, "\n%d of %d variants caught; %s; wall %.2fs\n", s.Caught, s.Variants, control, s.WallSeconds)
	fmt.Fprintf(w, "each variant's mistake: %[1]s list -v; a failure's reproducer: %[1]s replay -scenario zoo/NAME -seed S -o FILE\n", harness.Command())
	for _, r := range s.Rows {
		if !r.Control && !r.Caught {
			fmt.Fprintf(w, "not caught in %d seeds: %s\n", r.Seeds, r.Scenario)
		}
	}
	return nil
}
