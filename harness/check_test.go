package harness_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// givenFlags are the flags the command line set, read before any test sets
// one (flag.Set marks a flag as set, so a later look would see the tests'
// own settings).
var givenFlags = sync.OnceValue(func() map[string]bool {
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
})

// setFlag sets a command-line flag for the rest of the test, unless the
// command line set it.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil || givenFlags()[name] {
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
	rec := &harness.Recorder{TestName: "TestUser/broken"}
	start := time.Now()
	harness.Check(rec, broken, harness.WithDir(dir))
	rec.Done()
	t.Logf("Check caught it in %v", time.Since(start).Round(time.Millisecond))
	if !rec.Failed() {
		t.Fatalf("Check passed a lock that acquires unconditionally:\n%s", rec.Logs())
	}
	msg := rec.Errors()
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
	o, err := rep.Run(harness.Swarm(broken.Name, broken), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := harness.SignatureOf(o); o.Verdict != harness.Unsafe || rep.Expect == nil || !got.Equal(*rep.Expect) {
		t.Errorf("the reproducer runs to %s; it expects %v", got, rep.Expect)
	}

	setFlag(t, "harness.replay", files[0])
	again := &harness.Recorder{TestName: "TestUser/broken"}
	harness.Check(again, broken)
	again.Done()
	if !again.Failed() || !strings.Contains(again.Logs(), "verdict: unsafe") || !strings.Contains(again.Logs(), "hash: ") {
		t.Errorf("-harness.replay did not fail with the trace printed:\n%s\n%s", again.Errors(), again.Logs())
	}
}

// TestCheckPassesElector: the production elector passes Check.
func TestCheckPassesElector(t *testing.T) {
	harness.Check(t, elector.Protocol(elector.DefaultSettings))
}

// TestCheckRefusesIncompleteProtocol: a protocol without a candidate or a
// lease is refused before anything runs.
func TestCheckRefusesIncompleteProtocol(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	for name, q := range map[string]harness.Protocol{
		"no name":      {Candidate: p.Candidate, Assumptions: p.Assumptions},
		"no candidate": {Name: "x", Assumptions: p.Assumptions},
		"no lease":     {Name: "x", Candidate: p.Candidate},
	} {
		rec := &harness.Recorder{TestName: "T"}
		harness.Check(rec, q)
		rec.Done()
		if !rec.Failed() {
			t.Errorf("%s: Check accepted it", name)
		}
	}
}

// FuzzHarnessElector: harness.Fuzz on the production elector; plain go
// test runs its seed corpus, go test -fuzz explores.
func FuzzHarnessElector(f *testing.F) {
	harness.Fuzz(f, elector.Protocol(elector.DefaultSettings))
}
