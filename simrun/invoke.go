package simrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/s3lease/s3lease/harness"
)

// invokedAs is how the commands a program prints invoke it when no Command
// option says: "" (harness.DefaultCommand, "go run ./cmd/simrun") for a
// program that go run or go test built, and otherwise the command the user
// ran, arg0: its base name if the PATH finds this very executable by it,
// else arg0 as typed, a path absolute or relative to the current
// directory, which runs when pasted there. exe is the running executable
// (os.Executable).
func invokedAs(arg0, exe string, lookPath func(string) (string, error)) string {
	if arg0 == "" || exe == "" || goBuilt(exe) {
		return ""
	}
	base := filepath.Base(arg0)
	if found, err := lookPath(base); err == nil && sameFile(found, exe) {
		return harness.Quote(base)
	}
	if !strings.ContainsRune(arg0, filepath.Separator) {
		// Run by a name the PATH does not resolve to this executable (a
		// shell alias, a wrapper): say where it is.
		return harness.Quote(exe)
	}
	return harness.Quote(arg0)
}

// runningAs is invokedAs for the running process.
func runningAs() string {
	exe, err := os.Executable()
	if err != nil || len(os.Args) == 0 {
		return ""
	}
	return invokedAs(os.Args[0], exe, exec.LookPath)
}

// buildCacheEntry is the directory of an executable that go run keeps in
// the build cache: an action ID in hex, then "-d".
var buildCacheEntry = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// goBuilt reports whether the executable at exe is one that go run or go
// test built: in a temporary go-build directory, or kept in the build
// cache (its default location is a go-build directory too; GOCACHE may put
// it elsewhere, but not its entries' names).
func goBuilt(exe string) bool {
	dir := filepath.Dir(exe)
	if buildCacheEntry.MatchString(filepath.Base(dir)) {
		return true
	}
	if cache := os.Getenv("GOCACHE"); cache != "" && strings.HasPrefix(exe, filepath.Clean(cache)+string(filepath.Separator)) {
		return true
	}
	for _, elem := range strings.Split(filepath.ToSlash(dir), "/") {
		if strings.HasPrefix(elem, "go-build") {
			return true
		}
	}
	return false
}

// sameFile reports whether two paths name one file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
