package simrun

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sim"
)

// exploreSummary is the JSON form of an exploration.
type exploreSummary struct {
	Scenario   string   `json:"scenario"`
	Seed       uint64   `json:"seed"`
	Nodes      int      `json:"nodes"`
	Duration   string   `json:"duration"`
	Executions int      `json:"executions"`
	Distinct   int      `json:"distinctTraces"`
	Exhausted  bool     `json:"exhausted"`
	Verdict    string   `json:"verdict"`
	Violations []string `json:"violations,omitempty"`
	Path       string   `json:"path,omitempty"`
	Replay     string   `json:"replay,omitempty"`
}

// cmdExplore enumerates a small configuration's schedules depth first.
func cmdExplore(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("explore", stderr)
	scenario := fs.String("scenario", scenarios.Reference.Name, "scenario whose world and protocol to explore")
	seed := fs.Uint64("seed", 1, "seed of the choices not explored (plans, entropy)")
	nodes := fs.Int("nodes", 2, "number of nodes (2 or 3 keep the search small)")
	duration := fs.Duration("duration", 3*time.Second, "simulated length of each execution")
	maxFaults := fs.Int("faults", 0, "fault choices that may fire in one execution")
	maxDelays := fs.Int("delays", 1, "latency choices that may take the long delay in one execution")
	depth := fs.Int("depth", 60, "choice points explored per execution (0: all)")
	executions := fs.Int("executions", 100_000, "stop after this many executions")
	path := fs.String("path", "", "replay the one execution this path names and print its trace")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
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
	sc, err := lookup(*scenario)
	if err != nil {
		return 0, err
	}
	bounds := sim.ExploreBounds{MaxFaults: *maxFaults, MaxDelays: *maxDelays, MaxDepth: *depth}
	setup := harness.Small(sc.Build(*seed), *nodes, *duration)
	if isSet(fs, "path") {
		p, err := harness.ParsePath(*path)
		if err != nil {
			return 0, fmt.Errorf("%w: -path: %v", errUsage, err)
		}
		o, err := harness.ReplayPath(setup, *seed, bounds, p, true)
		if err != nil {
			return 0, err
		}
		if err := o.Result.Trace.WriteText(stdout); err != nil {
			return 0, err
		}
		fmt.Fprintf(stdout, "verdict: %s\n", o.Verdict)
		for _, v := range o.Violations {
			fmt.Fprintf(stdout, "violation: %s\n", v)
		}
		fmt.Fprintf(stdout, "hash: %s\n", hashString(o.Result.Hash()))
		return exitFor(o.Verdict), nil
	}
	start := time.Now()
	r, err := harness.Explore(setup, *seed, bounds, *executions)
	if err != nil {
		return 0, err
	}
	sum := exploreSummary{Scenario: sc.Name, Seed: *seed, Nodes: *nodes, Duration: duration.String(),
		Executions: r.Executions, Distinct: r.Distinct, Exhausted: r.Exhausted, Verdict: harness.Pass.String()}
	if r.Found != nil {
		sum.Verdict = r.Found.Verdict.String()
		for _, v := range r.Found.Violations {
			sum.Violations = append(sum.Violations, v.String())
		}
		sum.Path = r.Path.String()
		sum.Replay = fmt.Sprintf(harness.Command()+" explore -scenario %s -seed %d -nodes %d -duration %v -faults %d -delays %d -depth %d -path '%s'",
			sc.Name, *seed, *nodes, *duration, *maxFaults, *maxDelays, *depth, sum.Path)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return 0, err
		}
	} else {
		state := "stopped at the execution limit"
		switch {
		case r.Found != nil:
			state = "stopped at the first failure"
		case r.Exhausted:
			state = "every schedule within the bounds"
		}
		fmt.Fprintf(stdout, "explored %s with %d nodes for %v: %d executions (%d distinct traces), %s, in %.2fs\n",
			sc.Name, *nodes, *duration, r.Executions, r.Distinct, state, time.Since(start).Seconds())
		if r.Found == nil {
			fmt.Fprintln(stdout, "no violation")
		} else {
			fmt.Fprintf(stdout, "%s after %d executions\n", sum.Verdict, r.Executions)
			for _, v := range sum.Violations {
				fmt.Fprintf(stdout, "  %s\n", v)
			}
			fmt.Fprintf(stdout, "  replay: %s\n", sum.Replay)
		}
	}
	if r.Found != nil {
		return exitFor(r.Found.Verdict), nil
	}
	return exitOK, nil
}

// exitFor is the exit status of a verdict.
func exitFor(v harness.Verdict) int { return v.ExitCode() }
