package simrun

import (
	"errors"
	"fmt"
	"io"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
)

// writeOutput writes data to the file that flag names: standard output
// for "-", else path by harness.WriteFileAtomic (atomically over a regular
// file; through a link, into a device or pipe, never over a directory).
// A path that cannot take the file (a missing directory, a directory, no
// permission: harness.ErrBadPath) is bad input, exit status 2; any other
// failure (a full disk) is the command's own, exit status 4. Either error
// is labelled with the flag.
func writeOutput(stdout io.Writer, flag, path string, data []byte) error {
	if path == "-" {
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("%s: writing standard output: %w", flag, err)
		}
		return nil
	}
	err := harness.WriteFileAtomic(path, data)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, harness.ErrBadPath):
		return cmdline.BadInput(fmt.Errorf("%s: %w", flag, err))
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// checkOutput checks, before a long run, that the file flag names can be
// written where it is: its directory exists and it is no directory.
func checkOutput(flag, path string) error {
	if err := cmdline.CheckOutputDir(path); err != nil {
		return cmdline.BadInput(fmt.Errorf("%s: %w", flag, err))
	}
	return nil
}

// textOutput is where a command prints its text (a summary, a trace):
// stdout, or stderr when one of its files goes to standard output (a flag
// given "-"), so that standard output carries that file alone. flags are
// pairs of a flag's name and the path it was given. Two files on standard
// output, or one with -json (asJSON), are a usage error.
func textOutput(stdout, stderr io.Writer, asJSON bool, flags ...string) (io.Writer, error) {
	var dash []string
	for i := 0; i+1 < len(flags); i += 2 {
		if flags[i+1] == "-" {
			dash = append(dash, flags[i])
		}
	}
	switch {
	case len(dash) == 0:
		return stdout, nil
	case len(dash) > 1:
		return nil, fmt.Errorf("%w: %s and %s both write to standard output (\"-\"); give one a file", errUsage, dash[0], dash[1])
	case asJSON:
		return nil, fmt.Errorf("%w: -json and %s - both write to standard output; give %s a file", errUsage, dash[0], dash[0])
	}
	return stderr, nil
}

// outputName is how a message names the file a flag was given.
func outputName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

// badInput is a bad-input error (cmdline.BadInput), formatted as by
// fmt.Errorf.
func badInput(format string, args ...any) error { return cmdline.BadInput(fmt.Errorf(format, args...)) }
