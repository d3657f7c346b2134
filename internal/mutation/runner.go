package mutation

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/internal/schema"
)

// Status is what became of a mutant.
type Status string

// The statuses.
const (
	// KilledBySwarm: the swarm failed a seed (any verdict but pass), the
	// simulator binary crashed, or the swarm did not finish in time.
	KilledBySwarm Status = "killed-by-swarm"
	// KilledByTests: the swarm passed every seed, the test suite failed.
	KilledByTests Status = "killed-by-tests"
	// Survived: the swarm passed every seed, and the test suite passed or
	// was not run (Result.Tested says which).
	Survived Status = "survived"
	// Invalid: the mutant does not type-check or does not build. It is
	// not counted in any score.
	Invalid Status = "invalid"
	// Equivalent: the triage table says the mutant cannot change
	// behaviour. It is not run and not counted in any score.
	Equivalent Status = "equivalent"
	// SpeedOnly: the swarm passed every seed and the only tests that
	// failed are speed guards (Options.SpeedGuards; see the package
	// documentation). It is derived from a KilledByTests result when a
	// report is made (the results file keeps KilledByTests and the failed
	// tests), so a changed list of guards applies to every result.
	SpeedOnly Status = "speed-only"
)

// speedOnly reports whether failed names only tests of guards.
func speedOnly(failed, guards []string) bool {
	if len(failed) == 0 || len(guards) == 0 {
		return false
	}
	for _, f := range failed {
		if !slices.Contains(guards, f) {
			return false
		}
	}
	return true
}

// Result is what running one mutant gave. Results are recorded one JSON
// line each in the results file as each mutant finishes.
type Result struct {
	Signature string `json:"signature"`
	// SourceHash is Package.SourceHash of the sources mutated.
	SourceHash string `json:"sourceHash"`
	ID         string `json:"id"`
	Status     Status `json:"status"`
	// Seeds is the number of seeds the swarm was asked to run.
	Seeds int `json:"seeds,omitempty"`
	// FirstFailingSeed is the lowest failing seed of a mutant killed by
	// the swarm; SeedsToCatch the number of seeds up to and including it
	// (the swarm runs from seed 1, so they are equal). Both are 0 if the
	// binary crashed or timed out.
	FirstFailingSeed uint64 `json:"firstFailingSeed,omitempty"`
	SeedsToCatch     uint64 `json:"seedsToCatch,omitempty"`
	// Verdict is that seed's verdict, or "panic" (the binary died without
	// a summary) or "timeout".
	Verdict string `json:"verdict,omitempty"`
	// Detail says more: the failure, the type error, the failed tests.
	Detail string `json:"detail,omitempty"`
	// Tested reports whether the test suite ran.
	Tested      bool     `json:"tested,omitempty"`
	FailedTests []string `json:"failedTests,omitempty"`
	// Build, Swarm and Test are the wall times of the three steps.
	Build time.Duration `json:"build,omitempty"`
	Swarm time.Duration `json:"swarm,omitempty"`
	Test  time.Duration `json:"test,omitempty"`
	// At is when the result was recorded.
	At time.Time `json:"at"`
}

// Killed reports whether the swarm or the tests killed the mutant.
func (r Result) Killed() bool { return r.Status == KilledBySwarm || r.Status == KilledByTests }

// Runner builds and runs mutants of a package. Its zero value is not
// usable: set every field without a stated default.
type Runner struct {
	Pkg *Package
	// Build is the package built with each mutant, relative to the module
	// root: "./cmd/simrun".
	Build string
	// Seeds and Workers are the swarm's -seeds and -workers.
	Seeds, Workers int
	// SwarmArgs are passed to the built binary before the seeds, workers
	// and output flags: "run".
	SwarmArgs []string
	// TestPkgs are the packages of the test suite run on mutants the
	// swarm did not kill; none means no tests.
	TestPkgs []string
	// Timeouts of the steps. SwarmTimeout 0 means five times the baseline
	// swarm's wall time, at least two minutes.
	BuildTimeout, SwarmTimeout, TestTimeout time.Duration
	// WorkDir holds the overlay, mutated file and binary of the mutant in
	// progress.
	WorkDir string
	// SwarmMemory bounds the memory the swarm may allocate, in bytes (0:
	// no bound): a mutant that makes the simulator grow without bound
	// then dies of it (a Go "fatal error: out of memory", a kill) instead
	// of the machine's memory running out. Where the system offers no
	// such bound it is ignored.
	SwarmMemory int64
}

