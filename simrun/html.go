package simrun

import (
	"fmt"
	"io"

	"github.com/s3lease/s3lease/internal/cmdline"
)

const htmlUsage = `usage:
  simrun html [-scenario NAME] -seed S -o PAGE
  simrun html FILE -o PAGE

Writes one run as a self-contained HTML page (what 'simrun replay -html'
writes, without printing the trace): a seed of a scenario, or a reproducer
file. Exit status: the run's verdict's (0 pass, 1 unsafe, 3 liveness, 4
crashed, 5 inconclusive, 6 blocked), 2 usage or a bad file.

flags:
`

// cmdHTML writes the page of one run.
func (cli *program) cmdHTML(args []string, stdout, stderr io.Writer) (int, error) {
	fs := cmdline.NewFlagsUsage("html", stderr, htmlUsage)
	scenario := cli.scenarioFlag(fs)
	seed := fs.Uint64("seed", 0, "the seed to draw")
	out := fs.String("o", "", "write the page to `PAGE` (atomically; - for standard output); required")
	s3 := s3Flag(fs)
	files, err := cmdline.ParseFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if *out == "" {
		return 0, fmt.Errorf("%w: html needs -o PAGE, the file to write", errUsage)
	}
	text, err := textOutput(stdout, stderr, false, "-o", *out)
	if err != nil {
		return 0, err
	}
	path3 := *s3
	o, _, path, err := cli.runNamed(fs, "html", files, *scenario, *seed, path3, false)
	if err != nil {
		return 0, err
	}
	data, err := cli.replayPage(o, path)
	if err != nil {
		return 0, err
	}
	if err := writeOutput(stdout, "-o", *out, data); err != nil {
		return 0, err
	}
	fmt.Fprintf(text, "wrote the page of %s seed %d (%s) to %s\n", o.Scenario, o.Seed, o.Verdict, outputName(*out))
	return o.Verdict.ExitCode(), nil
}
