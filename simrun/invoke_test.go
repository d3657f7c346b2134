package simrun

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestInvokedAs: a program that go run or go test built (in a go-build
// directory, or kept in the build cache) prints harness.DefaultCommand;
// a built binary prints its name if the PATH finds it by that name, else
// the path the user typed.
func TestInvokedAs(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin", "simrun")
	other := filepath.Join(dir, "other")
	for _, f := range []string{exe, other} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := func(found string) func(string) (string, error) {
		return func(string) (string, error) {
			if found == "" {
				return "", errors.New("not found")
			}
			return found, nil
		}
	}
	cache := strings.Repeat("0123456789abcdef", 4) + "-d"
	for _, c := range []struct {
		arg0, exe, found, want string
	}{
		{"/tmp/go-build123/b001/exe/simrun", "/tmp/go-build123/b001/exe/simrun", "", ""},
		{"/root/.cache/go-build/dc/" + cache + "/simrun", "/root/.cache/go-build/dc/" + cache + "/simrun", "", ""},
		{"/srv/cache/dc/" + cache + "/simrun", "/srv/cache/dc/" + cache + "/simrun", "", ""},
		{"/tmp/go-build9/b001/simrun.test", "/tmp/go-build9/b001/simrun.test", "", ""},
		{"simrun", exe, exe, "simrun"},
		{exe, exe, exe, "simrun"},
		{"./bin/simrun", exe, "", "./bin/simrun"},
		{"../x y/simrun", exe, other, "'../x y/simrun'"},
		{"simrun", exe, other, exe},
	} {
		if got := invokedAs(c.arg0, c.exe, path(c.found)); got != c.want {
			t.Errorf("invokedAs(%q, %q) with the PATH finding %q = %q, want %q", c.arg0, c.exe, c.found, got, c.want)
		}
	}
}

// TestBuiltBinaryPrintsItsOwnCommand: simrun built as a binary (this test
// binary, copied out of go test's build directory, acts as one) prints
// replay commands that invoke it as the user did, by the relative path
// typed or by its name on the PATH, and each runs when pasted in the
// directory where it was printed.
func TestBuiltBinaryPrintsItsOwnCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	bin, work := filepath.Join(root, "bin"), filepath.Join(root, "work")
	for _, d := range []string{bin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, self, filepath.Join(bin, "simrun"))
	env := append(os.Environ(), "SIMRUN_CHILD=argv")
	pathEnv := append(slicesWithout(env, "PATH="), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	replayLine := regexp.MustCompile(`(?m)^  replay: (.*)$`)
	for _, c := range []struct {
		name string // how the binary is run
		env  []string
		want string // the program in the printed command
	}{
		{"../bin/simrun", env, "../bin/simrun"},
		{"simrun", pathEnv, "simrun"},
	} {
		// The executable a shell finds for the name, given as the name.
		cmd := exec.Command(filepath.Join(bin, "simrun"), "run", "-scenario", "naive-skew", "-seeds", "1", "-quiet")
		cmd.Args[0], cmd.Dir, cmd.Env = c.name, work, c.env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		if cmd.ProcessState.ExitCode() != harness.Unsafe.ExitCode() {
			t.Fatalf("%s run: exit %d\n%s%s", c.name, cmd.ProcessState.ExitCode(), out, stderr.Bytes())
		}
		m := replayLine.FindSubmatch(out)
		want := c.want + " replay -scenario naive-skew -seed 1"
		if m == nil || string(m[1]) != want {
			t.Fatalf("%s run prints no replay command %q:\n%s", c.name, want, out)
		}
		sh := exec.Command("sh", "-c", string(m[1]))
		sh.Dir, sh.Env = work, c.env
		replayed, _ := sh.CombinedOutput()
		if sh.ProcessState.ExitCode() != harness.Unsafe.ExitCode() || !bytes.Contains(replayed, []byte("verdict: unsafe")) {
			t.Fatalf("pasted %q: exit %d\n%s", m[1], sh.ProcessState.ExitCode(), replayed)
		}
	}
}

// copyFile copies the executable src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// slicesWithout is env without the variables that start with prefix.
func slicesWithout(env []string, prefix string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}
