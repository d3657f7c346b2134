package simrun

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/s3lease/s3lease/harness"
)

// cmdBench measures the simulator: seeds per second and simulated seconds
// per wall second on one goroutine (one core), all checkers on.
func cmdBench(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("bench", stderr)
	scenario := scenarioFlag(fs)
	seeds := fs.Int("seeds", 2000, "number of seeds to run")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file")
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
	per := wall / time.Duration(*seeds)
	fmt.Fprintf(stdout, "scenario %s, %d seeds on one goroutine, all checkers on\n", sc.Name, *seeds)
	fmt.Fprintf(stdout, "%.0f seeds/s, %v per seed, %.0f simulated s per wall s, %d steps per seed, %.0f ns per step\n",
		float64(*seeds)/wall.Seconds(), per.Round(time.Microsecond),
		float64(*seeds)*simulated.Seconds()/wall.Seconds(), steps / *seeds, float64(wall.Nanoseconds())/float64(steps))
	fmt.Fprintf(stdout, "the linearizability check of the S3 history took %.1f%% of the time (%v per seed)\n",
		100*s3check.Seconds()/wall.Seconds(), (s3check / time.Duration(*seeds)).Round(time.Microsecond))
	return exitOK, nil
}
