package harness

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// replayFlag is -harness.replay: a reproducer file that Check and Fuzz run
// instead of drawing runs.
var replayFlag = flag.String("harness.replay", "", "harness: replay this reproducer file in Check and Fuzz instead of drawing runs, and print its trace")

// bodiesFlag is -harness.bodies: the replay's trace shows the bodies.
var bodiesFlag = flag.Bool("harness.bodies", false, "harness: with -harness.replay, print the body of every PutObject sent and GetObject answered in the trace")

// TB is what Check needs of a test: *testing.T has it all. (A test of a
// checker can pass a recorder of its own, to see a failure without
// failing.)
type TB interface {
	rapid.TB
	Cleanup(func())
}

// Option changes how Check and Fuzz run.
type Option func(*options)

type options struct {
	dir         string
	failOutside bool
}

// WithDir sets the directory reproducer files are written under, instead
// of testdata/harness in the package's directory.
func WithDir(dir string) Option { return func(o *options) { o.dir = dir } }

// FailOutside judges every run with Setup.FailOutside: an overlap of
// leaders fails the run even where a fault outside the protocol's
// assumptions accounts for it. For a protocol without fencing tokens
// (Protocol.NoFencingTokens) such an overlap is two leaders acting at once
// in production; this is the bar for a user who wants none.
func FailOutside() Option { return func(o *options) { o.failOutside = true } }

