package harness

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// replayFlag is -harness.replay: a reproducer file that Check and Fuzz run
// instead of drawing runs.
var replayFlag = flag.String("harness.replay", "", "harness: replay this reproducer file in Check and Fuzz instead of drawing runs, and print its trace")

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
	vary        Vary
	dir         string
	failOutside bool
}

// WithVary lets the generator draw variants of the protocol (other
// settings of the same code) as well as the protocol as given. A failing
// run of a variant is reported with what was drawn, but cannot be written
// as a reproducer file.
func WithVary(v Vary) Option { return func(o *options) { o.vary = v } }

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
// sizes the faults drawn); and coverage sets it may not declare
// (ValidateCoverage).
func (p Protocol) Validate() error {
	switch {
	case p.Name == "":
		return errors.New("harness: the protocol has no Name")
	case p.Candidate == nil:
		return fmt.Errorf("harness: protocol %q has no Candidate", p.Name)
	case p.Assumptions.Lease <= 0:
		return fmt.Errorf("harness: protocol %q declares no lease (Assumptions.Lease), which sizes the faults drawn", p.Name)
	case p.Assumptions.MaxDriftPPM < 0 || p.Assumptions.MaxPause < 0 || p.LivenessBound < 0:
		return fmt.Errorf("harness: protocol %q declares a negative bound", p.Name)
	}
	if err := ValidateCoverage(p.Coverage); err != nil {
		return fmt.Errorf("harness: protocol %q: %w", p.Name, err)
	}
	return nil
}

// Check runs protocol p on random runs as a rapid property: each run draws
// a world of 2 to 5 nodes, clocks, a fault plan sized by p's assumptions,
// a heal instant and a liveness phase (see DrawRun), and is judged by every
// checker. The property is that every run passes. On a failure rapid
// shrinks the run to a small one that fails the same way; Check then writes
// it as a reproducer file under testdata/harness/<test>/, prints the
// violation in words and the command that replays it, and fails the test.
//
// Beside the failure, Check says what the runs drawn up to it judged (on
// a pass, it logs the same of every run): how many stayed wholly inside
// p's assumptions, and per checker the violations judged, excused by
// faults outside them (by kind of fault) and counted ([Judged]). With
// [FailOutside], an overlap of leaders outside the assumptions fails the
// run too.
//
// With -harness.replay=FILE on the go test command line, Check replays that
// reproducer instead, prints its trace, and fails if it does not pass.
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
		last *failedRun
		sum  checkSummary // of the runs up to the first failure: not those of shrinking
	)
	t.Cleanup(func() {
		if last != nil {
			t.Error(report(o, t.Name(), last) + "\n\nup to the first failure (shrinking's runs aside), " + sum.String())
			return
		}
		t.Logf("%s: %s", p.Name, sum.String())
	})
	rapid.Check(t, func(rt *rapid.T) {
		d := DrawRun(RapidSource(rt), rapid.Uint64().Draw(rt, "seed"), p, o.vary)
		out, err := o.run(d)
		if err != nil {
			rt.Fatalf("cannot run: %v", err)
		}
		if last == nil {
			sum.add(out)
		}
		if out.Verdict != Pass {
			last = &failedRun{draw: d, outcome: out}
			// The message is the signature alone: rapid keeps a smaller
			// run only if it fails with the same message.
			rt.Fatalf("%s: %s", p.Name, SignatureOf(out))
		}
	})
}

// Fuzz runs protocol p under Go's fuzzing: each input (a seed and choice
// bytes) is read as a run by BytesSource, so every input is a valid run.
// A failing input is written as a reproducer file, and the failure message
// holds the violation in words and the command that replays it. Plain go
// test runs the seed corpus; go test -fuzz explores. With -harness.replay
// it replays the file, as Check does.
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
	f.Add(uint64(1), []byte{})
	f.Add(uint64(2), []byte{3, 0, 200, 0})
	f.Add(uint64(3), []byte("\x05\x01\x00\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0"))
	f.Fuzz(func(t *testing.T, seed uint64, choices []byte) {
		d := DrawRun(BytesSource(choices), seed, p, o.vary)
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

// failedRun is a drawn run that did not pass.
type failedRun struct {
	draw    Draw
	outcome *Outcome
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

// report writes a failing run's reproducer and returns the failure
// message: the violation in words and the command that replays it.
func report(o options, test string, f *failedRun) string {
	d, out := f.draw, f.outcome
	msg := fmt.Sprintf("%s fails: %s", d.Protocol.Name, Explain(out))
	rep := d.Reproducer(d.Protocol.Name)
	if rep == nil {
		return fmt.Sprintf("%s\n\nthe run used a varied protocol, which a reproducer file cannot name:\n%s", msg, Describe(d, out))
	}
	sig := SignatureOf(out)
	rep.Expect, rep.FailOutside = &sig, out.FailOutside
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
	if err := WriteTrace(&b, out); err != nil {
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
