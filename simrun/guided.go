package simrun

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// guidedKeep is how many reproducers of one failure signature a guided
// run writes; it counts the others.
const guidedKeep = 20

// guidedOut is where a guided run writes the reproducers of its failures:
// a directory made at the first one (in the system's temporary directory
// unless one was named), each reproducer run-N.json.
type guidedOut struct {
	mu  sync.Mutex
	dir string // "" until made, unless named
	// prefix names a directory made in the system's temporary directory
	// ("": simrun-guided-).
	prefix string
	made   bool
	kept   map[string]int // reproducers written per signature
}

// write writes run r's reproducer, unless its signature has guidedKeep
// already, and returns its path ("" if not written).
func (g *guidedOut) write(r *harness.GuidedRun) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sig := harness.SignatureOf(r.Outcome).String()
	if g.kept == nil {
		g.kept = map[string]int{}
	}
	if g.kept[sig] >= guidedKeep {
		return "", nil
	}
	if err := g.makeDir(); err != nil {
		return "", err
	}
	rep := r.Reproducer()
	if r.Outcome.Verdict == harness.Inconclusive {
		rep.Expect = nil // it depends on the S3 check's wall-clock bound
	}
	data, err := rep.Marshal()
	if err != nil {
		return "", err
	}
	path := filepath.Join(g.dir, "run-"+strconv.FormatUint(r.N, 10)+".json")
	if err := harness.WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	g.kept[sig]++
	return path, nil
}

// guidedCampaign runs a guided campaign of budget runs of sc: fresh seeds
// from start, which also seeds its generator (harness.Guided), or, with
// untilFailure, until a run fails. Every failing run's reproducer is
// written to out (guidedKeep per signature). Results come back in run
// order, with the coverage of the runs (a point's first is the number of
// the first run that reached it) and what the campaign did.
func (cli *program) guidedCampaign(ctx context.Context, sc harness.Scenario, start, budget uint64, workers int, untilFailure bool, prog *runProgress, path3 s3Path, out *guidedOut) ([]seedResult, *schema.Coverage, *schema.Guided, time.Duration, error) {
	var (
		results []seedResult
		cov     = &schema.Coverage{}
		covErr  error
		runErr  error
	)
	begun := time.Now()
	cfg := harness.GuidedConfig{Scenario: sc, Seed: start, Start: start, Runs: budget, Workers: workers,
		Done: func(r *harness.GuidedRun) bool {
			o := r.Outcome
			if covErr == nil {
				covErr = cov.Add(o.Coverage, o.Reached, r.N)
			}
			s := cli.summarize(o, path3)
			s.Run = r.N
			if r.Parent != 0 {
				s.Parent, s.Mutations = r.Parent, r.Mutations
			}
			if s.verdict != harness.Pass {
				path, err := out.write(r)
				if err != nil {
					runErr = err
					return false
				}
				s.Reproducer = path
				switch {
				case path != "":
					s.Replay = cli.repro(harness.Repro{File: path, Flags: path3.flags()})
				case r.Parent != 0:
					s.Replay = "" // a derived plan: no reproducer kept, no replay by seed
				}
			}
			o.Result.Release()
			prog.add(s.verdict != harness.Pass)
			results = append(results, s)
			return !(untilFailure && s.verdict != harness.Pass)
		}}
	if path3 == s3SDK {
		cfg.Setup = path3.setup
	}
	res, err := harness.Guided(ctx, cfg)
	wall := time.Since(begun)
	switch {
	case err != nil:
		return nil, nil, nil, wall, err
	case runErr != nil:
		return nil, nil, nil, wall, runErr
	case covErr != nil:
		return nil, nil, nil, wall, covErr
	}
	g := &schema.Guided{Seed: start, Fresh: res.Fresh, Derived: res.Runs - res.Fresh, Invalid: res.Invalid, Corpus: len(res.Corpus)}
	if out.made {
		g.Dir = out.dir
	}
	return results, cov, g, wall, nil
}

// guidedLine describes what a guided campaign did, for the summary.
func guidedLine(g *schema.Guided) string {
	var b strings.Builder
	fmt.Fprintf(&b, "guided: %d fresh seeds, %d runs derived from a corpus of %d plans that reached something first (%d derived plans invalid, not run)",
		g.Fresh, g.Derived, g.Corpus, g.Invalid)
	if g.Dir != "" {
		fmt.Fprintf(&b, "; reproducers of failures in %s", g.Dir)
	}
	return b.String()
}
