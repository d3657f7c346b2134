package simrun

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/mutation"
)

// Exit statuses that are no verdict's: success of a command that judges
// nothing, bad input, and an error of the harness itself.
const (
	exitOK      = 0
	exitUsage   = harness.ExitUsage
	exitCrashed = 4
	// exitFailed: a command whose own check failed (a document written
	// with a gap, a zoo variant not caught).
	exitFailed = 1
	// exitIncomplete: a merge that is missing some of the campaign's
	// shards, when no seed it covers failed.
	exitIncomplete = 7
)

const usage = `simrun: deterministic simulation of leader election on S3

usage:
  simrun run    [-scenario NAME] [-seeds N | -seed S] [-start S] [-workers N] [-until-failure] [-expect VERDICT] [-coverage] [-guided [-out DIR]] [-json]
  simrun replay [-scenario NAME] -seed S [-o FILE] [-html FILE] [-json]
  simrun replay FILE [-html FILE] [-json]
  simrun html   [-scenario NAME] -seed S -o PAGE | FILE -o PAGE
  simrun shrink FILE [-o OUT] [-budget N]
  simrun explore [-scenario NAME] [-nodes N] [-duration D] [-faults F] [-delays K] [-depth N] [-por=false] [-executions N] [-path P] [-o FILE] [-html FILE] [-json]
  simrun zoo    [-seeds N] [-workers N] [-shrink N] [-masked | -swarm | -guided [-out DIR]] [-json]
  simrun bench  [-scenario NAME] [-seeds N] [-workers N] [-scale] [-json] [-cpuprofile FILE]
  simrun live   [-duration D] [-nodes N] [-faults=false] [-endpoint URL -bucket B] [-json] [-html FILE]
  simrun campaign -out DIR [-scenario NAME] [-seeds N] [-duration D] [-start S] [-workers N] [-shard I/N] [-keep K] [-check-determinism] [-junit FILE] [-json] [-coverage]
  simrun merge  -out FILE [-junit FILE] [-json] [-coverage] REPORT...
  simrun coverage [-scenario NAME] [-seeds N] [-start S] [-workers N] [-guided] [-json] [-doc FILE]
  simrun list
  simrun vet    [PACKAGE...]
  simrun mutate [-seeds N] [-tests=false] [-sample K/M] [-only IDS] [-o REPORT] [-json] [-list]
  simrun version

Run 'simrun COMMAND -h' for the flags of a command.
`

// errUsage marks errors that should exit with status 2.
var errUsage = errors.New("usage")

// Main is the simrun command: it registers regs (a user's protocols and
// scenarios, beside the stories of package scenarios and the zoo), runs the
// subcommand named by the process's arguments and exits with its status.
// A user's own simrun is a main package of a few lines:
//
//	func main() {
//		simrun.Main(simrun.Protocol("mylock", mylock.Protocol()))
//	}
//
// and gets every subcommand (run, replay, shrink, explore, campaign, merge,
// bench, list, vet) for its protocols.
func Main(regs ...Registration) {
	// simrun allocates many short-lived objects and keeps little: trading
	// memory for fewer collections is worth about a fifth of its CPU time.
	// GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, regs...))
}

// Run is Main without the process: it registers regs, runs the command
// args and returns its exit status.
func Run(args []string, stdout, stderr io.Writer, regs ...Registration) int {
	for _, r := range regs {
		if err := r(); err != nil {
			fmt.Fprintf(stderr, "simrun: %v\n", err)
			return exitUsage
		}
	}
	return run(args, stdout, stderr)
}

// run runs one command; it returns the exit status.
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
	case "coverage":
		code, err = cmdCoverage(args[1:], stdout, stderr)
	case "vet":
		code, err = cmdVet(args[1:], stdout, stderr)
	case "html":
		code, err = cmdHTML(args[1:], stdout, stderr)
	case "version":
		code, err = cmdVersion(args[1:], stdout, stderr)
	case "live":
		code, err = cmdLive(args[1:], stdout, stderr)
	case "mutate":
		// Its own flags, exit statuses and messages (package mutation).
		return mutation.Main(args[1:], stdout, stderr)
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

// newFlags returns a flag set that reports errors instead of exiting. It
// prints nothing itself: a bad flag is reported once, by run, and the
// usage only when asked for (-h, by parseFlags).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun "+name, flag.ContinueOnError)
	fs.SetOutput(quiet{stderr})
	return fs
}

// quiet is a flag set's output while it parses: it discards what the flag
// package prints on an error, and keeps where the usage goes for -h.
type quiet struct{ help io.Writer }

func (quiet) Write(p []byte) (int, error) { return len(p), nil }

// parseFlags parses args, printing the usage for -h.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if q, ok := fs.Output().(quiet); ok {
			fs.SetOutput(q.help)
		}
		fs.Usage()
		return err
	case err != nil:
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// parse parses args and rejects stray positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, but was given %s", errUsage, fs.Name(), quoteAll(fs.Args()))
	}
	return nil
}

// quoteAll quotes each argument and joins them with spaces.
func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// writeJSON prints a document (package schema) as indented JSON.
func writeJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
