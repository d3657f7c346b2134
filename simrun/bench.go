package simrun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

const benchUsage = `usage:
  simrun bench [-scenario NAME] [-seeds N] [-workers N] [-s3 fast|sdk | -compare-s3] [-json] [-cpuprofile FILE]
  simrun bench -scale [-scenario NAME] [-seeds N] [-json]
  simrun bench -table [-seeds N]

Measures the simulator with every checker on: seeds per second, time and
allocations per seed and per step, how the time divides between the
simulator, the protocol's code and the checkers (one seed in seventeen is
timed phase by phase), and the share of the linearizability check of the
S3 history. One goroutine by default (one core); -workers N runs N at
once, to measure how the harness scales across cores. -compare-s3 runs
the same seeds on the fast path and then through the real aws-sdk-go-v2
client (-s3 sdk), and prints both and their ratio.

-scale runs the scenario's world without faults at 3, 5, 15 and 50 nodes
for 15, 60 and 600 simulated seconds and prints the cost per node and
simulated second of each: constant if the cost grows linearly. -seeds is
then the number of seeds of the 5-node, 60-second cell; the others run as
many node-seconds in all.

-table prints the speed table as Markdown: for the reference and swarm
scenarios, seeds per second on one core (GOMAXPROCS 1), the time per
seed, the checkers' share, allocations and bytes per seed, how two workers
(GOMAXPROCS 2) compare with one, and how the real SDK's path compares
with the fast path on a tenth of the seeds.

flags:
`

