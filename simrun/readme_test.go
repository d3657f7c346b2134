package simrun

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite the README's sample outputs from their commands")

// The README's fenced blocks are each checked by a test, and say how on
// the line just before the block:
//
//	<!-- sample: ARGS -->            the block is what 'simrun ARGS' prints
//	<!-- sample: ARGS; file NAME --> the block is the file NAME it writes
//	<!-- sample: ARGS; excerpt -->   the block's lines appear, in order, in what it prints
//	<!-- code: FILE... -->           the block's lines appear, in order, in the files
//	<!-- commands -->                every command of the block names what exists
//	<!-- unchecked: REASON -->       nothing is checked, for the reason given
//
// A sample's ARGS may be several commands joined by " && ", run in order;
// the sample is the last one's. The samples run in the README's order in
// one directory, so a sample may use the files an earlier one wrote. A
// code block is a copy of code that is compiled (an example, a test, a
// main); its lines are compared without their indentation, and the block
// may leave lines out. A commands block's commands are checked as
// TestREADMECommands says.
type readmeBlock struct {
	kind string // "sample", "code", "commands" or "unchecked"
	arg  string // what follows the kind in the marker
	// first and last are the block's content lines in the README: lines
	// [first, last), 0-based.
	first, last int
}

var blockMarker = regexp.MustCompile(`^<!-- (sample|code|commands|unchecked)(?::\s*(.*?))? -->$`)

// readmeBlocks returns the README's fenced blocks with their markers, and
// fails the test on a block without one.
func readmeBlocks(t *testing.T, lines []string) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := readmeBlock{first: i + 1}
		for b.last = b.first; b.last < len(lines) && lines[b.last] != "```"; b.last++ {
		}
		if b.last == len(lines) {
			t.Fatalf("README line %d: the block is not closed", i+1)
		}
		var m []string
		if i > 0 {
			m = blockMarker.FindStringSubmatch(lines[i-1])
		}
		switch {
		case m == nil:
			t.Errorf("README line %d: a fenced block needs a marker on the line before it (sample, code, commands, or unchecked with a reason)", i+1)
		case m[1] == "unchecked" && strings.TrimSpace(m[2]) == "":
			t.Errorf("README line %d: an unchecked block needs a reason", i)
		default:
			b.kind, b.arg = m[1], m[2]
			blocks = append(blocks, b)
		}
		i = b.last
	}
	return blocks
}

// readREADME returns the README's path and lines.
func readREADME(t *testing.T) (string, []string) {
	t.Helper()
	path, err := filepath.Abs("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, strings.Split(string(data), "\n")
}

// readmeSample is one sample output: its commands, and what the block is.
type readmeSample struct {
	args    [][]string
	file    string
	excerpt bool
	readmeBlock
}

// readmeSamples returns the sample blocks of the README's lines.
func readmeSamples(t *testing.T, lines []string) []readmeSample {
	var samples []readmeSample
	for _, b := range readmeBlocks(t, lines) {
		if b.kind != "sample" {
			continue
		}
		s := readmeSample{readmeBlock: b}
		parts := strings.Split(b.arg, ";")
		for _, c := range strings.Split(parts[0], " && ") {
			s.args = append(s.args, strings.Fields(c))
		}
		for _, p := range parts[1:] {
			switch p = strings.TrimSpace(p); {
			case p == "excerpt":
				s.excerpt = true
			case strings.HasPrefix(p, "file "):
				s.file = strings.TrimPrefix(p, "file ")
			default:
				t.Fatalf("README line %d: unknown sample option %q", b.first-1, p)
			}
		}
		samples = append(samples, s)
	}
	return samples
}

// volatile are the parts of an output that depend on the machine, not on
// the seed: wall times and rates.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9]+(\.[0-9]+)? seeds/s`), "N seeds/s"},
	{regexp.MustCompile(`wall [0-9]+(\.[0-9]+)?s`), "wall Ts"},
	{regexp.MustCompile(`\bin [0-9]+(\.[0-9]+)?s\b`), "in Ts"},
}

