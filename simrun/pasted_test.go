package simrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	nightly "github.com/s3lease/s3lease/internal/campaign"
	"github.com/s3lease/s3lease/internal/schema"
)

// pasted runs command as a person pasting it would: through a shell, in
// the module's root, with a deadline. It returns stdout and stderr.
func pasted(t *testing.T, command string) (string, string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run() // go run turns every non-zero status into 1; its stderr names the real one
	if ctx.Err() != nil {
		t.Fatalf("%s: no answer within 3 minutes", command)
	}
	return out.String(), errOut.String()
}

var hashLine = regexp.MustCompile(`(?m)^hash: ([0-9a-f]{16})$`)

// wantFailure checks that a pasted replay gave the failure again: the
// unsafe verdict's exit status (as go run reports it) and, if hash is not
// empty, the very same run.
func wantFailure(t *testing.T, command, stdout, stderr, hash string) {
	t.Helper()
	if !strings.Contains(stderr, "exit status 1") || !strings.Contains(stdout, "verdict: unsafe") {
		t.Fatalf("pasted %q: want the unsafe verdict and exit status 1 again\nstdout: %.2000s\nstderr: %s", command, stdout, stderr)
	}
	if m := hashLine.FindStringSubmatch(stdout); hash != "" && (m == nil || m[1] != hash) {
		t.Fatalf("pasted %q: trace hash %v, want %s (the same run)", command, m, hash)
	}
}

// TestPrintedCommandsRunWhenPasted takes real failures, the commands the
// tool prints for them (run's replay, a campaign's reproducer and replay,
// explore's path and reproducer, shrink's), and runs each through a shell
// as printed: each gives the failure again.
func TestPrintedCommandsRunWhenPasted(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to run the printed 'go run' commands")
	}
	dir := t.TempDir()

	// run: each failing seed's replay command.
	var out, errOut bytes.Buffer
	run([]string{"run", "-scenario", "zoo/no-watchdog", "-seeds", "60", "-json"}, &out, &errOut)
	var sum schema.Run
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || len(sum.Failures) == 0 {
		t.Fatalf("zoo/no-watchdog: no failure in 60 seeds to replay (%v)\n%s", err, out.String())
	}
	f := sum.Failures[0]
	stdout, stderr := pasted(t, f.Replay)
	wantFailure(t, f.Replay, stdout, stderr, f.Hash)

	// replay -o and shrink, as run's summary tells: then the shrunk file's
	// replay command, as shrink prints it.
	file := filepath.Join(dir, "seed.json")
	stdout, stderr = pasted(t, f.Replay+" -o "+file)
	wantFailure(t, f.Replay+" -o "+file, stdout, stderr, f.Hash)
	shrink := harness.Repro{Verb: "shrink", File: file, Flags: []string{"-budget", "200"}}.Command()
	stdout, stderr = pasted(t, shrink)
	m := regexp.MustCompile(`(?m)^replay: (.+)$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("%s printed no replay command\n%s%s", shrink, stdout, stderr)
	}
	stdout, stderr = pasted(t, m[1])
	wantFailure(t, m[1], stdout, stderr, "")

	// campaign: the report's replay command and its reproducer files.
	out.Reset()
	run([]string{"campaign", "-out", filepath.Join(dir, "c"), "-scenario", "zoo/no-watchdog", "-seeds", "60", "-json"}, &out, &errOut)
	var rep nightly.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Groups) == 0 || len(rep.Groups[0].Reproducers) == 0 {
		t.Fatalf("campaign: no failure group with a reproducer (%v)\n%s", err, out.String())
	}
	g := rep.Groups[0]
	stdout, stderr = pasted(t, g.Replay)
	wantFailure(t, g.Replay, stdout, stderr, "")
	repro := harness.Repro{File: filepath.Join(dir, "c", g.Reproducers[0])}.Command()
	stdout, stderr = pasted(t, repro)
	wantFailure(t, repro, stdout, stderr, "")

	// explore: the path command, and the reproducer -o writes.
	out.Reset()
	found := filepath.Join(dir, "found.json")
	run([]string{"explore", "-scenario", "zoo/unconditional-acquire", "-seed", "2", "-json", "-o", found}, &out, &errOut)
	var ex schema.Explore
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil || ex.Verdict != "unsafe" {
		t.Fatalf("explore found no failure of zoo/unconditional-acquire (%v)\n%s", err, out.String())
	}
	for _, c := range []string{ex.Replay, harness.Repro{File: found}.Command()} {
		stdout, stderr = pasted(t, c)
		wantFailure(t, c, stdout, stderr, "")
	}
}
