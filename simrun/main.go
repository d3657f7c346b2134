package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit codes.
const (
	exitOK      = 0
	exitUnsafe  = 1
	exitUsage   = 2
	exitStuck   = 3
	exitCrashed = 4
	exitUnknown = 5
)

const usage = `simrun: deterministic simulation of leader election on S3

usage:
  simrun run    [-scenario NAME] [-seeds N | -seed S] [-start S] [-workers N] [-json]
  simrun replay [-scenario NAME] -seed S [-o FILE] [-html FILE] [-json]
  simrun replay FILE [-html FILE] [-json]
  simrun shrink FILE [-o OUT] [-budget N]
  simrun explore [-scenario NAME] [-nodes N] [-duration D] [-faults F] [-delays K] [-depth N] [-executions N] [-path P] [-json]
  simrun zoo    [-seeds N] [-workers N] [-shrink N] [-json]
  simrun bench  [-scenario NAME] [-seeds N] [-cpuprofile FILE]
  simrun campaign -out DIR [-scenario NAME] [-seeds N] [-duration D] [-start S] [-workers N] [-shard I/N] [-keep K] [-check-determinism] [-junit FILE] [-json]
  simrun merge  -out FILE [-junit FILE] [-json] REPORT...
  simrun list

Run 'simrun COMMAND -h' for the flags of a command.
`

// errUsage marks errors that should exit with status 2.
var errUsage = errors.New("usage")

func main() {
	// simrun allocates many short-lived objects and keeps little: trading
	// memory for fewer collections is worth about a fifth of its CPU time.
	// GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var code int
	var err error
	switch args[0] {
	case "run":
		code, err = cmdRun(args[1:], stdout, stderr)
	case "replay":
		code, err = cmdReplay(args[1:], stdout, stderr)
	case "bench":
		code, err = cmdBench(args[1:], stdout, stderr)
	case "explore":
		code, err = cmdExplore(args[1:], stdout, stderr)
	case "shrink":
		code, err = cmdShrink(args[1:], stdout, stderr)
	case "zoo":
		code, err = cmdZoo(args[1:], stdout, stderr)
	case "list":
		code, err = cmdList(args[1:], stdout, stderr)
	case "campaign":
		code, err = cmdCampaign(args[1:], stdout, stderr)
	case "merge":
		code, err = cmdMerge(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		if errors.Is(err, errUsage) {
			fmt.Fprint(stderr, "run 'simrun help' for usage\n")
			return exitUsage
		}
		return exitCrashed
	}
	return code
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args and rejects stray positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}