func normalize(s string) []string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// TestREADMESamples runs the command of every sample output in the README
// and checks that it prints (or writes) what the README shows, but for
// wall times and rates. -update-readme rewrites the samples that are not
// excerpts.
func TestREADMESamples(t *testing.T) {
	path, lines := readREADME(t)
	samples := readmeSamples(t, lines)
	if len(samples) < 3 {
		t.Fatalf("the README has %d sample outputs; want the main job's, a trace and explore's", len(samples))
	}
	t.Chdir(t.TempDir()) // the commands write their files here
	outputs := make([]string, len(samples))
	for i, s := range samples {
		for _, args := range s.args {
			var out, errOut bytes.Buffer
			if code := run(args, &out, &errOut); code == exitUsage {
				t.Fatalf("README sample 'simrun %s': usage error: %s", strings.Join(args, " "), errOut.String())
			}
			outputs[i] = out.String()
		}
		if s.file != "" {
			b, err := os.ReadFile(s.file)
			if err != nil {
				t.Fatalf("README sample %q: %v", s.file, err)
			}
			outputs[i] = string(b)
		}
	}
	for i := len(samples) - 1; i >= 0; i-- { // from the end, so that rewriting keeps earlier line numbers
		s, got := samples[i], outputs[i]
		if *updateREADME && !s.excerpt {
			lines = append(lines[:s.first], append(strings.Split(strings.TrimRight(got, "\n"), "\n"), lines[s.last:]...)...)
			continue
		}
		if err := matchSample(normalize(got), normalize(strings.Join(lines[s.first:s.last], "\n")), s.excerpt); err != nil {
			t.Errorf("README line %d: the sample no longer shows what its command prints (go test ./simrun -run TestREADMESamples -update-readme rewrites it): %v\n--- it prints:\n%s",
				s.first, err, got)
		}
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// matchSample checks that got is want, or with excerpt that want's lines
// appear in got in order.
func matchSample(got, want []string, excerpt bool) error {
	if !excerpt {
		for i := range max(len(got), len(want)) {
			g, w := "", ""
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				return fmt.Errorf("line %d: README %q, command %q", i+1, w, g)
			}
		}
		return nil
	}
	j := 0
	for _, g := range got {
		if j < len(want) && g == want[j] {
			j++
		}
	}
	if j < len(want) {
		return fmt.Errorf("README line %q is not in the output (in this order)", want[j])
	}
	return nil
}

// TestREADMECode checks that every code block of the README is a copy of
// code that is compiled: its lines, without indentation and but for blank
// ones, appear in order in the files its marker names.
func TestREADMECode(t *testing.T) {
	_, lines := readREADME(t)
	n := 0
	for _, b := range readmeBlocks(t, lines) {
		if b.kind != "code" {
			continue
		}
		n++
		var source []string
		for _, name := range strings.Fields(b.arg) {
			data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
			if err != nil {
				t.Fatalf("README line %d: %v", b.first, err)
			}
			source = append(source, strings.Split(string(data), "\n")...)
		}
		if err := matchCode(source, lines[b.first:b.last]); err != nil {
			t.Errorf("README line %d: the code is not a copy of %s: %v", b.first, b.arg, err)
		}
	}
	if n == 0 {
		t.Fatal("the README has no code block to check")
	}
}

// matchCode checks that the non-blank lines of block appear, trimmed, in
// order among the lines of source.
func matchCode(source, block []string) error {
	j := 0
	for _, want := range block {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		for j < len(source) && strings.TrimSpace(source[j]) != want {
			j++
		}
		if j == len(source) {
			return fmt.Errorf("line %q is not there (in this order)", want)
		}
		j++
	}
	return nil
}

// TestREADMECommands checks every command of the README's commands
// blocks against what exists, without running it: a `go run` of simrun
// names a subcommand the project's simrun has, and only flags that
// subcommand defines (asked of the built command, tools included); a
// `go test` names packages that exist and, in -run and -fuzz, tests that
// exist there; `cd` and `go build` name directories that exist. A command
// of another kind fails the test, so that none goes unchecked. (The main
// job's command also runs, as TestREADMESamples' first sample.)
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/simrun")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	_, lines := readREADME(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "simrun")
	build := exec.CommandContext(ctx, gobin, "build", "-o", bin, "./cmd/simrun")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/simrun: %v\n%s", err, out)
	}
	flagsOf := map[string][]string{} // subcommand -> its flags
	subFlags := func(sub string) ([]string, error) {
		if fs, ok := flagsOf[sub]; ok {
			return fs, nil
		}
		out, err := exec.CommandContext(ctx, bin, sub, "-h").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("simrun has no subcommand %q: %v\n%s", sub, err, out)
		}
		var fs []string
		for _, m := range usageFlag.FindAllStringSubmatch(string(out), -1) {
			fs = append(fs, m[1])
		}
		flagsOf[sub] = fs
		return fs, nil
	}
	n := 0
	for _, b := range readmeBlocks(t, lines) {
		if b.kind != "commands" {
			continue
		}
		dir := root
		for i, cmd := range shellCommands(lines[b.first:b.last]) {
			n++
			if err := checkCommand(&dir, cmd, subFlags); err != nil {
				t.Errorf("README block at line %d, command %d (%s): %v", b.first, i+1, strings.Join(cmd, " "), err)
			}
		}
	}
	if n == 0 {
		t.Fatal("the README has no command to check")
	}
}

