package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// replayLine is the replay command Check prints on a failure.
var replayLine = regexp.MustCompile(`(?m)^\s*(go test .*-harness\.replay=\S+ -v)\s*$`)

// TestExampleModule is what a new user sees in the example modules, each
// a module of its own: examples/mylock, a lock written for the harness,
// and examples/liblock, a lock written as public libraries are, adapted
// with a clock field and a short adapter. Each lock passes go test; with
// -tags broken (one classic mistake swapped in) go test fails, printing a
// replay command that, pasted into a shell there, fails again the same
// way and prints the run's trace. Each runs in a copy of the module in the
// test's temporary directory: the reproducers go test writes
// (testdata/harness, testdata/rapid) never touch the checkout, nor the
// user's own there.
func TestExampleModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests separate modules")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	for _, name := range []string{"mylock", "liblock"} {
		t.Run(name, func(t *testing.T) { testExampleModule(t, gobin, name) })
	}
}

// testExampleModule is TestExampleModule for the module
// examples/<name>, whose protocol is called name.
func testExampleModule(t *testing.T, gobin, name string) {
	checkout := filepath.Join("..", "examples", name)
	before := listTree(t, checkout)
	t.Cleanup(func() {
		if after := listTree(t, checkout); !slices.Equal(before, after) {
			t.Errorf("the test changed examples/%s in the checkout:\nbefore %v\nafter  %v", name, before, after)
		}
	})
	dir := copyExampleModule(t, checkout)
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
		t.Fatalf("go test ./... in examples/%s fails: %v\n%s", name, err, out)
	}
	out, err := run("test", "-count=1", "-tags", "broken", "./...")
	if err == nil {
		t.Fatalf("go test -tags broken ./... in examples/%s passes; the harness no longer catches its mistake:\n%s", name, out)
	}
	m := replayLine.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, name+" fails: unsafe") {
		t.Fatalf("the broken lock's failure names no violation or prints no replay command:\n%s", out)
	}
	t.Logf("printed: %s", m[1])
	sh := exec.CommandContext(ctx, "sh", "-c", m[1])
	sh.Dir = dir
	replayed, err := sh.CombinedOutput()
	if err == nil {
		t.Fatalf("the printed replay command passes:\n%s", replayed)
	}
	for _, want := range []string{"verdict: unsafe", "hash: ", name + " fails: unsafe"} {
		if !strings.Contains(string(replayed), want) {
			t.Errorf("the replay does not print %q:\n%s", want, replayed)
		}
	}
}

// copyExampleModule copies the module in dir, without its testdata, into
// the test's temporary directory, its replace directive of this module
// made absolute, and returns the copy's directory.
func copyExampleModule(t *testing.T, dir string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join(dir, "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(dir))
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			const local = "github.com/s3lease/s3lease => ../.."
			if !bytes.Contains(data, []byte(local)) {
				return fmt.Errorf("%s: no %q to rewrite", path, local)
			}
			data = bytes.ReplaceAll(data, []byte(local), []byte("github.com/s3lease/s3lease => "+root))
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// listTree lists the paths under dir, with each file's size and time.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var list []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		list = append(list, fmt.Sprintf("%s %d %v", path, fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return list
}