// cmdBench measures the simulator.
func (cli *program) cmdBench(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("bench", stderr, benchUsage)
	scenario := cli.scenarioFlag(fs)
	seeds := fs.Int("seeds", 2000, "number of seeds to run")
	workers := fs.Int("workers", 1, "runs at once")
	scale := fs.Bool("scale", false, "the scaling table over nodes and simulated duration")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs to `FILE` (- for standard output)")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	s3 := s3Flag(fs)
	table := fs.Bool("table", false, "print the speed table (reference and swarm; one core, two workers, the SDK's path) as Markdown")
	compareS3 := fs.Bool("compare-s3", false, "run the seeds on the fast path and through the real SDK, one after the other, and print both")
	quiet := quietFlag(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	if err := cmdline.CheckCounts(*seeds, *workers); err != nil {
		return 0, err
	}
	switch {
	case *scale && *workers != 1:
		return 0, fmt.Errorf("%w: -scale measures one goroutine; do not combine it with -workers", errUsage)
	case *compareS3 && (*scale || *s3 != s3Fast):
		return 0, fmt.Errorf("%w: -compare-s3 measures both paths; do not combine it with -scale or -s3", errUsage)
	case *table && (*scale || *compareS3 || *s3 != s3Fast || *workers != 1 || *asJSON || *cpuprofile != "" || *scenario != cli.def):
		return 0, fmt.Errorf("%w: -table measures its own scenarios, paths and workers; combine it only with -seeds and -quiet", errUsage)
	}
	if *table {
		prog := newProgress("speed table", "seeds", uint64(len(tableScenarios)*(*seeds*2+2*max(1, *seeds/tableSDKShare))))
		stopProgress := cli.showProgress(stderr, *quiet, prog.report)
		rows, err := cli.benchTable(*seeds, prog)
		stopProgress()
		if err != nil {
			return 0, err
		}
		printTable(stdout, rows)
		return exitOK, nil
	}
	if err := checkOutput("-cpuprofile", *cpuprofile); err != nil {
		return 0, err
	}
	text, err := textOutput(stdout, stderr, *asJSON, "-cpuprofile", *cpuprofile)
	if err != nil {
		return 0, err
	}
	path3 := *s3
	sc, err := cli.lookup(*scenario)
	if err != nil {
		return 0, err
	}
	sc = path3.scenario(sc)
	// The profile is kept in memory and written, as every output, once
	// the runs are done.
	var profile bytes.Buffer
	stopProfile := func() error { return nil }
	if *cpuprofile != "" {
		if err := pprof.StartCPUProfile(&profile); err != nil {
			return 0, err
		}
		defer pprof.StopCPUProfile() // a no-op once stopProfile ran
		stopProfile = func() error {
			pprof.StopCPUProfile()
			return writeOutput(stdout, "-cpuprofile", *cpuprofile, profile.Bytes())
		}
	}
	b := schema.Bench{Header: schema.NewHeader(schema.CommandBench), Scenario: sc.Name}
	prog := newProgress(sc.Name, "seeds", uint64(*seeds))
	switch {
	case *scale:
		prog.total = 0 // the cells' seeds are found as they come
	case *compareS3:
		prog.total *= 2
	}
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	if *scale {
		b.Scale, err = benchScale(sc, *seeds, prog)
	} else {
		b.BenchCell, err = benchCell(sc.Build, sc.Build(1).Config.Nodes, sc.Build(1).Config.Duration, *seeds, *workers, prog)
		if err == nil && *compareS3 {
			sdk := s3SDK.scenario(sc)
			var cell schema.BenchCell
			cell, err = benchCell(sdk.Build, sdk.Build(1).Config.Nodes, sdk.Build(1).Config.Duration, *seeds, *workers, prog)
			b.SDK = &cell
		}
	}
	stopProgress()
	if err != nil {
		return 0, err
	}
	if err := stopProfile(); err != nil {
		return 0, err
	}
	switch {
	case *asJSON:
		return exitOK, schema.Write(stdout, b)
	case *scale:
		return exitOK, printScale(text, &b)
	}
	printBenchCell(text, b.Scenario, &b.BenchCell, path3)
	if b.SDK != nil {
		fmt.Fprintln(text)
		printBenchCell(text, b.Scenario, b.SDK, s3SDK)
		fmt.Fprintf(text, "\nthe same %d seeds: %.0f seeds/s on the fast path, %.0f through the real SDK (%.1f times slower)\n",
			b.Seeds, b.SeedsPerSecond, b.SDK.SeedsPerSecond, b.SeedsPerSecond/max(b.SDK.SeedsPerSecond, 1e-9))
	}
	return exitOK, nil
}

// printBenchCell prints the figures of one measurement of the scenario,
// whose nodes reached S3 by path3.
func printBenchCell(stdout io.Writer, scenario string, c *schema.BenchCell, path3 s3Path) {
	fmt.Fprintf(stdout, "scenario %s, %d seeds on %d goroutine(s), all checkers on, S3 reached by the %s path\n", scenario, c.Seeds, c.Workers, path3)
	fmt.Fprintf(stdout, "%.0f seeds/s, %v per seed, %.0f simulated s per wall s, %d steps per seed, %.0f ns per step\n",
		c.SeedsPerSecond, c.PerSeed.D().Round(time.Microsecond), c.SeedsPerSecond*c.Simulated.D().Seconds(), c.StepsPerSeed, c.NsPerStep)
	fmt.Fprintf(stdout, "%d allocations and %d KiB allocated per seed (%.1f allocations per step)\n",
		c.AllocsPerSeed, c.BytesPerSeed>>10, float64(c.AllocsPerSeed)/float64(max(c.StepsPerSeed, 1)))
	fmt.Fprintf(stdout, "%.0f%% of the time in the simulator, %.0f%% in the protocol's code, %.0f%% in the checkers (%d seeds timed phase by phase)\n",
		100*c.SimulationShare, 100*c.ProtocolShare, 100*c.CheckersShare, c.PhaseSeeds)
	fmt.Fprintf(stdout, "the linearizability check of the S3 history took %.1f%% of the time (%v per seed); the fast checker decided %.1f%% of the runs, porcupine the rest (1 in %d sampled, and every run the fast checker found illegal or could not decide)\n",
		100*c.S3CheckShare, c.S3Check.D().Round(time.Microsecond), 100*c.S3FastShare, harness.S3PorcupineEvery)
}

// phaseEvery is how often bench times a seed phase by phase: one seed in
// phaseEvery, so that the clock readings (a few thousand per seed) cost
// little of the figure. It is prime to harness.S3PorcupineEvery, so that
// the seeds timed include porcupine's share.
const phaseEvery = 17

// benchCell runs seeds 1..seeds of build on workers goroutines and
// measures them; prog counts them.
func benchCell(build func(uint64) harness.Setup, nodes int, simulated time.Duration, seeds, workers int, prog *runProgress) (schema.BenchCell, error) {
	var steps, s3check, fast atomic.Int64
	var before, after runtime.MemStats
	phases := sim.NewPhases()
	var phasesMu sync.Mutex
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := harness.Work(context.Background(), workers, harness.Count(uint64(seeds)), func(i uint64) error {
		s := build(i + 1)
		var ph *sim.Phases
		if i%phaseEvery == 0 {
			ph = phases.Fork()
			s.Config.Phases = ph
		}
		o, err := harness.RunSetup(s, false)
		if err != nil {
			return err
		}
		if ph != nil {
			phasesMu.Lock()
			phases.Add(ph)
			phasesMu.Unlock()
		}
		o.Result.Release()
		prog.add(o.Verdict != harness.Pass)
		steps.Add(int64(o.Result.Steps))
		s3check.Add(int64(o.S3.Duration))
		if o.S3.Checker == linearizability.CheckerFast {
			fast.Add(1)
		}
		return nil
	})
	wall := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		return schema.BenchCell{}, err
	}
	n := time.Duration(seeds)
	st := steps.Load()
	c := schema.BenchCell{Nodes: nodes, Simulated: faults.Duration(simulated), Seeds: seeds, Workers: workers,
		Wall: faults.Duration(wall), SeedsPerSecond: float64(seeds) / wall.Seconds(), PerSeed: faults.Duration(wall / n),
		StepsPerSeed: int(st / int64(seeds)), NsPerStep: float64(wall.Nanoseconds()*int64(workers)) / float64(max(st, 1)),
		AllocsPerSeed: (after.Mallocs - before.Mallocs) / uint64(seeds),
		BytesPerSeed:  (after.TotalAlloc - before.TotalAlloc) / uint64(seeds),
		S3Check:       faults.Duration(time.Duration(s3check.Load()) / n),
		S3CheckShare:  time.Duration(s3check.Load()).Seconds() / (wall.Seconds() * float64(workers)),
		S3FastShare:   float64(fast.Load()) / float64(seeds)}
	if total := phases.Simulation + phases.Protocol + phases.Checkers; total > 0 {
		c.PhaseSeeds = phases.Runs
		c.SimulationShare = phases.Simulation.Seconds() / total.Seconds()
		c.ProtocolShare = phases.Protocol.Seconds() / total.Seconds()
		c.CheckersShare = phases.Checkers.Seconds() / total.Seconds()
	}
	return c, nil
}

