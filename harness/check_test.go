package harness_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// recorder is a harness.TB that records what Check reports instead of
// failing the test: a test of a checker must see it fail.
type recorder struct {
	name     string
	failed   bool
	errs     []string
	logs     bytes.Buffer
	cleanups []func()
}

func (r *recorder) Helper()                         {}
func (r *recorder) Name() string                    { return r.name }
func (r *recorder) Logf(format string, args ...any) { fmt.Fprintf(&r.logs, format+"\n", args...) }
func (r *recorder) Log(args ...any)                 { fmt.Fprintln(&r.logs, args...) }
func (r *recorder) Skipf(format string, args ...any) {
	r.Errorf("unexpected skip: "+format, args...)
}
func (r *recorder) Skip(args ...any) { r.Error(append([]any{"unexpected skip:"}, args...)...) }
func (r *recorder) SkipNow()         { r.Error("unexpected skip") }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) {
	r.failed = true
	r.errs = append(r.errs, fmt.Sprint(args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *recorder) FailNow()                          { r.failed = true }
func (r *recorder) Fail()                             { r.failed = true }
func (r *recorder) Failed() bool                      { return r.failed }
func (r *recorder) Cleanup(f func())                  { r.cleanups = append(r.cleanups, f) }

// done runs the cleanups, last registered first, as testing does.
func (r *recorder) done() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// setFlag sets a command-line flag for the rest of the test, unless the
// command line set it.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	f := flag.Lookup(name)
	if f == nil || given {
		return
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// TestCheckCatchesBrokenProtocol: Check against a lock that acquires
// without a conditional write fails, says why in words, writes a
// reproducer file that fails the same way when loaded, and prints the go
// test command that replays it; replayed through -harness.replay, the file
// fails again and its trace is printed.
func TestCheckCatchesBrokenProtocol(t *testing.T) {
	setFlag(t, "rapid.seed", "1")
	setFlag(t, "rapid.nofailfile", "true")
	var broken harness.Protocol
	for _, v := range zoo.Variants() {
		if v.Name == "unconditional-acquire" {
			broken = v.Protocol()
		}
	}
	broken.Name = "check-test-unconditional"
	dir := t.TempDir()
	rec := &recorder{name: "TestUser/broken"}
	start := time.Now()
	harness.Check(rec, broken, harness.WithDir(dir))
	rec.done()
	t.Logf("Check caught it in %v", time.Since(start).Round(time.Millisecond))
	if !rec.failed {
		t.Fatalf("Check passed a lock that acquires unconditionally:\n%s", rec.logs.String())
	}
	msg := strings.Join(rec.errs, "\n")
	for _, want := range []string{"check-test-unconditional fails: unsafe", "reproducer: " + dir,
		"go test -run '^TestUser$/^broken$' ./harness -harness.replay="} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one reproducer in %s, found %v", dir, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := harness.LoadReproducer(f)
	f.Close()
	if err != nil {
		t.Fatalf("the reproducer does not load: %v", err)
	}
	o, err := rep.Run(false)
	if err != nil {
		t.Fatal(err)
	}
	if got := harness.SignatureOf(o); o.Verdict != harness.Unsafe || rep.Expect == nil || !got.Equal(*rep.Expect) {
		t.Errorf("the reproducer runs to %s; it expects %v", got, rep.Expect)
	}

	setFlag(t, "harness.replay", files[0])
	again := &recorder{name: "TestUser/broken"}
	harness.Check(again, broken)
	again.done()
	if !again.failed || !strings.Contains(again.logs.String(), "verdict: unsafe") || !strings.Contains(again.logs.String(), "hash: ") {
		t.Errorf("-harness.replay did not fail with the trace printed:\n%s\n%s", strings.Join(again.errs, "\n"), again.logs.String())
	}
}

// TestCheckPassesElector: the production elector passes Check.
func TestCheckPassesElector(t *testing.T) {
	harness.Check(t, harness.Elector(harness.DefaultElectorSettings))
}

// TestCheckRefusesIncompleteProtocol: a protocol without a candidate or a
// lease is refused before anything runs.
func TestCheckRefusesIncompleteProtocol(t *testing.T) {
	p := harness.Elector(harness.DefaultElectorSettings)
	for name, q := range map[string]harness.Protocol{
		"no name":      {Candidate: p.Candidate, Assumptions: p.Assumptions},
		"no candidate": {Name: "x", Assumptions: p.Assumptions},
		"no lease":     {Name: "x", Candidate: p.Candidate},
	} {
		rec := &recorder{name: "T"}
		harness.Check(rec, q)
		rec.done()
		if !rec.failed {
			t.Errorf("%s: Check accepted it", name)
		}
	}
}

// FuzzHarnessElector: harness.Fuzz on the production elector; plain go
// test runs its seed corpus, go test -fuzz explores.
func FuzzHarnessElector(f *testing.F) {
	harness.Fuzz(f, harness.Elector(harness.DefaultElectorSettings))
}
