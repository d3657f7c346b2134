package simrun

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/s3lease/s3lease/harness"
)

// Option says what a program built on Main knows: its scenarios and
// protocols, the subcommands it adds, and how the commands it prints invoke
// it. Options are values: a program knows exactly what it was given.
type Option func(*program) error

// program is what Main runs: the options applied.
type program struct {
	catalog harness.Catalog
	// def is what run, replay, bench and campaign run without -scenario:
	// the first protocol given, else "swarm" if the program knows it.
	def string
	// invoke is how printed commands invoke the program
	// (harness.Repro.Program): the Command option's, or how a built
	// binary was run (invokedAs).
	invoke string
	tools  []Tool
	// ticker gives the ticks of progress reports (realTicker; tests give
	// their own).
	ticker func(tty bool) (<-chan time.Time, func())
}

// Scenarios adds scenarios: the stories of package scenarios
// (scenarios.All()), the zoo's (zoo.All()), a design's, or a user's own.
// Names must be unique within a program.
func Scenarios(scs ...harness.Scenario) Option {
	return func(cli *program) error {
		for _, sc := range scs {
			if err := cli.catalog.Add(sc); err != nil {
				return err
			}
		}
		return nil
	}
}

// Protocol adds protocol p under name, as the swarm scenario of that name
// (harness.Swarm): `simrun run -scenario NAME` runs it on random fault
// plans, and reproducer files written by harness.Check for a protocol of
// that name replay with `simrun replay FILE`. The first protocol given
// becomes the default scenario.
func Protocol(name string, p harness.Protocol) Option {
	return func(cli *program) error {
		p.Name = name
		if err := p.Validate(); err != nil {
			return err
		}
		if err := cli.catalog.Add(harness.Swarm(name, p)); err != nil {
			return fmt.Errorf("protocol %q: %w", name, err)
		}
		if cli.def == "" {
			cli.def = name
		}
		return nil
	}
}

// Command says how the commands the program prints (replay, shrink)
// invoke it: a user's own main passes how it is run, for example
// simrun.Command("go run ./cmd/mysimrun"), so that a printed command runs
// the program that knows the user's protocols. Without it, a built binary's
// printed commands invoke it as the user did (its name if the PATH finds
// it, else the path typed), and a program that go run built invokes
// harness.DefaultCommand.
func Command(prefix string) Option {
	return func(cli *program) error {
		if prefix == "" {
			return errors.New("simrun.Command: empty prefix")
		}
		cli.invoke = prefix
		return nil
	}
}

// Tool is a subcommand beyond simrun's own, linked only into the programs
// that pass it with Tools: the project's cmd/simrun adds live mode, the
// mutation tool and vet this way, so that a user's program links none of
// their dependencies.
type Tool struct {
	// Name is the subcommand's name; Usage its line in simrun's usage.
	Name, Usage string
	// Run runs the subcommand with its arguments and returns its exit
	// status; an error wrapping ErrUsage exits 2 with the message, any
	// other 4.
	Run func(env Env, args []string) (int, error)
}

// Env is what a Tool is run with: where it writes, and how the commands it
// prints invoke the program (harness.Repro.Program).
type Env struct {
	Stdout, Stderr io.Writer
	Program        string
}

// Tools adds subcommands.
func Tools(tools ...Tool) Option {
	return func(cli *program) error {
		for _, t := range tools {
			if t.Name == "" || t.Run == nil {
				return fmt.Errorf("simrun.Tools: a tool needs a name and a Run function (got %q)", t.Name)
			}
			if _, builtin := builtins[t.Name]; builtin || cli.tool(t.Name) != nil {
				return fmt.Errorf("simrun.Tools: two subcommands are called %q", t.Name)
			}
			cli.tools = append(cli.tools, t)
		}
		return nil
	}
}

// tool returns the tool called name, or nil.
func (cli *program) tool(name string) *Tool {
	for i := range cli.tools {
		if cli.tools[i].Name == name {
			return &cli.tools[i]
		}
	}
	return nil
}

// newProgram applies the options.
func newProgram(opts []Option) (*program, error) {
	cli := &program{ticker: realTicker}
	for _, o := range opts {
		if err := o(cli); err != nil {
			return nil, err
		}
	}
	if cli.invoke == "" {
		cli.invoke = runningAs()
	}
	if cli.def == "" {
		cli.def = "swarm"
		if _, err := cli.catalog.Lookup("swarm"); err != nil {
			if names := cli.catalog.Scenarios(); len(names) > 0 {
				cli.def = names[0].Name
			}
		}
	}
	return cli, nil
}

// repro is a command that reruns a run, invoking this program.
func (cli *program) repro(r harness.Repro) string {
	r.Program = cli.invoke
	return r.Command()
}
