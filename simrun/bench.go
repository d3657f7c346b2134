package simrun

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/schema"
)

// cmdBench measures the simulator: seeds per second and simulated seconds
// per wall second on one goroutine (one core), all checkers on.
func cmdBench(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("bench", stderr)
	scenario := scenarioFlag(fs)
	seeds := fs.Int("seeds", 2000, "number of seeds to run")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return 0, fmt.Errorf("%w: %v", errUsage, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return 0, err
		}
		defer pprof.StopCPUProfile()
	}
	if *seeds < 1 {
		return 0, fmt.Errorf("%w: -seeds must be at least 1, got %d", errUsage, *seeds)
	}
	sc, err := lookup(*scenario)
	if err != nil {
		return 0, err
	}
	simulated := sc.Build(1).Config.Duration
	steps := 0
	var s3check time.Duration
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := range *seeds {
		o, err := harness.RunSeed(sc, uint64(i+1), false)
		if err != nil {
			return 0, err
		}
		steps += o.Result.Steps
		s3check += o.S3.Duration
	}
	wall := time.Since(start)
	runtime.ReadMemStats(&after)
	n := time.Duration(*seeds)
	b := schema.Bench{Header: schema.NewHeader(schema.CommandBench), Scenario: sc.Name, Seeds: *seeds,
		Simulated: faults.Duration(simulated), Wall: faults.Duration(wall),
		SeedsPerSecond: float64(*seeds) / wall.Seconds(), PerSeed: faults.Duration(wall / n),
		StepsPerSeed: steps / *seeds, NsPerStep: float64(wall.Nanoseconds()) / float64(max(steps, 1)),
		AllocsPerSeed: (after.Mallocs - before.Mallocs) / uint64(*seeds),
		BytesPerSeed:  (after.TotalAlloc - before.TotalAlloc) / uint64(*seeds),
		S3Check:       faults.Duration(s3check / n), S3CheckShare: s3check.Seconds() / wall.Seconds()}
	if *asJSON {
		return exitOK, writeJSON(stdout, b)
	}
	fmt.Fprintf(stdout, "scenario %s, %d seeds on one goroutine, all checkers on\n", b.Scenario, b.Seeds)
	fmt.Fprintf(stdout, "%.0f seeds/s, %v per seed, %.0f simulated s per wall s, %d steps per seed, %.0f ns per step\n",
		b.SeedsPerSecond, b.PerSeed.D().Round(time.Microsecond), b.SeedsPerSecond*simulated.Seconds(), b.StepsPerSeed, b.NsPerStep)
	fmt.Fprintf(stdout, "%d allocations and %d KiB allocated per seed (%.1f allocations per step)\n",
		b.AllocsPerSeed, b.BytesPerSeed>>10, float64(b.AllocsPerSeed)/float64(max(b.StepsPerSeed, 1)))
	fmt.Fprintf(stdout, "the linearizability check of the S3 history took %.1f%% of the time (%v per seed)\n",
		100*b.S3CheckShare, b.S3Check.D().Round(time.Microsecond))
	return exitOK, nil
}
