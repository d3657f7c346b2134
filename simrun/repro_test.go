package simrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// simrun runs the command line in this process and returns its exit status,
// stdout and stderr.
func simrun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// afterHeader drops the comment lines that name where a replay came from.
func afterHeader(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "# ") && !strings.HasPrefix(lines[0], "# plan: ") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// TestReplayWritesAndReadsReproducer: replay -seed -o writes a reproducer
// that loads, and replay FILE prints the same run with the same exit
// status, in text and JSON.
func TestReplayWritesAndReadsReproducer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "naive.json")
	code, seedOut, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-o", file)
	if code != harness.Unsafe.ExitCode() || !strings.Contains(errOut, "wrote the reproducer") {
		t.Fatalf("replay -o: exit %d, stderr %q", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.LoadReproducer(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if r.Scenario != "naive-skew" || r.Seed != 1 || r.Plan == nil || len(r.Plan.Events) == 0 || r.Expect == nil || r.Expect.String() != "unsafe: overlap" {
		t.Fatalf("reproducer %s", data)
	}
	code, fileOut, errOut := simrun("replay", file)
	if code != harness.Unsafe.ExitCode() || errOut != "" {
		t.Fatalf("replay FILE: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(fileOut, "# reproducer "+file) || afterHeader(fileOut) != afterHeader(seedOut) {
		t.Fatalf("replay FILE differs from replay -seed:\n%s\n---\n%s", fileOut[:min(len(fileOut), 600)], seedOut[:min(len(seedOut), 600)])
	}
	if !strings.Contains(fileOut, "\nsignature: unsafe: overlap\n") {
		t.Fatalf("no signature line:\n%s", fileOut[len(fileOut)-400:])
	}
	// Flags may follow the file.
	_, seedJSON, _ := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-json")
	code, fileJSON, _ := simrun("replay", file, "-json")
	var a, b schema.Replay
	if err := json.Unmarshal([]byte(seedJSON), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(fileJSON), &b); err != nil {
		t.Fatal(err)
	}
	if code != harness.Unsafe.ExitCode() || a.Hash != b.Hash || a.Verdict != b.Verdict || !a.Signature.Equal(b.Signature) || b.Expect == nil || !b.Expect.Equal(b.Signature) {
		t.Fatalf("JSON replays differ: exit %d, %s %s %v / %s %s %v expect %v", code, a.Hash, a.Verdict, a.Signature, b.Hash, b.Verdict, b.Signature, b.Expect)
	}
	// A passing run's reproducer expects a pass and exits 0.
	pass := filepath.Join(t.TempDir(), "pass.json")
	if code, _, errOut := simrun("replay", "-scenario", "elector-skew", "-seed", "1", "-o", pass); code != exitOK {
		t.Fatalf("elector-skew seed 1: exit %d %s", code, errOut)
	}
	if code, _, errOut := simrun("replay", pass); code != exitOK || errOut != "" {
		t.Fatalf("replay of a passing reproducer: exit %d, stderr %q", code, errOut)
	}
}

// TestReplayExpectationMismatch: a file whose run shows another signature
// than it expects says so on stderr and exits with the verdict's status
// (0 if the run passes: the status is the run's); with -expect, the status
// says whether the run shows what was expected: 0 it reproduces, 8 it no
// longer fails, 9 it fails differently.
func TestReplayExpectationMismatch(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file       string
		code, gate int
	}{
		{`{"version":1,"scenario":"naive-skew","seed":1,"expect":{"verdict":"unsafe","checkers":["overlap"]}}`, harness.Unsafe.ExitCode(), exitOK},
		{`{"version":1,"scenario":"naive-skew","seed":1,"expect":{"verdict":"pass"}}`, harness.Unsafe.ExitCode(), exitFailsDifferently},
		{`{"version":1,"scenario":"naive-skew","seed":1,"expect":{"verdict":"unsafe","checkers":["unique-holder"]}}`, harness.Unsafe.ExitCode(), exitFailsDifferently},
		{`{"version":1,"scenario":"elector-skew","seed":1,"expect":{"verdict":"unsafe","checkers":["overlap"]}}`, exitOK, exitNoLongerFails},
		{`{"version":1,"scenario":"elector-skew","seed":1,"expect":{"verdict":"pass"}}`, exitOK, exitOK},
	} {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := simrun("replay", path)
		mismatch := strings.Contains(errOut, "expected ") && strings.Contains(errOut, ", got ")
		if code != c.code || mismatch != (c.gate != exitOK) {
			t.Errorf("%s: exit %d (want %d), stderr %q", c.file, code, c.code, errOut)
		}
		code, _, errOut = simrun("replay", "-expect", "recorded", path)
		says := map[int]string{exitOK: "reproduces as expected", exitNoLongerFails: "no longer fails", exitFailsDifferently: "fails differently"}[c.gate]
		if code != c.gate || !strings.Contains(errOut, says) {
			t.Errorf("%s: -expect recorded: exit %d (want %d), stderr %q (want %q)", c.file, code, c.gate, errOut, says)
		}
	}
	// -expect VERDICT, for a seed or a file: the verdict alone counts.
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"replay", "-scenario", "naive-skew", "-seed", "1", "-expect", "unsafe"}, exitOK},
		{[]string{"replay", "-scenario", "naive-skew", "-seed", "1", "-expect", "pass"}, exitFailsDifferently},
		{[]string{"replay", "-scenario", "naive-skew", "-seed", "1", "-expect", "liveness"}, exitFailsDifferently},
		{[]string{"replay", "-scenario", "reference", "-seed", "1", "-expect", "unsafe"}, exitNoLongerFails},
		{[]string{"replay", "-scenario", "reference", "-seed", "1", "-expect", "recorded"}, exitUsage},
		{[]string{"replay", "-scenario", "reference", "-seed", "1", "-expect", "fine"}, exitUsage},
	} {
		if code, _, errOut := simrun(c.args...); code != c.code {
			t.Errorf("simrun %q: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
	}
	// A file that records no expectation has nothing to compare with.
	path := filepath.Join(dir, "none.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"scenario":"reference","seed":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := simrun("replay", "-expect", "recorded", path); code != exitUsage || !strings.Contains(errOut, "records no expected signature") {
		t.Errorf("replay -expect recorded of a file without expect: exit %d, stderr %q; want 2", code, errOut)
	}
}

// TestReplayBadFiles: a missing, malformed or incompatible file, or a file
// with -seed, -scenario or -o, is a usage error with a message.
func TestReplayBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.json", `{"version":1,"scenario":"reference","seed":1}`)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"replay", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"replay", write("garbage.json", "not json")}, "bad reproducer"},
		{[]string{"replay", write("v2.json", `{"version":2,"scenario":"reference","seed":1}`)}, "version 2"},
		{[]string{"replay", write("unknown.json", `{"version":1,"scenario":"reference","seed":1,"speed":2}`)}, "unknown field"},
		{[]string{"replay", write("scenario.json", `{"version":1,"scenario":"gone","seed":1}`)}, "unknown scenario"},
		{[]string{"replay", write("nodes.json", `{"version":1,"scenario":"naive-skew","seed":1,"nodes":2,"plan":{"healAt":"1s","events":[{"kind":"crash","node":3}],"s3":{}}}`)}, "node 3 of 2"},
		{[]string{"replay", good, "-seed", "1"}, "-seed"},
		{[]string{"replay", "-scenario", "reference", good}, "-scenario"},
		{[]string{"replay", good, "-o", filepath.Join(dir, "x.json")}, "-o"},
		{[]string{"replay", good, good}, "one reproducer FILE"},
		{[]string{"replay", "-o", filepath.Join(dir, "x.json")}, "needs -seed"},
	} {
		code, _, errOut := simrun(c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.says) {
			t.Errorf("simrun %q: exit %d (want 2), stderr %q (want %q)", c.args, code, errOut, c.says)
		}
	}
	// A file that cannot be written where it is asked for is bad input,
	// but no usage error: the message names the flag and the file asked
	// for, not a temporary one.
	out := filepath.Join(dir, "no-dir", "x.json")
	code, _, errOut := simrun("replay", "-seed", "1", "-o", out)
	if code != exitUsage || !strings.HasPrefix(errOut, "simrun: -o: writing "+out+": ") || strings.Contains(errOut, ".tmp") || strings.Contains(errOut, "usage") {
		t.Errorf("simrun replay -o %s: exit %d, stderr %q; want 2 and a write error naming -o and the file, not a usage error", out, code, errOut)
	}
}