// step runs a command with a deadline in dir, its output captured.
type step struct {
	stdout, stderr bytes.Buffer
	exit           int
	signaled       string // how the process died of a signal ("signal: killed"), if it did
	timedOut       bool
	wall           time.Duration
}

func (r *Runner) exec(ctx context.Context, timeout time.Duration, name string, args ...string) (*step, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, name, args...)
	cmd.Dir = r.Pkg.Root
	s := &step{}
	cmd.Stdout, cmd.Stderr = &s.stdout, &s.stderr
	cmd.WaitDelay = 10 * time.Second
	killGroup(cmd)
	start := time.Now()
	err := cmd.Run()
	s.wall = time.Since(start)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mutation: %s: %w", name, ctx.Err())
	}
	var ee *exec.ExitError
	switch {
	case cctx.Err() != nil:
		s.timedOut = true
	case errors.As(err, &ee):
		s.exit = ee.ExitCode()
		if s.exit < 0 {
			s.signaled = ee.ProcessState.String()
		}
	case err != nil:
		return nil, fmt.Errorf("mutation: run %s: %w", name, err)
	}
	return s, nil
}

// overlay writes the overlay that replaces m's file by its mutated source
// (or, for nil m, an empty overlay) and returns its path.
func (r *Runner) overlay(m *Mutant) (string, error) {
	replace := map[string]string{}
	if m != nil {
		src, err := r.Pkg.Mutate(*m)
		if err != nil {
			return "", err
		}
		mutated := filepath.Join(r.WorkDir, "mutant_"+filepath.Base(m.File))
		if err := os.WriteFile(mutated, src, 0o644); err != nil {
			return "", fmt.Errorf("mutation: write mutant: %w", err)
		}
		replace[r.Pkg.abs(m.File)] = mutated
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", fmt.Errorf("mutation: overlay: %w", err)
	}
	path := filepath.Join(r.WorkDir, "overlay.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("mutation: write overlay: %w", err)
	}
	return path, nil
}

// BuildWith builds r.Build with the overlay into the work directory and
// returns the binary's path; a build that fails is reported in buildErr
// (with the compiler's words), a build that could not be tried in err.
func (r *Runner) BuildWith(ctx context.Context, overlay string) (bin string, wall time.Duration, buildErr, err error) {
	bin = filepath.Join(r.WorkDir, "simrun.bin")
	_ = os.Remove(bin)
	s, err := r.exec(ctx, r.BuildTimeout, "go", "build", "-overlay", overlay, "-o", bin, r.Build)
	if err != nil {
		return "", 0, nil, err
	}
	switch {
	case s.timedOut:
		return "", s.wall, fmt.Errorf("go build timed out after %v", r.BuildTimeout), nil
	case s.exit != 0:
		return "", s.wall, fmt.Errorf("go build: %s", firstLines(s.stderr.String(), 3)), nil
	}
	return bin, s.wall, nil, nil
}

// swarmOutcome is what one run of the swarm gave.
type swarmOutcome struct {
	passed bool
	res    Result // Verdict, FirstFailingSeed, SeedsToCatch, Detail when failed
	wall   time.Duration
}

