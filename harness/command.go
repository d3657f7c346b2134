package harness

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultCommand is how the commands the harness prints invoke simrun when
// nothing else is said: from the root of this repository, with nothing
// installed.
const DefaultCommand = "go run ./cmd/simrun"

// Repro is a command that reruns one run, as the harness prints it after a
// failure, in a report or on a page: a simrun subcommand (replay by
// default) over a scenario and seed or a reproducer file, or the go test
// command that replays a reproducer in the test that wrote it. Every
// command the project prints is a Repro, so every one is quoted alike and
// runs when pasted into a POSIX shell.
type Repro struct {
	// Program is how simrun is invoked: DefaultCommand when empty; for a
	// user's own main, how to run it ("go run ./cmd/mysimrun"), since only
	// that program knows the user's protocols. A "go run" program gets
	// the build tags the running program was built with.
	Program string
	// Verb is the subcommand: "replay" when empty.
	Verb string
	// File, if set, is the reproducer file the command reads; otherwise
	// Scenario and Seed, if Scenario is set, name the run.
	File     string
	Scenario string
	Seed     uint64
	// Flags are further arguments, each quoted as needed: "-s3", "sdk".
	Flags []string
	// Test, if set, makes the command `go test` of that test (its full
	// name, subtests after slashes) in Package (a directory relative to
	// the module's root; "." when empty), replaying File through the
	// harness's -harness.replay flag.
	Test, Package string
}

// Command is the command line, quoted for a POSIX shell.
func (r Repro) Command() string {
	var args []string
	if r.Test != "" {
		parts := strings.Split(r.Test, "/")
		for i, s := range parts {
			parts[i] = "^" + regexp.QuoteMeta(s) + "$"
		}
		pkg := r.Package
		if pkg == "" {
			pkg = "."
		}
		args = append([]string{"go", "test"}, tagArgs()...)
		args = append(args, "-run", strings.Join(parts, "/"), pkg, "-harness.replay="+r.File, "-v")
		return joinQuoted(args)
	}
	prog := r.Program
	if prog == "" {
		prog = DefaultCommand
	}
	if rest, ok := strings.CutPrefix(prog, "go run "); ok {
		if tags := tagArgs(); tags != nil {
			prog = "go run " + joinQuoted(tags) + " " + rest
		}
	}
	verb := r.Verb
	if verb == "" {
		verb = "replay"
	}
	args = []string{verb}
	switch {
	case r.File != "":
		args = append(args, r.File)
	case r.Scenario != "":
		args = append(args, "-scenario", r.Scenario, "-seed", strconv.FormatUint(r.Seed, 10))
	}
	args = append(args, r.Flags...)
	return prog + " " + joinQuoted(args)
}

// String is the command line.
func (r Repro) String() string { return r.Command() }

// Quote quotes s as one word for a POSIX shell, if it needs it: the one
// quoter of every command the project prints.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\;&|<>()*?[]#~!{}^") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// joinQuoted quotes each argument and joins them with spaces.
func joinQuoted(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// tagArgs is "-tags T" for the build tags the running program was built
// with, so that a printed command builds the same code; nil for none.
func tagArgs() []string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	for _, s := range info.Settings {
		if s.Key == "-tags" && s.Value != "" {
			return []string{"-tags", s.Value}
		}
	}
	return nil
}

// packageDir is the test's package directory relative to its module's root,
// as go test names it ("." for the root): the working directory of a test
// is its package's directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
