package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// untokened is the production elector declared without fencing tokens:
// judged by overlaps alone, as a protocol that hands out none is.
func untokened() harness.Protocol {
	p := elector.Protocol(elector.DefaultSettings)
	p.Name, p.NoFencingTokens = "untokened", true
	return p
}

// TestCheckFailOutside: Check of a protocol without fencing tokens passes
// with its overlaps outside the assumptions excused, and says how many
// there were; with FailOutside such an overlap fails it, the failure
// says what the runs up to it judged, and the reproducer keeps the bar:
// it replays unsafe.
func TestCheckFailOutside(t *testing.T) {
	setFlag(t, "rapid.seed", "4")
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.checks", "400")
	p := untokened()
	pass := &harness.Recorder{TestName: "TestUser/untokened"}
	harness.Check(pass, p)
	pass.Done()
	if pass.Failed() {
		t.Fatalf("Check failed the elector without tokens:\n%s", pass.Errors())
	}
	if logs := pass.Logs(); !strings.Contains(logs, "overlaps of leaders outside the assumptions, excused; with no fencing token, each is two leaders acting at once") ||
		!strings.Contains(logs, "400 runs drawn: ") {
		t.Errorf("Check's log does not say what its runs judged:\n%s", logs)
	}

	dir := t.TempDir()
	rec := &harness.Recorder{TestName: "TestUser/untokened"}
	harness.Check(rec, p, harness.WithDir(dir), harness.FailOutside())
	rec.Done()
	if !rec.Failed() {
		t.Fatalf("Check with FailOutside passed:\n%s", rec.Logs())
	}
	msg := rec.Errors()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one reproducer in %s, found %v", dir, files)
	}
	for _, want := range []string{"unsafe: overlap/outside-assumptions", "runs drawn: ", "judged wholly inside the protocol's assumptions",
		"excused, 1 counted (1 of them outside the assumptions, by fail-outside; ",
		"outside the assumptions, failed by fail-outside; with no fencing token, each is two leaders acting at once"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := harness.LoadReproducer(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	o, err := rep.Run(harness.Swarm(p.Name, p), false)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.FailOutside || o.Verdict != harness.Unsafe || len(o.FailedOutside) == 0 {
		t.Errorf("the reproducer (failOutside %v) replays %s with %d overlaps failed outside; want unsafe, as Check judged it", rep.FailOutside, harness.SignatureOf(o), len(o.FailedOutside))
	}
	rep.FailOutside = false
	if o, err := rep.Run(harness.Swarm(p.Name, p), false); err != nil || o.Verdict != harness.Pass || len(o.Excused) == 0 {
		t.Errorf("without the bar the run is %v (%v), %d excused; want a pass with its overlap excused", o.Verdict, err, len(o.Excused))
	}
}
