package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// replayLine is the replay command Check prints on a failure.
var replayLine = regexp.MustCompile(`(?m)^\s*(go test .*-harness\.replay=\S+ -v)\s*$`)

// TestExampleModule is what a new user sees in examples/mylock, a module
// of its own: its lock passes go test; with -tags broken (one classic
// mistake swapped in) go test fails, printing a replay command that,
// pasted into a shell there, fails again the same way and prints the
// run's trace.
func TestExampleModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a separate module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir, err := filepath.Abs(filepath.Join("..", "examples", "mylock"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"testdata/harness", "testdata/rapid"} {
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(dir, d)) })
	}
	// Every command gets three minutes: a hang fails the test, it does
	// not stall it.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, gobin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("test", "-count=1", "./..."); err != nil {
		t.Fatalf("go test ./... in examples/mylock fails: %v\n%s", err, out)
	}
	out, err := run("test", "-count=1", "-tags", "broken", "./...")
	if err == nil {
		t.Fatalf("go test -tags broken ./... in examples/mylock passes; the harness no longer catches its mistake:\n%s", out)
	}
	m := replayLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "mylock fails: unsafe") {
		t.Fatalf("the broken lock's failure names no violation or prints no replay command:\n%s", out)
	}
	t.Logf("printed: %s", m[1])
	sh := exec.CommandContext(ctx, "sh", "-c", m[1])
	sh.Dir = dir
	replayed, err := sh.CombinedOutput()
	if err == nil {
		t.Fatalf("the printed replay command passes:\n%s", replayed)
	}
	for _, want := range []string{"verdict: unsafe", "hash: ", "mylock fails: unsafe"} {
		if !strings.Contains(string(replayed), want) {
			t.Errorf("the replay does not print %q:\n%s", want, replayed)
		}
	}
}
