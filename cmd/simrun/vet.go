package main

import (
	"context"
	"fmt"

	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/simrun"
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

// vetTool is `simrun vet`.
var vetTool = simrun.Tool{Name: "vet", Usage: "simrun vet    [PACKAGE...]", Run: runVet}

// runVet runs the simvet analyzer over the packages named.
func runVet(env simrun.Env, args []string) (int, error) {
	stdout, stderr := env.Stdout, env.Stderr
	fs := cmdline.NewFlags("vet", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, vetUsage) }
	pkgs, err := cmdline.ParseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	n, err := simvet.Main(context.Background(), pkgs, ".", stdout)
	if err != nil {
		return 0, fmt.Errorf("%w: vet: %v", simrun.ErrUsage, err)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "simrun vet: %d finding(s): code under simulation must wait, sleep, read time and start goroutines through its protocol.Clock\n", n)
		return 1, nil
	}
	return 0, nil
}
