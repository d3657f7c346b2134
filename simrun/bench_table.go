package simrun

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// tableScenarios are the scenarios of the speed table: the reference world
// and the swarm campaign.
var tableScenarios = []string{"reference", "swarm"}

// tableSDKShare is the part of the seeds the speed table runs through the
// real SDK (and again on the fast path, for the ratio): the SDK path is
// the slow one.
const tableSDKShare = 10

// benchTable measures every scenario of tableScenarios as the speed table
// reports it: seeds seeds on one goroutine with GOMAXPROCS 1 (one core),
// the same on two goroutines with GOMAXPROCS 2, and a tenth of them on the
// fast path and through the real SDK, one after the other. prog counts
// the seeds.
func (cli *program) benchTable(seeds int, prog *runProgress) ([]tableRow, error) {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	var rows []tableRow
	for _, name := range tableScenarios {
		sc, err := cli.lookup(name)
		if err != nil {
			return nil, err
		}
		sdk := s3SDK.scenario(sc)
		few := max(1, seeds/tableSDKShare)
		r := tableRow{Scenario: name}
		for _, m := range []struct {
			cell        *schema.BenchCell
			sc          harness.Scenario
			seeds       int
			procs, runs int
		}{
			{&r.One, sc, seeds, 1, 1},
			{&r.Two, sc, seeds, 2, 2},
			{&r.Fast, sc, few, 1, 1},
			{&r.SDK, sdk, few, 1, 1},
		} {
			runtime.GOMAXPROCS(m.procs)
			w := m.sc.Build(1)
			*m.cell, err = benchCell(m.sc.Build, w.Config.Nodes, w.Config.Duration, m.seeds, m.runs, prog)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// A tableRow is one scenario's measurements for the speed table.
type tableRow struct {
	Scenario            string
	One, Two, Fast, SDK schema.BenchCell
}

// printTable prints the speed table as Markdown.
func printTable(w io.Writer, rows []tableRow) {
	fmt.Fprintf(w, "| scenario | seeds/s, one core | per seed | in the checkers | allocations per seed | KiB per seed | two workers / one | SDK path / fast path |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %.0f | %v | %.0f%% | %d | %d | %.2f | %.1f |\n", r.Scenario, r.One.SeedsPerSecond,
			r.One.PerSeed.D().Round(time.Microsecond), 100*r.One.CheckersShare, r.One.AllocsPerSeed, r.One.BytesPerSeed>>10,
			r.Two.SeedsPerSecond/max(r.One.SeedsPerSecond, 1e-9), r.Fast.SeedsPerSecond/max(r.SDK.SeedsPerSecond, 1e-9))
	}
	fmt.Fprintf(w, "\n%d and %d seeds a scenario (the last column: the first %d, on each path), all checkers on; GOMAXPROCS 1 but for two workers (2).\n",
		rows[0].One.Seeds, rows[0].Two.Seeds, rows[0].SDK.Seeds)
}
