package simrun

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/sim"
)

// cmdExplore enumerates a small configuration's schedules depth first.
func (cli *program) cmdExplore(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlags("explore", stderr)
	def := cli.def
	if _, err := cli.catalog.Lookup("reference"); err == nil {
		def = "reference" // the benchmark's world (package scenarios), when the program knows it
	}
	scenario := fs.String("scenario", def, "scenario whose world and protocol to explore")
	seed := fs.Uint64("seed", 1, "seed of the choices not explored (plans, entropy)")
	nodes := fs.Int("nodes", 2, "number of nodes (2 or 3 keep the search small)")
	duration := fs.Duration("duration", 3*time.Second, "simulated length of each execution")
	maxFaults := fs.Int("faults", 0, "fault choices that may fire in one execution")
	maxDelays := fs.Int("delays", 1, "latency choices that may take the long delay in one execution")
	depth := fs.Int("depth", 60, "choice points explored per execution (0: all)")
	por := fs.Bool("por", true, "partial-order reduction: run one order of simultaneous events of each class of equivalent orders (-por=false runs them all)")
	executions := fs.Int("executions", 100_000, "stop after this many executions (those stopped early as equivalent included)")
	path := fs.String("path", "", "replay the one execution this path names and print its trace")
	out := fs.String("o", "", "write the failing execution's reproducer to `FILE` (atomically; - for standard output), for 'simrun replay FILE'")
	page := fs.String("html", "", "write the failing execution's page to `FILE` (atomically; - for standard output)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	switch {
	case *nodes < 1 || *nodes > 5:
		return 0, fmt.Errorf("%w: -nodes must be 1 to 5, got %d", errUsage, *nodes)
	case *duration <= 0:
		return 0, fmt.Errorf("%w: -duration must be positive", errUsage)
	case *maxFaults < 0 || *maxDelays < 0 || *depth < 0 || *executions < 1:
		return 0, fmt.Errorf("%w: -faults, -delays and -depth must not be negative, -executions at least 1", errUsage)
	}
	if err := errors.Join(checkOutput("-o", *out), checkOutput("-html", *page)); err != nil {
		return 0, err
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-o", *out, "-html", *page)
	if err != nil {
		return 0, err
	}
	sc, err := cli.lookup(*scenario)
	if err != nil {
		return 0, err
	}
	bounds := sim.ExploreBounds{MaxFaults: *maxFaults, MaxDelays: *maxDelays, MaxDepth: *depth, Full: !*por}
	setup := harness.Small(sc.Build(*seed), *nodes, *duration)
	ex := explored{cli: cli, sc: sc, seed: *seed, nodes: *nodes, duration: *duration, bounds: bounds, setup: setup}
	if cmdline.IsSet(fs, "path") {
		p, err := harness.ParsePath(*path)
		if err != nil {
			return 0, fmt.Errorf("%w: -path: %v", errUsage, err)
		}
		o, err := ex.replay(p)
		if err != nil {
			return 0, err
		}
		if err := o.Result.Trace.WriteText(text); err != nil {
			return 0, err
		}
		fmt.Fprintf(text, "verdict: %s\n", o.Verdict)
		for _, v := range o.Violations {
			fmt.Fprintf(text, "violation: %s\n", v)
		}
		fmt.Fprintf(text, "hash: %s\n", hashString(o.Result.Hash()))
		if err := ex.write(stdout, text, o, p, *out, *page); err != nil {
			return 0, err
		}
		return o.Verdict.ExitCode(), nil
	}
	start := time.Now()
	prog := newProgress("explore "+sc.Name, "executions", uint64(*executions))
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	// harness.Explore, counting the executions as they are judged.
	r, err := harness.ExploreEach(setup, sim.NewExplorer(*seed, bounds), *executions, func(o *harness.Outcome, _ harness.Path) bool {
		prog.add(o.Verdict != harness.Pass)
		return o.Verdict == harness.Pass
	})
	stopProgress()
	if err != nil {
		return 0, err
	}
	sum := schema.Explore{Header: schema.NewHeader(schema.CommandExplore), Scenario: sc.Name, Seed: *seed,
		Nodes: *nodes, Duration: faults.Duration(*duration), Executions: r.Executions, Distinct: r.Distinct,
		POR: *por, Pruned: r.Pruned, StoppedEarly: r.Stopped,
		Exhausted: r.Exhausted, Verdict: harness.Pass.String(), Wall: faults.Duration(time.Since(start))}
	if r.Found != nil {
		sum.Verdict = r.Found.Verdict.String()
		sum.Violations = r.Found.Violations
		sum.Path = r.Path.String()
		sum.Replay = ex.command(r.Path)
		if *out != "" || *page != "" {
			o, err := ex.replay(r.Path)
			if err != nil {
				return 0, err
			}
			if err := ex.write(stdout, io.Discard, o, r.Path, *out, *page); err != nil {
				return 0, err
			}
			for _, f := range []struct {
				field *string
				path  string
			}{{&sum.Reproducer, *out}, {&sum.Page, *page}} {
				if f.path != "-" {
					*f.field = f.path // on standard output, the file has no name
				}
			}
		}
	}
	if *asJSON {
		if err := schema.Write(stdout, sum); err != nil {
			return 0, err
		}
	} else {
		cli.printExplore(text, &sum)
	}
	if r.Found != nil {
		return r.Found.Verdict.ExitCode(), nil
	}
	return exitOK, nil
}

// printExplore prints an exploration's result in words.
func (cli *program) printExplore(w io.Writer, sum *schema.Explore) {
	state := "stopped at the execution limit"
	switch {
	case sum.Path != "" || sum.Verdict != harness.Pass.String():
		state = "stopped at the first failure"
	case sum.Exhausted && sum.POR:
		state = "every schedule within the bounds, up to equivalence"
	case sum.Exhausted:
		state = "every schedule within the bounds"
	}
	fmt.Fprintf(w, "explored %s with %d nodes for %v: %d executions (%d distinct traces), %s, in %.2fs\n",
		sum.Scenario, sum.Nodes, sum.Duration, sum.Executions, sum.Distinct, state, sum.Wall.D().Seconds())
	if sum.POR {
		fmt.Fprintf(w, "partial-order reduction: %d branches pruned as equivalent to executions run, %d executions stopped early (-por=false runs them all)\n",
			sum.Pruned, sum.StoppedEarly)
	}
	if sum.Verdict == harness.Pass.String() {
		fmt.Fprintln(w, "no violation")
		return
	}
	fmt.Fprintf(w, "%s after %d executions\n", sum.Verdict, sum.Executions)
	for _, v := range sum.Violations {
		fmt.Fprintf(w, "  %s\n", v)
	}
	fmt.Fprintf(w, "  replay: %s\n", sum.Replay)
	if sum.Reproducer != "" {
		fmt.Fprintf(w, "  reproducer: %s (replay: %s)\n", sum.Reproducer, cli.repro(harness.Repro{File: sum.Reproducer}))
	}
	if sum.Page != "" {
		fmt.Fprintf(w, "  page: %s\n", sum.Page)
	}
}

// explored is one exploration's configuration: what a path is a path of.
type explored struct {
	cli      *program
	sc       harness.Scenario
	seed     uint64
	nodes    int
	duration time.Duration
	bounds   sim.ExploreBounds
	setup    harness.Setup
}

// replay runs the execution p names, keeping its trace.
func (e *explored) replay(p harness.Path) (*harness.Outcome, error) {
	o, err := harness.ReplayPath(e.setup, e.seed, e.bounds, p, true)
	if o != nil {
		o.Scenario, o.Seed = e.sc.Name, e.seed
	}
	return o, err
}

// command is the explore command that replays the execution p names.
func (e *explored) command(p harness.Path) string {
	return e.cli.repro(harness.Repro{Verb: "explore", Scenario: e.sc.Name, Seed: e.seed, Flags: []string{
		"-nodes", strconv.Itoa(e.nodes), "-duration", e.duration.String(), "-faults", strconv.Itoa(e.bounds.MaxFaults),
		"-delays", strconv.Itoa(e.bounds.MaxDelays), "-depth", strconv.Itoa(e.bounds.MaxDepth), "-path", p.String()}})
}

// write writes the execution's reproducer to out and its page to page,
// each if named ("-": to stdout), and says so on w.
func (e *explored) write(stdout, w io.Writer, o *harness.Outcome, p harness.Path, out, page string) error {
	if out != "" {
		rep := harness.ExploreReproducer(o, e.nodes, faults.Duration(e.duration), e.bounds, p)
		data, err := rep.Marshal()
		if err != nil {
			return err
		}
		if err := writeOutput(stdout, "-o", out, data); err != nil {
			return err
		}
		if out != "-" {
			fmt.Fprintf(w, "wrote the reproducer to %s ('%s')\n", out, e.cli.repro(harness.Repro{File: out}))
		}
	}
	if page != "" {
		replay := e.command(p)
		if out != "" && out != "-" {
			replay = e.cli.repro(harness.Repro{File: out})
		}
		title := fmt.Sprintf("explored %s seed %d, %d nodes, path %q: %s", o.Scenario, o.Seed, e.nodes, p.String(), o.Verdict)
		data, err := e.cli.page(title, o, replay)
		if err != nil {
			return err
		}
		if err := writeOutput(stdout, "-html", page, data); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote the page to %s\n", outputName(page))
	}
	return nil
}