// Swarm runs the binary's swarm from seed 1, stopping at the first failing
// seed.
func (r *Runner) Swarm(ctx context.Context, bin string, timeout time.Duration) (*swarmOutcome, error) {
	args := append(slices.Clone(r.SwarmArgs), "-seeds", strconv.Itoa(r.Seeds), "-workers", strconv.Itoa(r.Workers),
		"-json", "-until-failure", "-start", "1")
	name, args := limitMemory(r.SwarmMemory, bin, args)
	s, err := r.exec(ctx, timeout, name, args...)
	if err != nil {
		return nil, err
	}
	o := &swarmOutcome{wall: s.wall}
	if s.timedOut {
		o.res.Verdict = "timeout"
		o.res.Detail = fmt.Sprintf("the swarm did not finish within %v", timeout)
		return o, nil
	}
	var sum schema.Run
	if jerr := json.Unmarshal(s.stdout.Bytes(), &sum); jerr != nil || sum.Command != schema.CommandRun {
		if s.exit == 0 {
			return nil, fmt.Errorf("mutation: swarm exited 0 without a summary: %s", firstLines(s.stderr.String(), 3))
		}
		msg := s.stderr.String()
		if s.signaled != "" {
			// Killed by a signal we did not send: the kernel's OOM
			// killer, say, after the mutant made the simulator grow
			// without bound.
			o.res.Verdict = "crash"
			o.res.Detail = "the swarm died (" + s.signaled + ") " + firstLines(msg, 2)
			return o, nil
		}
		if !strings.Contains(msg, "panic") && !strings.Contains(msg, "fatal error") {
			return nil, fmt.Errorf("mutation: swarm failed (exit %d) without a summary or a panic: %s", s.exit, firstLines(msg, 3))
		}
		o.res.Verdict = "panic"
		o.res.Detail = firstLines(msg, 2)
		return o, nil
	}
	if s.exit == 0 && sum.Failures != nil && len(sum.Failures) == 0 && sum.Pass == sum.Seeds {
		o.passed = true
		return o, nil
	}
	if len(sum.Failures) == 0 {
		return nil, fmt.Errorf("mutation: swarm exited %d and reported no failing seed", s.exit)
	}
	first := slices.MinFunc(sum.Failures, func(a, b schema.SeedResult) int {
		return cmp.Compare(a.Seed, b.Seed)
	})
	o.res.FirstFailingSeed = first.Seed
	o.res.SeedsToCatch = first.Seed - sum.FirstSeed + 1
	o.res.Verdict = first.Verdict
	switch {
	case first.Failure != "":
		o.res.Detail = first.Failure
	case len(first.Violations) > 0:
		v := first.Violations[0]
		o.res.Detail = fmt.Sprintf("%s %s: %s", v.Checker, v.Rule, v.Message)
	}
	return o, nil
}

var (
	failedTest = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	failedPkg  = regexp.MustCompile(`(?m)^FAIL\s+(\S+)\s`)
)

// testOutcome is what one run of the test suite gave.
type testOutcome struct {
	passed bool
	failed []string
	detail string
	wall   time.Duration
}

// Tests runs the test suite with the overlay (vet off: a mutant is judged
// by what the tests observe, not by vet's opinion of its code).
func (r *Runner) Tests(ctx context.Context, overlay string) (*testOutcome, error) {
	args := append([]string{"test", "-overlay", overlay, "-vet=off", "-timeout", r.TestTimeout.String()}, r.TestPkgs...)
	s, err := r.exec(ctx, r.TestTimeout+time.Minute, "go", args...)
	if err != nil {
		return nil, err
	}
	o := &testOutcome{wall: s.wall}
	out := s.stdout.String() + s.stderr.String()
	switch {
	case s.timedOut:
		o.detail = "go test did not finish in time"
	case s.exit == 0:
		o.passed = true
		return o, nil
	}
	for _, m := range failedTest.FindAllStringSubmatch(out, -1) {
		o.failed = append(o.failed, m[1])
	}
	if len(o.failed) == 0 {
		for _, m := range failedPkg.FindAllStringSubmatch(out, -1) {
			o.failed = append(o.failed, m[1])
		}
	}
	if o.detail == "" {
		switch {
		case strings.Contains(out, "panic:"):
			o.detail = "a test panicked"
		case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
			o.detail = "the tests did not build: " + firstLines(s.stderr.String(), 2)
		case strings.Contains(out, "test timed out"):
			o.detail = "a test timed out"
		default:
			o.detail = fmt.Sprintf("go test exited %d", s.exit)
		}
	}
	return o, nil
}