// run runs and judges a drawn run as the options say.
func (o options) run(d Draw) (*Outcome, error) {
	if !o.failOutside {
		return RunDraw(d)
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	s := d.Setup()
	s.FailOutside = true
	return RunSetup(s, false)
}

// Validate reports what is missing from a protocol description for the
// harness to run and judge it: a name, a candidate, and a lease (which
// sizes the faults drawn); negative bounds, families to leave out that
// the generator does not have (Without), and coverage sets it may not
// declare (ValidateCoverage).
func (p Protocol) Validate() error {
	switch {
	case p.Name == "":
		return errors.New("harness: the protocol has no Name")
	case p.Candidate == nil:
		return fmt.Errorf("harness: protocol %q has no Candidate", p.Name)
	case p.Assumptions.Lease <= 0:
		return fmt.Errorf("harness: protocol %q declares no lease (Assumptions.Lease), which sizes the faults drawn", p.Name)
	case p.Assumptions.MaxDriftPPM < 0 || p.Assumptions.MaxPause < 0 || p.LivenessBound < 0 || p.S3ClientTimeout < 0:
		return fmt.Errorf("harness: protocol %q declares a negative bound", p.Name)
	}
	for _, name := range p.Without {
		if !slices.Contains(faults.Families(), name) {
			return fmt.Errorf("harness: protocol %q leaves out %q, which is no family of the generator's (Without): %s",
				p.Name, name, strings.Join(faults.Families(), ", "))
		}
	}
	if err := ValidateCoverage(p.Coverage); err != nil {
		return fmt.Errorf("harness: protocol %q: %w", p.Name, err)
	}
	return nil
}

// Check runs protocol p on random runs as a rapid property: each run is
// the one p's swarm scenario draws (Swarm, DrawRun) from rapid's choices
// (RapidSource), and is judged by every checker. The property is that
// every run passes. On the first failure Check shrinks the choices it was
// drawn from (Shrink's stream shrinking, at most 500 runs) to a small run
// that fails the same way, writes it as a reproducer file under
// testdata/harness/<test>/, prints the violation in words and the command
// that replays it, and fails the test.
//
// Beside the failure, Check says what the runs drawn up to it judged (on
// a pass, it logs the same of every run): how many stayed wholly inside
// p's assumptions, and per checker the violations judged, excused by
// faults outside them (by kind of fault) and counted ([Judged]). With
// [FailOutside], an overlap of leaders outside the assumptions fails the
// run too.
//
// With -harness.replay=FILE on the go test command line, Check replays that
// reproducer instead, prints its trace (with -harness.bodies, the bodies
// sent and received too), and fails if it does not pass.
//
// A reproducer file names p's swarm scenario (Swarm(p.Name, p)) by the
// protocol's name, so that a program whose simrun.Main is given
// simrun.Protocol(p.Name, p) replays it too. rapid's own flags
// (-rapid.checks, -rapid.seed, ...) apply.
func Check(t TB, p Protocol, opts ...Option) {
	t.Helper()
	o, ok := prepare(t, p, opts)
	if !ok {
		return
	}
	if *replayFlag != "" {
		replayFile(t, p, *replayFlag)
		return
	}
	var (
		failed *failedRun
		sum    checkSummary // of the runs up to the first failure: not those of shrinking
	)
	rapid.Check(t, func(rt *rapid.T) {
		if failed != nil {
			return // one failure is enough: it is shrunk below, on its choices
		}
		src := RapidSource(rt)
		d := DrawRun(src, rapid.Uint64().Draw(rt, "seed"), p)
		out, err := o.run(d)
		if err != nil {
			rt.Fatalf("cannot run: %v", err)
		}
		sum.add(out)
		if out.Verdict != Pass {
			failed = &failedRun{draw: d, outcome: out, choices: src.Choices()}
		}
	})
	if failed != nil {
		t.Error(report(o, t.Name(), failed) + "\n\nup to the first failure (shrinking's runs aside), " + sum.String())
		return
	}
	t.Logf("%s: %s", p.Name, sum.String())
}

// checkShrinkBudget is the most runs Check spends shrinking a failure.
const checkShrinkBudget = 500

// Fuzz runs protocol p under Go's fuzzing: each input, a seed and choice
// bytes, is the run p's swarm scenario draws (Swarm, DrawRun) from the
// seed's stream of choices with the bytes in place of its first choices
// (faults.FromBytes): the empty string is the swarm's seed, and the
// fuzzer, mutating seeds and bytes, is a coverage-guided swarm. Every
// input is a valid run. A failing input is written as a reproducer file,
// and the failure message holds the violation in words and the command
// that replays it. Plain go test runs the seed corpus (swarm seeds 1 to
// 3, and testdata/fuzz); go test -fuzz explores. With -harness.replay it
// replays the file, as Check does.
func Fuzz(f *testing.F, p Protocol, opts ...Option) {
	f.Helper()
	o, ok := prepare(f, p, opts)
	if !ok {
		return
	}
	if *replayFlag != "" {
		replayFile(f, p, *replayFlag)
		f.Skip("replayed " + *replayFlag)
	}
	for seed := range uint64(3) {
		f.Add(seed+1, []byte{})
	}
	f.Fuzz(func(t *testing.T, seed uint64, choices []byte) {
		d := DrawRun(faults.FromBytes(seed, choices), seed, p)
		out, err := o.run(d)
		if err != nil {
			t.Fatalf("cannot run: %v", err)
		}
		if out.Verdict != Pass {
			t.Fatal(report(o, t.Name(), &failedRun{draw: d, outcome: out}))
		}
	})
}

// checkSummary is what the runs of a Check judged (Judged), as its
// failure message and its log say.
type checkSummary struct {
	runs, outside uint64
	judged        Judged
}

func (c *checkSummary) add(o *Outcome) {
	c.runs++
	if len(o.Outside) > 0 {
		c.outside++
	}
	c.judged.Add(o)
}

// String says what the runs judged, a line each (Judged.Lines).
func (c *checkSummary) String() string {
	return fmt.Sprintf("%d runs drawn: %s", c.runs, strings.Join(c.judged.Lines(c.runs, c.outside, "runs"), "\n"))
}

// failedRun is a drawn run that did not pass, and the choices it was
// drawn from (nil: not to be shrunk).
type failedRun struct {
	draw    Draw
	outcome *Outcome
	choices *faults.Choices
}

// prepare checks p and the options.
func prepare(tb rapid.TB, p Protocol, opts []Option) (options, bool) {
	tb.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := p.Validate(); err != nil {
		tb.Fatal(err)
		return o, false
	}
	return o, true
}

// report writes a failing run's reproducer, shrunk on its choices if it
// has them, and returns the failure message: the violation in words and
// the command that replays it.
func report(o options, test string, f *failedRun) string {
	d, out := f.draw, f.outcome
	msg := fmt.Sprintf("%s fails: %s", d.Protocol.Name, Explain(out))
	rep := d.Reproducer(d.Protocol.Name)
	sig := SignatureOf(out)
	rep.Expect, rep.FailOutside = &sig, out.FailOutside
	if f.choices != nil {
		if small, _, err := shrink(Swarm(d.Protocol.Name, d.Protocol), rep, f.choices, checkShrinkBudget); err == nil {
			rep, sig = small, *small.Expect
		}
	}
	dir := o.dir
	if dir == "" {
		dir = filepath.Join("testdata", "harness", fileName(test))
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-seed-%d.json", fileName(sig.String()), d.Seed))
	if err := writeReproducer(path, rep); err != nil {
		return fmt.Sprintf("%s\n\ncannot write the reproducer: %v\n%s", msg, err, Describe(d, out))
	}
	return fmt.Sprintf("%s\n\nreproducer: %s\nreplay it, with its trace:\n\t%s", msg, path, Repro{Test: test, Package: packageDir(), File: path}.Command())
}

// writeReproducer writes rep to path atomically, making its directory.
func writeReproducer(path string, rep *Reproducer) error {
	b, err := rep.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// replayFile runs the reproducer at path, logs its trace and fails the test
// unless it passes.
func replayFile(tb rapid.TB, p Protocol, path string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("-harness.replay: %v", err)
		return
	}
	defer f.Close()
	rep, err := LoadReproducer(f)
	if err != nil {
		tb.Fatalf("-harness.replay: %s: %v", path, err)
		return
	}
	if rep.Scenario != p.Name {
		tb.Fatalf("-harness.replay: %s is a run of %q; this test checks %q", path, rep.Scenario, p.Name)
		return
	}
	start := time.Now()
	out, err := rep.Run(Swarm(p.Name, p), true)
	if err != nil {
		tb.Fatalf("-harness.replay: %s: %v", path, err)
		return
	}
	var b strings.Builder
	var opts []sim.TextOption
	if *bodiesFlag {
		opts = append(opts, sim.WithBodies())
	}
	if err := WriteTrace(&b, out, opts...); err != nil {
		tb.Fatal(err)
		return
	}
	tb.Logf("replay of %s (%v):\n%s", path, time.Since(start).Round(time.Millisecond), b.String())
	if sig := SignatureOf(out); rep.Expect != nil && !rep.Expect.Equal(sig) {
		tb.Logf("%s was written for a run showing %s; it now shows %s", path, rep.Expect, sig)
	}
	if out.Verdict != Pass {
		tb.Fatalf("%s fails: %s", p.Name, Explain(out))
	}
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileName makes s usable as one file name.
func fileName(s string) string {
	return strings.Trim(unsafeFileChars.ReplaceAllString(s, "-"), "-")
}