// TestReplayRefusesBadPlans: a reproducer whose plan gives a node an
// identity or settings the protocol's own configuration refuses is a bad
// file, not a run: replay exits 2 with a message naming the part of the
// plan and the protocol's rule, and prints no verdict; shrink refuses it
// alike. An identity of exactly the longest length runs.
func TestReplayRefusesBadPlans(t *testing.T) {
	dir := t.TempDir()
	file := func(name, plan string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`{"version":1,"scenario":"swarm","seed":1,"plan":`+plan+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	long := strings.Repeat("é", 513) // 1026 bytes
	for _, c := range []struct {
		path string
		says []string
	}{
		{file("name.json", `{"healAt":"30s","names":["`+long+`","n1","n2","n3","n4"]}`),
			[]string{"names[0] gives node 0 an identity of 1026 bytes", `protocol "elector" takes identities of at most 1024 bytes`}},
		{file("restart.json", `{"healAt":"30s","events":[{"kind":"restart","at":"5s","node":2,"identity":"`+long+`"}]}`),
			[]string{"events[0].identity gives node 2 an identity of 1026 bytes"}},
		{file("suffix.json", `{"healAt":"30s","names":["`+strings.Repeat("x", 1024)+`","n1","n2","n3","n4"],"events":[{"kind":"crash","at":"5s","node":0,"for":"1s","identity":"-r"}]}`),
			[]string{"events[0].identity gives node 0 an identity of 1026 bytes"}},
		{file("settings.json", `{"healAt":"30s","settings":[{"node":1,"lease":"1s","renewDeadline":"2s","retryPeriod":"300ms"}]}`),
			[]string{"settings[0] (node 1)", "RenewDeadline (2s) must be less than LeaseDuration (1s)"}},
	} {
		for _, args := range [][]string{{"replay", c.path}, {"shrink", c.path}} {
			code, out, errOut := simrun(args...)
			if code != exitUsage || strings.Contains(out, "verdict:") || !strings.Contains(errOut, c.path) {
				t.Errorf("simrun %q: exit %d, stdout %.200q, stderr %q; want 2 naming the file, no verdict", args, code, out, errOut)
			}
			for _, want := range c.says {
				if !strings.Contains(errOut, want) {
					t.Errorf("simrun %q: stderr %q does not say %q", args, errOut, want)
				}
			}
		}
	}
	longest := file("longest.json", `{"healAt":"30s","names":["`+strings.Repeat("x", 1024)+`","n1","n2","n3","n4"]}`)
	if code, out, errOut := simrun("replay", longest); code != exitOK || !strings.Contains(out, "verdict: pass") {
		t.Errorf("simrun replay of a name of 1024 bytes: exit %d, stderr %q, stdout ends %q", code, errOut, out[max(0, len(out)-200):])
	}
}

// TestBadFlagReportedOnce: a bad flag value or a stray argument is
// reported once, in one line, without the flags' usage.
func TestBadFlagReportedOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "-seeds", "abc"}, `invalid value "abc" for flag -seeds`},
		{[]string{"run", "extra", "more"}, `simrun run takes no arguments, but was given "extra" "more"`},
	} {
		code, _, errOut := simrun(c.args...)
		if code != exitUsage || strings.Count(errOut, c.says) != 1 || strings.Contains(errOut, "Usage of") {
			t.Errorf("simrun %q: exit %d, stderr %q; want %q once and no usage", c.args, code, errOut, c.says)
		}
	}
	if code, _, errOut := simrun("run", "-h"); code != exitOK || !strings.Contains(errOut, "-seeds") {
		t.Errorf("simrun run -h: exit %d, stderr %q; want the flags", code, errOut)
	}
}