// usageFlag is a flag in the usage a flag.FlagSet prints.
var usageFlag = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9.-]*)`)

// envAssignment is a word that sets an environment variable for the
// command after it.
var envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// checkCommand checks one command, run in *dir; a cd changes *dir.
func checkCommand(dir *string, cmd []string, subFlags func(string) ([]string, error)) error {
	for len(cmd) > 0 && envAssignment.MatchString(cmd[0]) {
		cmd = cmd[1:] // an environment variable set for the command
	}
	exists := func(p string) error {
		if _, err := os.Stat(filepath.Join(*dir, filepath.FromSlash(strings.TrimSuffix(p, "/...")))); err != nil {
			return err
		}
		return nil
	}
	switch {
	case len(cmd) == 2 && cmd[0] == "cd":
		if err := exists(cmd[1]); err != nil {
			return err
		}
		*dir = filepath.Join(*dir, cmd[1])
		return nil
	case len(cmd) >= 4 && cmd[0] == "go" && cmd[1] == "run":
		if err := exists(cmd[2]); err != nil {
			return err
		}
		if name := filepath.Base(cmd[2]); name != "simrun" && name != "mysimrun" {
			return fmt.Errorf("a go run of %s, which this test does not know", cmd[2])
		}
		// mysimrun is simrun.Main too: its subcommands are simrun's.
		defined, err := subFlags(cmd[3])
		if err != nil {
			return err
		}
		for _, a := range cmd[4:] {
			if name, ok := flagName(a); ok && !slices.Contains(defined, name) {
				return fmt.Errorf("simrun %s has no flag -%s", cmd[3], name)
			}
		}
		return nil
	case len(cmd) >= 3 && cmd[0] == "go" && cmd[1] == "test":
		return checkGoTest(*dir, cmd[2:], exists)
	case len(cmd) >= 3 && cmd[0] == "go" && cmd[1] == "build":
		return exists(cmd[len(cmd)-1])
	}
	return fmt.Errorf("a command this test does not know how to check")
}

// checkGoTest checks a go test command's arguments: its packages exist,
// and the tests -run and -fuzz name as ^Name$ exist in them.
func checkGoTest(dir string, args []string, exists func(string) error) error {
	var pkgs, names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-run" || a == "-fuzz":
			if i+1 < len(args) {
				i++
				if n := strings.TrimSuffix(strings.TrimPrefix(args[i], "^"), "$"); n != "" {
					names = append(names, n)
				}
			}
		case strings.HasPrefix(a, "./") || a == ".":
			if err := exists(a); err != nil {
				return err
			}
			pkgs = append(pkgs, strings.TrimSuffix(a, "/..."))
		}
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no package")
	}
	for _, n := range names {
		found := false
		for _, p := range pkgs {
			files, _ := filepath.Glob(filepath.Join(dir, p, "*_test.go"))
			for _, f := range files {
				if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("\nfunc "+n+"(")) {
					found = true
				}
			}
		}
		if !found {
			return fmt.Errorf("no test %s in %s", n, strings.Join(pkgs, " "))
		}
	}
	return nil
}

// flagName returns the name of a command-line flag argument.
func flagName(arg string) (string, bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name, true
}

// shellCommands splits the lines of a shell block into commands, each a
// list of words as the shell reads them: comments dropped, lines joined
// where they end in a backslash, quotes removed.
func shellCommands(lines []string) [][]string {
	var cmds [][]string
	var cur []string
	for _, l := range lines {
		words, more := shellWords(l)
		cur = append(cur, words...)
		if !more && len(cur) > 0 {
			cmds = append(cmds, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// shellWords splits one line into words; more reports a line that ends in
// a backslash, continued on the next.
func shellWords(line string) (words []string, more bool) {
	var w strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i == len(line)-1:
			more = true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			i = len(line) // a comment, to the end of the line
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, more
}

// maxREADMELines is how long the README may grow: a manual, not a
// notebook (measurements go in docs/measuring.md's commands, not in
// figures kept in the repository).
const maxREADMELines = 250

// TestREADMEIsAManual: the README stays within maxREADMELines lines.
func TestREADMEIsAManual(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to docs/", n, maxREADMELines)
	}
}
