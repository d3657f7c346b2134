package mutation

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
)

// errUsage marks errors in the command line.
var errUsage = cmdline.ErrUsage

// Options are the settings of a mutation run; Main fills them from flags.
type Options struct {
	Dir      string // module directory (-C)
	Pkg      string // package directory to mutate, relative to Dir (-pkg)
	Build    string // package built with each mutant (-build)
	TestPkgs []string
	Seeds    int
	Workers  int
	Tests    bool
	Only     []string
	Match    *regexp.Regexp
	Limit    int
	// SampleK of every SampleM mutants are selected, by a hash of their
	// signatures (stable when other code changes); 0 selects all.
	SampleK, SampleM int
	JSON             bool
	Out              string // markdown report (-o)
	Results          string // results file
	MinScore         float64
	List             bool
	Fresh            bool
	CheckEquivalent  bool
	BuildTimeout     time.Duration
	SwarmTimeout     time.Duration
	TestTimeout      time.Duration
	SwarmMemory      int64 // bytes; 0: no bound
	Triage           []Judgement
	// SpeedGuards are the tests that judge only speed (SpeedOnly); the
	// default is the package's SpeedGuards.
	SpeedGuards []string
	// Area selects the mutants of one area ("" for all); Scope names the
	// package's observability code (SetAreas).
	Area  Area
	Scope Scope
}

// defaultResults is the results file used when -results is not given.
func defaultResults() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "s3lease", "mutation-results.jsonl")
}

