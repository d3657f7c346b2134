package scenarios

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"pgregory.net/rapid"
)

// Property-based runs with rapid: whole runs drawn by the one generator
// (faults.Draw, as the swarm scenario draws them: harness.DrawRun) from
// rapid's choices (harness.RapidSource), judged by the harness.
//
// TestPropertyElectorSafe runs rapid's default 100 checks (20 with -short),
// well under a second at a few milliseconds a run. Nightly, ask for more
// (rapid's flags go after the package, which must be ./scenarios/ alone:
// other packages do not know them):
//
//	go test -run '^TestPropertyElectorSafe$' ./scenarios/ -rapid.checks=20000
//
// On a failure rapid prints the shrunk run (describe's JSON: seed, nodes,
// settings, plan) and how to replay it: -rapid.seed=S, or the fail file it
// writes under scenarios/testdata/rapid/TestPropertyElectorSafe/, which
// every later run of the test replays first until it passes:
//
//	go test -run '^TestPropertyElectorSafe$' ./scenarios/ -rapid.seed=S
//	go test -run '^TestPropertyElectorSafe$' ./scenarios/ -rapid.failfile=testdata/rapid/TestPropertyElectorSafe/NAME.fail
//
// The failure message also holds a reproducer file of the swarm scenario
// for `simrun replay` and `simrun shrink`.

// electorProperty: the production elector passes a drawn run: it is never
// unsafe, stuck or crashed (nor anything else but pass). The failure message is the signature alone, so that
// rapid's shrinker, which keeps a smaller run only if it fails with the
// same message, keeps the kind of failure and nothing more.
func electorProperty(t *rapid.T) {
	r := drawElector(harness.RapidSource(t), rapid.Uint64().Draw(t, "seed"))
	o, err := harness.RunDraw(r)
	if err != nil {
		t.Fatalf("cannot run: %v", err)
	}
	if o.Verdict != harness.Pass {
		t.Log(harness.Describe(r, o))
		if rep := r.Reproducer(Swarm.Name); rep != nil {
			b, _ := rep.Marshal()
			t.Logf("reproducer (simrun replay FILE):\n%s", b)
		}
		t.Fatalf("production elector: %s", harness.SignatureOf(o))
	}
}

// TestPropertyElectorSafe: the production elector passes every drawn run.
func TestPropertyElectorSafe(t *testing.T) {
	rapid.Check(t, electorProperty)
}

// zooVariantUnderTest is the variant the expected-failure property and the
// zoo fuzz target run: a mistake that only faults reveal (a leader cut off
// from S3, or paused, that leads on past its lease), so that shrinking has
// faults to remove and one to keep. `simrun zoo` lists how each variant
// fails.
const zooVariantUnderTest = "no-watchdog"

// pinnedRapidSeed is the rapid seed TestPropertyFindsZooBug uses unless
// -rapid.seed is given, so that the time it takes and the plan it shrinks
// to are the same on every run.
const pinnedRapidSeed = 1

// givenFlags are the flags the command line set, read before any test
// sets one.
var givenFlags = sync.OnceValue(func() map[string]bool {
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
})

// setRapidFlag sets one of rapid's command-line flags for the rest of the
// test, unless the command line set it, and restores it afterwards. rapid
// reads its settings only from its flags.
func setRapidFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if givenFlags()[name] || f == nil {
		return
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// TestPropertyFindsZooBug: harness.Check, the property the production
// elector passes, fails for the zoo's no-watchdog variant, and shrinks the
// failing run, on the choices rapid drew it from, to a plan of a handful
// of fault events that still fails, on its own, as a reproducer file of
// the variant's swarm scenario.
//
// rapid's seed is pinned (pinnedRapidSeed) unless -rapid.seed is given;
// no fail file is written. To watch Check find and shrink it with another
// seed, and see the shrunk run:
//
//	go test -run '^TestPropertyFindsZooBug$' -v ./scenarios/ -rapid.seed=7
func TestPropertyFindsZooBug(t *testing.T) {
	setRapidFlag(t, "rapid.seed", fmt.Sprint(pinnedRapidSeed))
	setRapidFlag(t, "rapid.nofailfile", "true")
	setRapidFlag(t, "rapid.checks", "2000")
	p := zooProtocol(zooVariantUnderTest)
	dir := t.TempDir()
	rec := &harness.Recorder{TestName: t.Name()}
	start := time.Now()
	harness.Check(rec, p, harness.WithDir(dir))
	rec.Done()
	if !rec.Failed() {
		t.Fatalf("Check found no failure of zoo/%s; the harness no longer catches it:\n%s", zooVariantUnderTest, rec.Logs())
	}
	report := rec.Errors()
	if !strings.Contains(report, "zoo/"+zooVariantUnderTest+" fails") {
		t.Errorf("Check failed for another reason than the variant's bug:\n%s\n%s", report, rec.Logs())
	}
	t.Logf("Check found and shrank zoo/%s's failure in %v:\n%s", zooVariantUnderTest, time.Since(start).Round(time.Millisecond), report)

	// The shrunk run: a handful of events, and it fails alone, as a
	// reproducer of the zoo scenario.
	const most = 5
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one reproducer in %s, found %v", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	back, err := harness.LoadReproducer(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the shrunk run's reproducer does not load: %v", err)
	}
	t.Logf("shrunk run:\n%s", b)
	if n := len(back.Plan.Events); n > most {
		t.Errorf("Check shrank the failure to %d fault events; want at most %d", n, most)
	}
	o, err := back.Run(scenario(t, back.Scenario), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := harness.SignatureOf(o); back.Expect == nil || !got.Equal(*back.Expect) || o.Verdict == harness.Pass {
		t.Errorf("the shrunk run replayed from its reproducer shows %s; it expects %v", got, back.Expect)
	}
}