// TestShrinkCommand: shrink writes a smaller reproducer that still fails
// alike, next to the file by default or to -o.
func TestShrinkCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "skew.json")
	if code, _, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "2", "-o", file); code != harness.Unsafe.ExitCode() {
		t.Fatalf("replay -o: exit %d %s", code, errOut)
	}
	var out, errOut bytes.Buffer
	code, err := testCLI().cmdShrink([]string{file, "-budget", "300"}, &out, &errOut)
	if err != nil || code != exitOK {
		t.Fatalf("shrink: exit %d, %v, %s", code, err, errOut.String())
	}
	t.Logf("simrun shrink %s:\n%s", file, out.String())
	small := filepath.Join(dir, "skew.min.json")
	for _, want := range []string{"shrink naive-skew seed 2: unsafe: overlap", "before: 10 events, 5 clock settings, 5 nodes, 1m0s", "after:  ", " runs; wrote " + small} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	r, err := harness.LoadReproducer(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan.Events) >= 10 && r.Nodes == 0 {
		t.Errorf("nothing shrunk:\n%s", data)
	}
	if code, _, errOut := simrun("replay", small); code != harness.Unsafe.ExitCode() || errOut != "" {
		t.Fatalf("replay of the shrunk file: exit %d, stderr %q", code, errOut)
	}
	// -o names the output; shrinking a shrunk file finds it small already.
	again := filepath.Join(dir, "again.json")
	out.Reset()
	if code, err := testCLI().cmdShrink([]string{"-o", again, small}, &out, &errOut); err != nil || code != exitOK {
		t.Fatalf("shrink -o: exit %d, %v", code, err)
	}
	if _, err := os.Stat(again); err != nil {
		t.Fatal(err)
	}
}

// TestShrinkCommandRefuses: nothing to shrink in a passing run, bad files,
// bad flags: usage errors with a message.
func TestShrinkCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	pass := filepath.Join(dir, "pass.json")
	if err := os.WriteFile(pass, []byte(`{"version":1,"scenario":"elector-skew","seed":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version":9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		says  string
		usage bool // a usage error, not bad input
	}{
		{[]string{pass}, "nothing to shrink: the run passes", false},
		{[]string{bad}, "version 9", false},
		{[]string{filepath.Join(dir, "missing.json")}, "no such file", false},
		{[]string{}, "one reproducer FILE", true},
		{[]string{pass, pass}, "one reproducer FILE", true},
		{[]string{pass, "-budget", "0"}, "-budget", true},
		{[]string{pass, "-frobnicate"}, "frobnicate", true},
	} {
		code, _, errOut := simrun(append([]string{"shrink"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.says) || strings.Contains(errOut, "usage:") != c.usage {
			t.Errorf("shrink %q: exit %d, stderr %q; want 2 saying %q (labelled usage: %v)", c.args, code, errOut, c.says, c.usage)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pass.min.json")); err == nil {
		t.Error("a passing run's file was written")
	}
}
