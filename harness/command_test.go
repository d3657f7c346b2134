package harness_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"pgregory.net/rapid"
)

// TestQuoteSurvivesTheShell: whatever a printed command carries (a path
// with spaces, quotes, dollars, globs, newlines, non-ASCII), a POSIX shell
// reads the quoted word back as exactly that string.
func TestQuoteSurvivesTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[^\x00]{0,24}`).Draw(t, "s")
		out, err := exec.Command(sh, "-c", "printf '%s' "+harness.Quote(s)).Output()
		if err != nil {
			t.Fatalf("sh: %v for %q quoted as %s", err, s, harness.Quote(s))
		}
		if string(out) != s {
			t.Fatalf("%q quoted as %s reads back as %q", s, harness.Quote(s), out)
		}
	})
}

// TestReproCommands: every form of a printed command, quoted where its
// arguments need it and not otherwise.
func TestReproCommands(t *testing.T) {
	for _, c := range []struct {
		r    harness.Repro
		want string
	}{
		{harness.Repro{Scenario: "zoo/no-watchdog", Seed: 7}, "go run ./cmd/simrun replay -scenario zoo/no-watchdog -seed 7"},
		{harness.Repro{Program: "simrun", File: "out dir/seed-1.json", Flags: []string{"-s3", "sdk"}}, "simrun replay 'out dir/seed-1.json' -s3 sdk"},
		{harness.Repro{Program: "go run ./cmd/mysimrun", Verb: "shrink", File: "it's.json"}, `go run ./cmd/mysimrun shrink 'it'\''s.json'`},
		{harness.Repro{Verb: "list"}, "go run ./cmd/simrun list"},
		{harness.Repro{Test: "TestX/a b", Package: "./pkg", File: "testdata/x.json"}, "go test -run '^TestX$/^a b$' ./pkg -harness.replay=testdata/x.json -v"},
	} {
		if got := c.r.Command(); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.r, got, c.want)
		}
	}
}

// TestCatalog: names are unique, lookups of unknown names suggest the
// close ones, and a reproducer resolves only to the scenario it names.
func TestCatalog(t *testing.T) {
	sc := harness.Swarm("mylock", elector.Protocol(elector.DefaultSettings))
	c, err := harness.NewCatalog(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(sc); err == nil {
		t.Error("a second scenario called mylock was accepted")
	}
	if err := c.Add(harness.Scenario{Name: "no-build"}); err == nil {
		t.Error("a scenario without Build was accepted")
	}
	if _, err := c.Lookup("mylok"); err == nil || !strings.Contains(err.Error(), `did you mean "mylock"`) {
		t.Errorf("Lookup(mylok): %v", err)
	}
	r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: "other", Seed: 1}
	if _, err := c.Resolve(r); err == nil {
		t.Error("a reproducer of an unknown scenario resolved")
	}
	if _, err := r.Setup(sc); err == nil {
		t.Error("a reproducer of another scenario set up a run of mylock")
	}
}
