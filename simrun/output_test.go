//go:build unix

package simrun

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/s3lease/s3lease/harness"
	nightly "github.com/s3lease/s3lease/internal/campaign"
)

// TestOutputsNeverClobber: every file a command writes goes through one
// writer: "-" is standard output (the command's text then goes to
// stderr), a symbolic link is written through, a named pipe and a device
// node receive the data and stay what they are (the node is made in a
// temporary directory, never the machine's /dev/null), and a directory is
// refused with exit status 2, labelled with the flag that named it.
func TestOutputsNeverClobber(t *testing.T) {
	dir := t.TempDir()

	// -o -: the reproducer alone on stdout, the trace on stderr.
	code, out, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-o", "-")
	if code != harness.Unsafe.ExitCode() {
		t.Fatalf("replay -o -: exit %d: %s", code, errOut)
	}
	if _, err := harness.LoadReproducer(strings.NewReader(out)); err != nil {
		t.Fatalf("replay -o -: stdout is no reproducer (%v):\n%s", err, out)
	}
	if !strings.Contains(errOut, "# naive-skew seed 1") || !strings.Contains(errOut, "to standard output") {
		t.Fatalf("replay -o -: the trace is not on stderr:\n%s", errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal(`replay -o - wrote a file named "-"`)
	}

	// Two files on stdout, or one with -json: a usage error.
	for _, args := range [][]string{
		{"replay", "-seed", "1", "-o", "-", "-html", "-"},
		{"replay", "-seed", "1", "-o", "-", "-json"},
	} {
		if code, _, errOut := simrun(args...); code != exitUsage || !strings.Contains(errOut, "standard output") {
			t.Errorf("simrun %q: exit %d, stderr %q; want 2", args, code, errOut)
		}
	}

	// A symbolic link: written through, and still a link.
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-o", link); code != harness.Unsafe.ExitCode() {
		t.Fatalf("replay -o LINK: exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("replay -o LINK replaced the link: %v", err)
	}
	if _, err := loadReproducerFile(target); err != nil {
		t.Fatalf("the link's target: %v", err)
	}

	// A named pipe with a reader: the reproducer goes into it. (The reader
	// is opened without waiting for a writer, and reads once the command
	// is done: the pipe holds 64 KiB, more than a reproducer.)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if code, _, errOut := simrun("replay", "-scenario", "naive-skew", "-seed", "1", "-o", fifo); code != harness.Unsafe.ExitCode() {
		t.Fatalf("replay -o FIFO: exit %d: %s", code, errOut)
	}
	if b, err := io.ReadAll(r); err != nil || !bytes.Contains(b, []byte(`"scenario": "naive-skew"`)) {
		t.Fatalf("the pipe received %q, %v; want the reproducer", b, err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("replay -o FIFO replaced the pipe: %v", err)
	}

	// A directory: exit 2, labelled with the flag, and left alone.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = simrun("html", "-seed", "1", "-o", sub)
	if code != exitUsage || errOut != "simrun: -o: writing "+sub+": is a directory\n" {
		t.Fatalf("html -o DIR: exit %d, stderr %q; want 2, labelled -o", code, errOut)
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Fatalf("html -o DIR: the directory is gone: %v", err)
	}

	// merge -out onto a null device of our own, as root: the report goes
	// into the device, and the node stays a device.
	camp := filepath.Join(dir, "campaign")
	if code, out, errOut := simrun("campaign", "-out", camp, "-scenario", "reference", "-seeds", "2", "-workers", "1", "-quiet"); code != exitOK {
		t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod needs root: %v (merge -out DEVICE is not checked)", err)
	}
	if code, out, errOut := simrun("merge", "-out", null, filepath.Join(camp, nightly.ReportFile)); code != exitOK {
		t.Fatalf("merge -out DEVICE: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("merge -out DEVICE replaced the device node: %v", err)
	}
}