// Main runs the mutate command with args (the flags after "mutate"),
// writing the summary (or with -json the report) to stdout and progress to
// stderr. It returns the exit status: 0 if the swarm score is at least
// -min-score, 2 for a usage error, 1 otherwise (a lower score, an
// interrupted run, a baseline that fails, a tool that cannot run).
func Main(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var rep *Report
	if err == nil {
		ctx, caught := cmdline.StopOnSignal()
		defer caught.Release()
		progress := stderr
		if o.List {
			progress = stdout
		}
		rep, err = Execute(ctx, o, progress)
	}
	if rep != nil {
		rep.Command = harness.Repro{Verb: "mutate", Flags: args}.Command()
		if werr := emit(o, rep, stdout); werr != nil && err == nil {
			err = werr
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "simrun mutate: %v\n", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	case o.List:
		return 0
	case rep.SwarmScore < o.MinScore:
		fmt.Fprintf(stderr, "simrun mutate: the election path's swarm score %.1f%% is below -min-score %.1f%%\n", rep.SwarmScore, o.MinScore)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (*Options, error) {
	fs := cmdline.NewFlags("mutate", stderr)
	o := &Options{Triage: Triage, Scope: ProtocolScope, SpeedGuards: SpeedGuards}
	fs.StringVar(&o.Dir, "C", ".", "the module's `DIR` (or a directory inside it)")
	fs.StringVar(&o.Pkg, "pkg", "protocol", "the package directory to mutate, relative to the module root")
	fs.StringVar(&o.Build, "build", "./cmd/simrun", "the package built with each mutant; its run subcommand is the swarm")
	testPkgs := fs.String("test-pkgs", "./protocol/,./scenarios/,./zoo/,./harness/", "comma-separated packages of the test suite run on swarm survivors")
	fs.IntVar(&o.Seeds, "seeds", 10_000, "seeds of the swarm per mutant (from seed 1; it stops at the first failure)")
	fs.IntVar(&o.Workers, "workers", runtime.GOMAXPROCS(0), "parallel seeds in the swarm")
	fs.BoolVar(&o.Tests, "tests", true, "run the test suite on mutants the swarm does not kill")
	only := fs.String("only", "", "run only these mutant `IDs` (comma-separated)")
	match := fs.String("match", "", "run only mutants whose ID, file:line, function, operator or signature matches `REGEXP`")
	area := fs.String("area", "", "run only the mutants of one `AREA`: election (the code the swarm's checkers judge), config (what NewElector accepts), observability (metrics, health, phases, who leads) or real (code the simulator replaces); all if empty")
	fs.IntVar(&o.Limit, "limit", 0, "run only the first `N` mutants selected (0: all)")
	sample := fs.String("sample", "", "run `K/M`: K of every M mutants, chosen by a hash of their signatures (stable across edits)")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON instead of a summary")
	fs.StringVar(&o.Out, "o", "", "write the report as markdown to `FILE` (atomically)")
	fs.StringVar(&o.Results, "results", defaultResults(), "the results `FILE`: one JSON line per mutant, appended as each finishes; finished mutants are skipped on a rerun")
	fs.Float64Var(&o.MinScore, "min-score", 0, "exit 1 if the election path's swarm score (percent) is below this")
	fs.BoolVar(&o.List, "list", false, "list the selected mutants and exit without running them")
	fs.BoolVar(&o.Fresh, "fresh", false, "run every selected mutant again, ignoring recorded results")
	fs.BoolVar(&o.CheckEquivalent, "check-equivalent", false, "also run the mutants the triage table calls equivalent")
	fs.DurationVar(&o.BuildTimeout, "build-timeout", 5*time.Minute, "deadline of each go build")
	fs.DurationVar(&o.SwarmTimeout, "swarm-timeout", 0, "deadline of each swarm run (0: five times the baseline's wall time, at least 2m); a swarm that passes it kills the mutant")
	fs.DurationVar(&o.TestTimeout, "test-timeout", 5*time.Minute, "deadline of each test suite run")
	memMB := fs.Int64("swarm-memory", 4096, "bound on the memory each swarm run may allocate, in `MiB` (0: none); a swarm that needs more dies, which kills the mutant")
	if err := cmdline.Parse(fs, args); err != nil {
		return nil, err
	}
	if err := cmdline.CheckCounts(o.Seeds, o.Workers); err != nil {
		return nil, err
	}
	if o.Limit < 0 {
		return nil, fmt.Errorf("%w: -limit must not be negative, got %d", errUsage, o.Limit)
	}
	if o.MinScore < 0 || o.MinScore > 100 {
		return nil, fmt.Errorf("%w: -min-score is a percentage in [0, 100], got %v", errUsage, o.MinScore)
	}
	if o.BuildTimeout <= 0 || o.TestTimeout <= 0 || o.SwarmTimeout < 0 {
		return nil, fmt.Errorf("%w: timeouts must be positive", errUsage)
	}
	if *memMB < 0 {
		return nil, fmt.Errorf("%w: -swarm-memory must not be negative", errUsage)
	}
	o.SwarmMemory = *memMB << 20
	if o.Results == "" {
		return nil, fmt.Errorf("%w: -results must name a file", errUsage)
	}
	o.TestPkgs, o.Only = splitList(*testPkgs), splitList(*only)
	switch a := Area(*area); a {
	case "", AreaElection, AreaConfig, AreaObservability, AreaReal:
		o.Area = a
	default:
		return nil, fmt.Errorf("%w: -area is election, config, observability or real, got %q", errUsage, *area)
	}
	if *match != "" {
		re, err := regexp.Compile(*match)
		if err != nil {
			return nil, fmt.Errorf("%w: -match: %w", errUsage, err)
		}
		o.Match = re
	}
	if *sample != "" {
		k, m, ok := strings.Cut(*sample, "/")
		ki, err1 := strconv.Atoi(strings.TrimSpace(k))
		mi, err2 := strconv.Atoi(strings.TrimSpace(m))
		if !ok || err1 != nil || err2 != nil || ki < 1 || mi < ki {
			return nil, fmt.Errorf("%w: -sample wants K/M with 1 <= K <= M (K of every M mutants), got %q", errUsage, *sample)
		}
		o.SampleK, o.SampleM = ki, mi
	}
	return o, nil
}

// Select returns the mutants of all that the options select, in order:
// -only, -match and -sample filter, then -limit keeps the first N. An ID of
// -only that names no mutant is a usage error.
func Select(all []Mutant, o *Options) ([]Mutant, error) {
	want := map[string]bool{}
	for _, id := range o.Only {
		want[id] = false
	}
	var sel []Mutant
	for _, m := range all {
		if len(o.Only) > 0 {
			if _, ok := want[m.ID]; !ok {
				continue
			}
			want[m.ID] = true
		}
		if o.Match != nil && !o.Match.MatchString(strings.Join([]string{m.ID, m.Pos(), m.Func, string(m.Operator), m.Signature()}, "\n")) {
			continue
		}
		if o.Area != "" && m.Area != o.Area {
			continue
		}
		if o.SampleM > 0 && !sampled(m, o.SampleK, o.SampleM) {
			continue
		}
		sel = append(sel, m)
	}
	for _, id := range o.Only {
		if !want[id] {
			return nil, fmt.Errorf("%w: -only: no mutant has ID %q (see -list)", errUsage, id)
		}
	}
	if o.Limit > 0 && len(sel) > o.Limit {
		sel = sel[:o.Limit]
	}
	return sel, nil
}

// sampled reports whether m is among k of every m mutants, by the hash of
// its signature.
func sampled(mu Mutant, k, m int) bool {
	sum := sha256.Sum256([]byte(mu.Signature()))
	return binary.BigEndian.Uint64(sum[:8])%uint64(m) < uint64(k)
}

func (o *Options) selection() string {
	var parts []string
	if len(o.Only) > 0 {
		parts = append(parts, "-only "+strings.Join(o.Only, ","))
	}
	if o.Match != nil {
		parts = append(parts, "-match "+o.Match.String())
	}
	if o.Area != "" {
		parts = append(parts, "-area "+string(o.Area))
	}
	if o.SampleM > 0 {
		parts = append(parts, fmt.Sprintf("-sample %d/%d", o.SampleK, o.SampleM))
	}
	if o.Limit > 0 {
		parts = append(parts, fmt.Sprintf("-limit %d", o.Limit))
	}
	return strings.Join(parts, " ")
}

// Execute enumerates and selects the mutants, runs those without a
// reusable recorded result (after checking the baseline), records each
// result as it finishes, and returns the report. With o.List it only
// lists the selected mutants to progress. The report is returned, marked
// interrupted, also when ctx ends mid-run.
func Execute(ctx context.Context, o *Options, progress io.Writer) (*Report, error) {
	start := time.Now()
	p, err := Load(ctx, filepath.Join(o.Dir, filepath.FromSlash(o.Pkg)))
	if err != nil {
		return nil, err
	}
	all := p.Enumerate()
	p.SetAreas(all, o.Scope)
	for i := range all {
		if j, ok := Judge(o.Triage, all[i]); ok && j.Area != "" {
			all[i].Area = j.Area
		}
	}
	sel, err := Select(all, o)
	if err != nil {
		return nil, err
	}
	if o.List {
		for _, m := range sel {
			fmt.Fprintf(progress, "%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Pos(), m.Func, m.Operator, m.Snippet(), m.Area)
		}
		return nil, nil
	}
	hash := p.SourceHash()
	results, err := OpenResults(o.Results)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(sel))
	var todo []int
	for i, m := range sel {
		e := Entry{Mutant: m}
		if j, ok := Judge(o.Triage, m); ok {
			e.Judgement = &j
		}
		if r, ok := results.Lookup(m.Signature(), hash); ok && !o.Fresh && Reusable(r, o.Seeds, o.Tests) {
			e.Result, e.Status = &r, o.status(r)
		}
		if e.Judgement != nil && e.Judgement.Kind == KindEquivalent && !o.CheckEquivalent {
			e.Status, e.Result = Equivalent, nil
		}
		if e.Status == "" {
			todo = append(todo, i)
		}
		entries[i] = e
	}
	finish := func(interrupted bool) *Report {
		rep := newReport(entries)
		rep.Package = p.Path
		rep.SourceHash = hash
		rep.Seeds, rep.Workers, rep.Tests = o.Seeds, o.Workers, o.Tests
		if o.Tests {
			rep.TestCommand = "go test -overlay OVERLAY -vet=off " + strings.Join(o.TestPkgs, " ")
		}
		rep.Enumerated = len(all)
		rep.Selection = o.selection()
		rep.Wall = time.Since(start)
		rep.Interrupted = interrupted
		for _, j := range o.Triage {
			if j.File != "" && strings.HasPrefix(j.File, p.Rel(p.Dir)+"/") && !matchesAny(j, all) {
				rep.StaleTriage = append(rep.StaleTriage, j)
			}
		}
		return rep
	}
	if len(todo) == 0 {
		return finish(false), nil
	}
	work, err := os.MkdirTemp("", "s3lease-mutation-")
	if err != nil {
		return nil, fmt.Errorf("mutation: %w", err)
	}
	defer os.RemoveAll(work)
	r := &Runner{Pkg: p, Build: o.Build, Seeds: o.Seeds, Workers: o.Workers, SwarmArgs: []string{"run"},
		BuildTimeout: o.BuildTimeout, SwarmTimeout: o.SwarmTimeout, TestTimeout: o.TestTimeout, WorkDir: work,
		SwarmMemory: o.SwarmMemory}
	if o.Tests {
		r.TestPkgs = o.TestPkgs
	}
	fmt.Fprintf(progress, "mutation: %d mutants selected of %d, %d to run; checking the unmutated baseline (swarm %d seeds%s)\n",
		len(sel), len(all), len(todo), o.Seeds, map[bool]string{true: " and tests", false: ""}[o.Tests])
	base, err := r.Baseline(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return finish(true), fmt.Errorf("interrupted")
		}
		return nil, err
	}
	swarmTimeout := o.SwarmTimeout
	if swarmTimeout == 0 {
		swarmTimeout = max(2*time.Minute, 5*base)
	}
	fmt.Fprintf(progress, "mutation: baseline passes (swarm %v); swarm deadline per mutant %v\n", base.Round(time.Millisecond), swarmTimeout)
	for n, i := range todo {
		m := sel[i]
		res, err := r.Run(ctx, m, swarmTimeout)
		if err != nil {
			if ctx.Err() != nil {
				return finish(true), fmt.Errorf("interrupted after %d of %d mutants (the results recorded are kept)", n, len(todo))
			}
			return finish(true), err
		}
		if err := results.Append(res); err != nil {
			return finish(true), err
		}
		entries[i].Result, entries[i].Status = &res, o.status(res)
		fmt.Fprintf(progress, "[%d/%d] %s %s %s %s: %s\n", n+1, len(todo), m.ID, m.Pos(), m.Operator, m.Snippet(), describe(res))
	}
	return finish(false), nil
}

// status is the status a report gives r: SpeedOnly for a mutant that
// fails only speed guards, else r's.
func (o *Options) status(r Result) Status {
	if r.Status == KilledByTests && speedOnly(r.FailedTests, o.SpeedGuards) {
		return SpeedOnly
	}
	return r.Status
}

func matchesAny(j Judgement, all []Mutant) bool {
	for _, m := range all {
		if j.Matches(m) {
			return true
		}
	}
	return false
}

// describe is a one-line account of a result.
func describe(r Result) string {
	var b strings.Builder
	b.WriteString(string(r.Status))
	switch r.Status {
	case KilledBySwarm:
		if r.FirstFailingSeed > 0 {
			fmt.Fprintf(&b, " at seed %d (%s)", r.FirstFailingSeed, r.Verdict)
		} else {
			fmt.Fprintf(&b, " (%s)", r.Verdict)
		}
	case KilledByTests:
		fmt.Fprintf(&b, " (%s)", cut(strings.Join(r.FailedTests, ", "), 100))
	case Invalid:
		fmt.Fprintf(&b, " (%s)", cut(r.Detail, 100))
	}
	fmt.Fprintf(&b, " [build %.1fs, swarm %.1fs", r.Build.Seconds(), r.Swarm.Seconds())
	if r.Tested {
		fmt.Fprintf(&b, ", tests %.1fs", r.Test.Seconds())
	}
	b.WriteString("]")
	return b.String()
}

// emit prints the report (JSON or summary) and writes the markdown file.
func emit(o *Options, rep *Report, stdout io.Writer) error {
	if o.Out != "" {
		var b strings.Builder
		if err := rep.WriteMarkdown(&b); err != nil {
			return err
		}
		if err := harness.WriteFileAtomic(o.Out, []byte(b.String())); err != nil {
			return fmt.Errorf("mutation: %w", err)
		}
	}
	if o.JSON {
		return schema.Write(stdout, rep)
	}
	return rep.WriteSummary(stdout)
}

// splitList is the non-empty items of a comma-separated list.
func splitList(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
