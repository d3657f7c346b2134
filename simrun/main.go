package simrun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
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

// usage is the usage of simrun's own subcommands; a program's tools add
// theirs (Tool.Usage) before the last line.
const usage = `simrun: deterministic simulation of leader election on S3

usage:
  simrun run    [-scenario NAME] [-seeds N | -seed S] [-start S] [-workers N] [-until-failure] [-expect VERDICT] [-fail-outside] [-coverage] [-guided [-out DIR]] [-json]
  simrun replay [-scenario NAME] -seed S [-o FILE] [-html FILE] [-json] [-bodies] [-expect VERDICT] [-fail-outside]
  simrun replay FILE [-html FILE] [-json] [-bodies] [-expect recorded|VERDICT] [-fail-outside]
  simrun html   [-scenario NAME] -seed S -o PAGE | FILE -o PAGE
  simrun shrink FILE [-o OUT] [-budget N]
  simrun explore [-scenario NAME] [-nodes N] [-duration D] [-faults F] [-delays K] [-depth N] [-por=false] [-executions N] [-path P] [-o FILE] [-html FILE] [-json]
  simrun zoo    [-seeds N] [-workers N] [-shrink N] [-masked | -swarm | -guided [-out DIR]] [-json]
  simrun bench  [-scenario NAME] [-seeds N] [-workers N] [-scale] [-json] [-cpuprofile FILE]
  simrun campaign -out DIR [-scenario NAME] [-seeds N] [-duration D] [-start S] [-workers N] [-shard I/N] [-keep K] [-check-determinism] [-fail-outside] [-junit FILE] [-json] [-coverage]
  simrun merge  -out FILE [-junit FILE] [-json] [-coverage] REPORT...
  simrun coverage [-scenario NAME] [-seeds N] [-start S] [-workers N] [-guided] [-json] [-doc FILE]
  simrun list
  simrun version
`

// usageEnd ends the usage text.
const usageEnd = `
The long commands (run, campaign, zoo, explore, coverage, bench, shrink)
report their progress on stderr: a line every few seconds (seeds done,
rate, failures so far, time left), a live line on a terminal; -quiet
silences it.

Run 'simrun help COMMAND' (or 'simrun COMMAND -h') for the flags of a command.
`

// ErrUsage marks errors of the command line that exit with status 2: bad
// flags, flag values or arguments. A Tool wraps it; the message is
// labelled "usage" and followed by where the command's flags are listed.
var ErrUsage = cmdline.ErrUsage

// ErrBadInput marks bad input that is no matter of the command line, which
// also exits with status 2: a file whose content is wrong, an output path
// that cannot take the file. Its message is printed as it is.
var ErrBadInput = cmdline.ErrBadInput

// errUsage is ErrUsage, by the name the subcommands use.
var errUsage = ErrUsage

// builtins are simrun's own subcommands.
var builtins = map[string]func(cli *program, args []string, stdout, stderr io.Writer) (int, error){
	"run":      (*program).cmdRun,
	"replay":   (*program).cmdReplay,
	"bench":    (*program).cmdBench,
	"explore":  (*program).cmdExplore,
	"shrink":   (*program).cmdShrink,
	"zoo":      (*program).cmdZoo,
	"list":     (*program).cmdList,
	"campaign": (*program).cmdCampaign,
	"merge":    (*program).cmdMerge,
	"coverage": (*program).cmdCoverage,
	"html":     (*program).cmdHTML,
	"version":  (*program).cmdVersion,
}

// Main is the simrun command: it runs the subcommand named by the
// process's arguments over what opts give it (scenarios, protocols,
// tools) and exits with its status. A user's own simrun is a main package
// of a few lines:
//
//	func main() {
//		simrun.Main(simrun.Command("go run ./cmd/mysimrun"), simrun.Protocol("mylock", mylock.Protocol()))
//	}
//
// and gets every subcommand (run, replay, shrink, explore, campaign, merge,
// bench, list, ...) for its protocols. The project's cmd/simrun passes
// every scenario of the project and its tools.
func Main(opts ...Option) {
	// simrun allocates many short-lived objects and keeps little: trading
	// memory for fewer collections is worth about a fifth of its CPU time.
	// GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, opts...))
}

// Run is Main without the process: it applies opts, runs the command args
// and returns its exit status.
func Run(args []string, stdout, stderr io.Writer, opts ...Option) int {
	cli, err := newProgram(opts)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		return exitUsage
	}
	return cli.run(args, stdout, stderr)
}

// usage is the program's usage text: simrun's subcommands and its tools'.
func (cli *program) usage() string {
	var b strings.Builder
	b.WriteString(usage)
	for _, t := range cli.tools {
		if t.Usage != "" {
			b.WriteString("  " + strings.TrimSpace(t.Usage) + "\n")
		}
	}
	b.WriteString(usageEnd)
	return b.String()
}

// run runs one command; it returns the exit status.
func (cli *program) run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cli.usage())
		return exitUsage
	}
	name, args := args[0], args[1:]
	cmdStderr := stderr // where the command prints, its usage included
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, cli.usage())
		return exitOK
	case "help":
		if len(args) == 0 {
			fmt.Fprint(stdout, cli.usage())
			return exitOK
		}
		// help COMMAND is COMMAND -h, on stdout.
		name, args, cmdStderr = args[0], []string{"-h"}, stdout
	case "-version", "--version":
		name = "version"
	}
	var code int
	var err error
	if cmd, ok := builtins[name]; ok {
		code, err = cmd(cli, args, stdout, cmdStderr)
	} else if t := cli.tool(name); t != nil {
		code, err = t.Run(Env{Stdout: stdout, Stderr: cmdStderr, Program: cli.invoke}, args)
	} else {
		err = fmt.Errorf("%w: unknown command %q%s", errUsage, name, cli.suggest(name))
		name = ""
	}
	switch {
	case err == nil:
		return code
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	}
	fmt.Fprintf(stderr, "simrun: %v\n", err)
	switch {
	case errors.Is(err, errUsage) && name == "":
		fmt.Fprintf(stderr, "run '%s' for the commands\n", cli.repro(harness.Repro{Verb: "help"}))
		return exitUsage
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "run '%s' for the flags of %s\n", cli.repro(harness.Repro{Verb: name, Flags: []string{"-h"}}), name)
		return exitUsage
	case errors.Is(err, ErrBadInput), errors.Is(err, harness.ErrBadPlan):
		return exitUsage
	}
	return exitCrashed
}

// suggest is "; did you mean X?" for the commands close to a mistyped
// name (harness.Suggest), or "".
func (cli *program) suggest(name string) string {
	names := []string{"help"}
	for n := range builtins {
		names = append(names, n)
	}
	for _, t := range cli.tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	close := harness.Suggest(name, names)
	if len(close) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(close, " or ") + "?"
}
