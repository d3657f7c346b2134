package simrun

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestErrorMessages: each kind of bad input gets a precise message and
// status 2: a bad flag is a usage error that points to its command's -h;
// a file whose content is wrong, or an output path that cannot take the
// file, is labelled by what it is, not "usage". A write that fails for the
// machine's reasons (a full disk) is simrun failing: status 4. help
// COMMAND, -version and --version, and a mistyped command's suggestion
// work.
func TestErrorMessages(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		code       int
		want, nots []string
	}{
		{[]string{"run", "-frobnicate"}, exitUsage,
			[]string{"simrun: usage: flag provided but not defined: -frobnicate\n", "run 'go run ./cmd/simrun run -h' for the flags of run\n"}, []string{"simrun help'"}},
		{[]string{"replay", garbage}, exitUsage,
			[]string{"simrun: " + garbage + ": bad reproducer: not a JSON reproducer"}, []string{"usage", "-h"}},
		{[]string{"merge", "-out", filepath.Join(dir, "m.json"), garbage}, exitUsage,
			[]string{"simrun: " + garbage + ": bad campaign report"}, []string{"usage"}},
		{[]string{"replay", "-seed", "1", "extra"}, exitUsage,
			[]string{`replay -seed names a run, and so would the argument "extra" as a reproducer FILE`}, []string{"takes no -seed"}},
		{[]string{"html", "-seed", "1", "-o", filepath.Join(dir, "missing", "p.html")}, exitUsage,
			[]string{"simrun: -o: writing " + filepath.Join(dir, "missing", "p.html") + ": no such file or directory\n"}, []string{"-html", "usage"}},
		{[]string{"rnu"}, exitUsage,
			[]string{`unknown command "rnu"; did you mean "run"?`, "run 'go run ./cmd/simrun help' for the commands"}, nil},
		{[]string{"camp"}, exitUsage, []string{`did you mean "campaign"?`}, nil},
		{[]string{"frobnicate"}, exitUsage, []string{`unknown command "frobnicate"` + "\n"}, []string{"did you mean"}},
		{[]string{"help", "rnu"}, exitUsage, []string{`did you mean "run"?`}, nil},
	} {
		code, out, errOut := simrun(c.args...)
		if code != c.code {
			t.Errorf("simrun %q: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("simrun %q: stderr %q, want %q", c.args, errOut, w)
			}
		}
		for _, n := range c.nots {
			if strings.Contains(errOut, n) {
				t.Errorf("simrun %q: stderr %q says %q", c.args, errOut, n)
			}
		}
		if out != "" {
			t.Errorf("simrun %q: stdout %q", c.args, out)
		}
	}

	// help COMMAND is the command's usage, on stdout.
	code, out, errOut := simrun("help", "run")
	if code != exitOK || !strings.Contains(out, "-until-failure") || strings.Contains(out, "simrun campaign") || errOut != "" {
		t.Errorf("help run: exit %d, stdout %q, stderr %q; want run's flags", code, out, errOut)
	}
	code, out, _ = simrun("help", "replay")
	if code != exitOK || !strings.Contains(out, "simrun replay FILE") || !strings.Contains(out, "-expect") {
		t.Errorf("help replay: exit %d, stdout %q; want replay's usage", code, out)
	}
	for _, flag := range []string{"-version", "--version"} {
		if code, out, errOut := simrun(flag); code != exitOK || !strings.Contains(out, "github.com/s3lease/s3lease") {
			t.Errorf("simrun %s: exit %d, stdout %q, stderr %q; want the version", flag, code, out, errOut)
		}
	}

	// A full disk is no bad input: the write fails, simrun exits 4. The
	// full device is a node of our own (as root), never the machine's.
	if runtime.GOOS != "linux" {
		return
	}
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Skipf("mknod needs root: %v (a full disk's status is not checked)", err)
	}
	code, _, errOut = simrun("replay", "-seed", "1", "-o", full)
	if code != exitCrashed || errOut != "simrun: -o: writing "+full+": no space left on device\n" {
		t.Errorf("replay -o FULL-DEVICE: exit %d, stderr %q; want 4 and the write error", code, errOut)
	}
}