// Run runs one mutant: type-check, build, swarm, and the tests if the
// swarm did not kill it. swarmTimeout bounds the swarm. The error is not
// the mutant's fault (a cancelled context, a tool that cannot run).
func (r *Runner) Run(ctx context.Context, m Mutant, swarmTimeout time.Duration) (Result, error) {
	res := Result{Signature: m.Signature(), SourceHash: r.Pkg.SourceHash(), ID: m.ID, Seeds: r.Seeds}
	done := func() (Result, error) {
		res.At = time.Now().UTC()
		return res, nil
	}
	if err := r.Pkg.TypeCheck(m); err != nil {
		res.Status, res.Detail = Invalid, err.Error()
		return done()
	}
	overlay, err := r.overlay(&m)
	if err != nil {
		return res, err
	}
	bin, wall, buildErr, err := r.BuildWith(ctx, overlay)
	if err != nil {
		return res, err
	}
	res.Build = wall
	if buildErr != nil {
		res.Status, res.Detail = Invalid, buildErr.Error()
		return done()
	}
	sw, err := r.Swarm(ctx, bin, swarmTimeout)
	if err != nil {
		return res, fmt.Errorf("mutant %s: %w", m.ID, err)
	}
	res.Swarm = sw.wall
	if !sw.passed {
		res.Status = KilledBySwarm
		res.FirstFailingSeed, res.SeedsToCatch = sw.res.FirstFailingSeed, sw.res.SeedsToCatch
		res.Verdict, res.Detail = sw.res.Verdict, cut(sw.res.Detail, 300)
		return done()
	}
	res.Status = Survived
	if len(r.TestPkgs) == 0 {
		return done()
	}
	to, err := r.Tests(ctx, overlay)
	if err != nil {
		return res, fmt.Errorf("mutant %s: %w", m.ID, err)
	}
	res.Tested, res.Test = true, to.wall
	if !to.passed {
		res.Status, res.FailedTests, res.Detail = KilledByTests, to.failed, to.detail
	}
	return done()
}

// Baseline checks the unmutated sources: the swarm must pass every seed
// and the test suite (if any) must pass, or no mutant's result would mean
// anything. It returns the swarm's wall time.
func (r *Runner) Baseline(ctx context.Context) (time.Duration, error) {
	overlay, err := r.overlay(nil)
	if err != nil {
		return 0, err
	}
	bin, _, buildErr, err := r.BuildWith(ctx, overlay)
	if err != nil {
		return 0, err
	}
	if buildErr != nil {
		return 0, fmt.Errorf("mutation: baseline: %w", buildErr)
	}
	sw, err := r.Swarm(ctx, bin, max(10*time.Minute, r.SwarmTimeout))
	if err != nil {
		return 0, fmt.Errorf("mutation: baseline: %w", err)
	}
	if !sw.passed {
		return 0, fmt.Errorf("mutation: baseline: the unmutated swarm fails: seed %d %s: %s",
			sw.res.FirstFailingSeed, sw.res.Verdict, sw.res.Detail)
	}
	if len(r.TestPkgs) > 0 {
		to, err := r.Tests(ctx, overlay)
		if err != nil {
			return 0, fmt.Errorf("mutation: baseline: %w", err)
		}
		if !to.passed {
			return 0, fmt.Errorf("mutation: baseline: the unmutated test suite fails (%s: %s); fix it or run with -tests=false",
				to.detail, strings.Join(to.failed, ", "))
		}
	}
	return sw.wall, nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return cut(strings.Join(lines, " / "), 400)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