// The scaling table's nodes and simulated durations.
var (
	scaleNodes     = []int{3, 5, 15, 50}
	scaleDurations = []time.Duration{15 * time.Second, time.Minute, 10 * time.Minute}
)

// benchScale measures sc's world without faults at every size of the
// scaling table, each cell as many node-seconds as base seeds of 5 nodes
// for 60 s; prog counts the seeds.
func benchScale(sc harness.Scenario, base int, prog *runProgress) ([]schema.BenchCell, error) {
	var cells []schema.BenchCell
	for _, n := range scaleNodes {
		for _, d := range scaleDurations {
			seeds := max(2, int(float64(base)*5*60/(float64(n)*d.Seconds())))
			build := func(seed uint64) harness.Setup {
				s := harness.Small(sc.Build(seed), n, d)
				s.Plan = &faults.Plan{}
				return s
			}
			c, err := benchCell(build, n, d, seeds, 1, prog)
			if err != nil {
				return nil, fmt.Errorf("%d nodes, %v: %w", n, d, err)
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// printScale prints the scaling table: the cost of each cell per node and
// simulated second, which is constant where the cost grows linearly.
func printScale(w io.Writer, b *schema.Bench) error {
	fmt.Fprintf(w, "scenario %s without faults, one goroutine, all checkers on: cost per node and simulated second\n\n", b.Scenario)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "NODES\tSIMULATED\tSEEDS\tPER SEED\tSTEPS/NODE-S\tNS/NODE-S\tALLOCS/NODE-S\tS3 CHECK\t")
	for _, c := range b.Scale {
		ns := float64(c.Nodes) * c.Simulated.D().Seconds()
		fmt.Fprintf(tw, "%d\t%v\t%d\t%v\t%.1f\t%.0f\t%.1f\t%.1f%%\t\n", c.Nodes, c.Simulated, c.Seeds, c.PerSeed.D().Round(time.Microsecond),
			float64(c.StepsPerSeed)/ns, float64(c.PerSeed.D().Nanoseconds())/ns, float64(c.AllocsPerSeed)/ns, 100*c.S3CheckShare)
	}
	return tw.Flush()
}
