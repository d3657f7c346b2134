package simrun

import (
	"context"
	"fmt"
	"io"

	"github.com/s3lease/s3lease/simvet"
)

const vetUsage = `usage:
  simrun vet [PACKAGE...]

Checks protocol packages, the code that runs under the simulator, for what
the simulator cannot see: the real clock (time.Now, time.Sleep, timers),
global randomness (math/rand, crypto/rand), go statements, and blocking on
channels, selects without default or WaitGroups. Packages are go list
patterns relative to the current directory ("." if none). Each finding is
printed as file:line:col: message. A declaration that is the real-world
implementation (a real clock) is exempted by a '//simvet:real REASON'
line in its doc comment.

Exit status: 0 no findings, 1 findings, 2 bad input or packages that do
not load.
`

// cmdVet runs the simvet analyzer over the packages named.
func cmdVet(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("vet", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, vetUsage) }
	pkgs, err := parseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	n, err := simvet.Main(context.Background(), pkgs, ".", stdout)
	if err != nil {
		return 0, fmt.Errorf("%w: vet: %v", errUsage, err)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "simrun vet: %d finding(s): code under simulation must wait, sleep, read time and start goroutines through its protocol.Clock\n", n)
		return 1, nil
	}
	return exitOK, nil
}
