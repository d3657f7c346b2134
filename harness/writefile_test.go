//go:build unix

package harness_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestWriteFileAtomicNeverClobbers: WriteFileAtomic replaces regular files
// atomically and writes through whatever else a path names without
// replacing it: a symbolic link stays a link (its target gets the data), a
// named pipe and a character device stay what they are and receive the
// data, a directory is refused as the path's fault. No temporary file is
// left behind. The device is a node made in a temporary directory (as
// root), never the machine's own /dev/null.
func TestWriteFileAtomicNeverClobbers(t *testing.T) {
	data := []byte("{\"written\": true}\n")
	// onlyEntries checks that dir holds exactly names: no temporary file.
	onlyEntries := func(t *testing.T, dir string, names ...string) {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if len(got) != len(names) {
			t.Fatalf("%s holds %v, want %v", dir, got, names)
		}
	}
	mustRead := func(t *testing.T, path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("regular file keeps its permissions", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "report.json")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := harness.WriteFileAtomic(path, data); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode() != 0o600 || mustRead(t, path) != string(data) {
			t.Fatalf("after the write: %v, %v, %q", fi.Mode(), err, mustRead(t, path))
		}
		onlyEntries(t, dir, "report.json")
	})

	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target.json")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link.json")
		if err := os.Symlink("target.json", link); err != nil {
			t.Fatal(err)
		}
		if err := harness.WriteFileAtomic(link, data); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v, %v", fi.Mode(), err)
		}
		if got := mustRead(t, target); got != string(data) {
			t.Fatalf("the link's target holds %q", got)
		}
		onlyEntries(t, dir, "link.json", "target.json")
	})

	t.Run("dangling symlink", func(t *testing.T) {
		dir := t.TempDir()
		link := filepath.Join(dir, "link.json")
		if err := os.Symlink("new.json", link); err != nil {
			t.Fatal(err)
		}
		if err := harness.WriteFileAtomic(link, data); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v", err)
		}
		if got := mustRead(t, filepath.Join(dir, "new.json")); got != string(data) {
			t.Fatalf("the file the link names holds %q", got)
		}
	})

	t.Run("symlink loop", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := errors.Join(os.Symlink("b", a), os.Symlink("a", b)); err != nil {
			t.Fatal(err)
		}
		if err := harness.WriteFileAtomic(a, data); !errors.Is(err, harness.ErrBadPath) {
			t.Fatalf("writing through a loop of links: %v, want ErrBadPath", err)
		}
		onlyEntries(t, dir, "a", "b")
	})

	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// No reader: an error at once, not a wait, and the pipe stays.
		err := harness.WriteFileAtomic(fifo, data)
		if !errors.Is(err, harness.ErrBadPath) {
			t.Fatalf("writing a pipe nobody reads: %v, want ErrBadPath", err)
		}
		// A reader opened without waiting: the write finds it, and the
		// data is in the pipe when WriteFileAtomic returns.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := harness.WriteFileAtomic(fifo, data); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != string(data) {
			t.Fatalf("read from the pipe %q, %v; want %q", got, err, data)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("the named pipe was replaced: %v", err)
		}
		onlyEntries(t, dir, "pipe")
	})

	t.Run("character device", func(t *testing.T) {
		dir := t.TempDir()
		dev := filepath.Join(dir, "null")
		// A null device (major 1, minor 3) of our own: making one needs
		// root, as the tests have here and in CI.
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("mknod needs root: %v (the device case is not checked)", err)
		}
		if err := harness.WriteFileAtomic(dev, data); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(dev)
		if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("the device node was replaced: %v, %v", fi.Mode(), err)
		}
		onlyEntries(t, dir, "null")
	})

	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		err := harness.WriteFileAtomic(dir, data)
		if !errors.Is(err, harness.ErrBadPath) || !errors.Is(err, syscall.EISDIR) {
			t.Fatalf("writing a directory: %v, want ErrBadPath (is a directory)", err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("the directory is gone: %v", err)
		}
		onlyEntries(t, dir)
	})

	t.Run("missing directory", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "no-such-dir", "x.json")
		err := harness.WriteFileAtomic(path, data)
		if !errors.Is(err, harness.ErrBadPath) || err.Error() != "writing "+path+": no such file or directory" {
			t.Fatalf("writing into a missing directory: %v, want ErrBadPath naming the path", err)
		}
	})
}
