package simrun

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
)

const shrinkUsage = `usage:
  simrun shrink FILE [-o OUT] [-budget N]

Shrinks the failing run of reproducer FILE: fewer plan events, fewer nodes,
fewer clock settings and knobs, a shorter run, for as long as the run fails
with the same signature (its verdict and the checkers that decided it); the
seed stays. Writes the smallest reproducer found to OUT (by default FILE
with .min.json for .json) and prints the sizes before and after and the
runs it took. A file whose run passes, or fails otherwise than it expects,
has nothing to shrink: exit status 2, as for a bad file.

flags:
`

// defaultShrinkBudget is the most runs shrink spends unless told.
const defaultShrinkBudget = 2000

func (cli *program) cmdShrink(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("shrink", stderr, shrinkUsage)
	out := fs.String("o", "", "write the shrunk reproducer to `OUT` (default: FILE with .min.json; - for standard output)")
	budget := fs.Int("budget", defaultShrinkBudget, "the most runs to spend")
	quiet := quietFlag(fs)
	files, err := cmdline.ParseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) != 1 {
		return 0, fmt.Errorf("%w: shrink takes one reproducer FILE, got %d arguments", errUsage, len(files))
	}
	if *budget < 1 {
		return 0, fmt.Errorf("%w: -budget must be at least 1, got %d", errUsage, *budget)
	}
	path := files[0]
	if *out == "" {
		*out = strings.TrimSuffix(path, ".json") + ".min.json"
	}
	if err := checkOutput("-o", *out); err != nil {
		return 0, err
	}
	text, err := textOutput(stdout, stderr, false, "-o", *out)
	if err != nil {
		return 0, err
	}
	r, err := loadReproducerFile(path)
	if err != nil {
		return 0, err
	}
	sc, err := cli.catalog.Resolve(r)
	if err != nil {
		return 0, badInput("%s: %w", path, err)
	}
	prog := newProgress("shrink "+path, "runs", uint64(*budget))
	prog.uncounted = true
	counted := sc
	counted.Build = func(seed uint64) harness.Setup { // each run builds its setup
		prog.add(false)
		return sc.Build(seed)
	}
	stopProgress := cli.showProgress(stderr, *quiet, prog.report)
	small, runs, err := harness.Shrink(counted, r, *budget)
	stopProgress()
	if errors.Is(err, harness.ErrNothingToShrink) || errors.Is(err, harness.ErrBadPlan) {
		return 0, badInput("%s: %w", path, err)
	}
	if err != nil {
		return 0, err
	}
	before, err := describe(sc, r)
	if err != nil {
		return 0, err
	}
	after, err := describe(sc, small)
	if err != nil {
		return 0, err
	}
	data, err := small.Marshal()
	if err != nil {
		return 0, err
	}
	if err := writeOutput(stdout, "-o", *out, data); err != nil {
		return 0, err
	}
	fmt.Fprintf(text, "shrink %s seed %d: %s\n", small.Scenario, small.Seed, small.Expect)
	fmt.Fprintf(text, "before: %s\n", before)
	fmt.Fprintf(text, "after:  %s\n", after)
	fmt.Fprintf(text, "%d runs", runs)
	if runs >= *budget {
		fmt.Fprintf(text, " (the whole budget: shrinking the result again may find more)")
	}
	if *out == "-" {
		fmt.Fprintf(text, "; wrote the reproducer to standard output\n")
		return exitOK, nil
	}
	fmt.Fprintf(text, "; wrote %s\nreplay: %s\n", *out, cli.repro(harness.Repro{File: *out}))
	return exitOK, nil
}

// describe sums up the run of a reproducer: its plan's events and clock
// settings, its nodes, its duration and heal.
func describe(sc harness.Scenario, r *harness.Reproducer) (string, error) {
	s, err := r.Setup(sc)
	if err != nil {
		return "", err
	}
	events, clocks, heal := 0, 0, "no plan"
	if p := s.Plan; p != nil {
		events, clocks, heal = len(p.Events), len(p.Clocks), "healAt "+p.HealAt.String()
	}
	return fmt.Sprintf("%d events, %d clock settings, %d nodes, %v (%s)", events, clocks, s.Config.Nodes, s.Config.Duration, heal), nil
}
