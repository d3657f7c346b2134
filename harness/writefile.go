package harness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrBadPath is wrapped by the errors of WriteFileAtomic that are the
// path's fault, not the machine's: a directory, a parent directory that
// does not exist or is no directory, no permission, a read-only file
// system, a loop of symbolic links, a named pipe that no process reads.
// A command reports them as bad input; any other failure (a full disk, an
// I/O error) is the command failing to do its work.
var ErrBadPath = errors.New("bad output path")

// WriteFileAtomic writes data to path, the one way every command writes
// its reproducers, reports and pages:
//
//   - over a regular file, or where nothing is yet, atomically: path holds
//     either its old content or all of data, never a part (a temporary
//     file in the same directory, written and synced, renamed over path,
//     the directory synced). A file replaced keeps its permissions; a new
//     one gets 0644.
//   - through a symbolic link, to the file it names (atomically, if that
//     is a regular file or does not exist yet): the link stays.
//   - into a device, a named pipe or a socket, directly, as a shell's
//     redirection would: the node stays. A named pipe that no process
//     reads is an error, not a wait.
//   - never over a directory: that is an error.
//
// An error names path (not a temporary file) and wraps the cause, and
// ErrBadPath if the path is at fault.
func WriteFileAtomic(path string, data []byte) error {
	if err := writeFile(path, data); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &writeError{path: path, err: err}
	}
	return nil
}

// writeError is a failed write of path.
type writeError struct {
	path string
	err  error
}

func (e *writeError) Error() string { return "writing " + e.path + ": " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// Is makes the errors that are the path's fault match ErrBadPath.
func (e *writeError) Is(target error) bool {
	if target != ErrBadPath {
		return false
	}
	for _, bad := range []error{fs.ErrNotExist, fs.ErrPermission, syscall.ENOTDIR, syscall.EISDIR,
		syscall.EROFS, syscall.ENAMETOOLONG, syscall.ELOOP, syscall.ENXIO, errNoReader} {
		if errors.Is(e.err, bad) {
			return true
		}
	}
	return false
}

// errNoReader: a named pipe that no process has open for reading.
var errNoReader = errors.New("no process reads the named pipe")

// maxLinks bounds the symbolic links followed, as the kernel does.
const maxLinks = 40

func writeFile(path string, data []byte) error {
	// Stat follows links as the kernel does, magic links of /proc
	// (/dev/stdout, /dev/fd/N) included: what the path names in the end.
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return syscall.EISDIR
	case err == nil && !fi.Mode().IsRegular():
		return writeNode(path, fi, data)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	// A regular file, or nothing yet (perhaps behind a dangling link):
	// replace or create the file the links lead to.
	target, err := followLinks(path)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if fi != nil {
		perm = fi.Mode().Perm()
	}
	return writeAtomic(target, data, perm)
}

// followLinks follows the symbolic links of path's last element, dangling
// ones included, to the path of what they name in the end.
func followLinks(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return path, nil
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", syscall.ELOOP
}

// writeNode writes data into a device, named pipe or socket, opened by
// path. A named pipe is opened without waiting: no reader is an error.
func writeNode(path string, fi fs.FileInfo, data []byte) error {
	flag := os.O_WRONLY
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flag, 0)
	if errors.Is(err, syscall.ENXIO) && flag != os.O_WRONLY {
		return errNoReader
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writeAtomic writes data to the regular file path (or where nothing is
// yet) by renaming a synced temporary file of the same directory over it.
func writeAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err = d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}
