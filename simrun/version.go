package simrun

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/s3lease/s3lease/internal/cmdline"
)

// cmdVersion prints the program's module, its version, the VCS revision it
// was built from and whether the tree was modified, and the Go version.
func (cli *program) cmdVersion(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlags("version", stderr)
	if err := cmdline.Parse(fs, args); err != nil {
		return 0, err
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return 0, fmt.Errorf("version: the program carries no build information")
	}
	rev, modified := "unknown: built without VCS information (go build -buildvcs=true adds it)", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	fmt.Fprintf(stdout, "%s %s\nrevision %s%s\n%s\n", info.Main.Path, info.Main.Version, rev, modified, info.GoVersion)
	return exitOK, nil
}
