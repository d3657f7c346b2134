package cmdline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrUsage marks errors of the command line, which exit with status 2: a
// bad flag, flag value or argument. The message says "usage: ...", and the
// command points to its -h.
var ErrUsage = errors.New("usage")

// ErrBadInput marks bad input that is no matter of the command line, which
// also exits with status 2: a file whose content is wrong (a malformed
// reproducer or report, reports that do not merge, a directory holding
// another campaign), or an output path that cannot take the file. The
// message is the error's own, without a "usage" label.
var ErrBadInput = errors.New("bad input")

// BadInput marks err as bad input (ErrBadInput), its message unchanged.
func BadInput(err error) error { return badInput{err} }

type badInput struct{ err error }

func (e badInput) Error() string        { return e.err.Error() }
func (e badInput) Unwrap() error        { return e.err }
func (e badInput) Is(target error) bool { return target == ErrBadInput }

// quoteAll quotes each argument and joins them with spaces.
func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// NewFlags returns a flag set that reports errors instead of exiting. It
// prints nothing itself: a bad flag is reported once, by run, and the
// usage only when asked for (-h, by ParseFlags).
func NewFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun "+name, flag.ContinueOnError)
	fs.SetOutput(quiet{stderr})
	return fs
}

// NewFlagsUsage is NewFlags with a usage (-h) that prints text, then the
// flags and their defaults.
func NewFlagsUsage(name string, stderr io.Writer, text string) *flag.FlagSet {
	fs := NewFlags(name, stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), text)
		fs.PrintDefaults()
	}
	return fs
}

// quiet is a flag set's output while it parses: it discards what the flag
// package prints on an error, and keeps where the usage goes for -h.
type quiet struct{ help io.Writer }

func (quiet) Write(p []byte) (int, error) { return len(p), nil }

// ParseFlags parses args, printing the usage for -h.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		if q, ok := fs.Output().(quiet); ok {
			fs.SetOutput(q.help)
		}
		fs.Usage()
		return err
	case err != nil:
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}

// Parse parses args and rejects stray positional arguments.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, but was given %s", ErrUsage, fs.Name(), quoteAll(fs.Args()))
	}
	return nil
}

// CheckCounts is the usage check of -seeds and -workers that every command
// running a number of seeds shares.
func CheckCounts(seeds, workers int) error {
	switch {
	case seeds < 1:
		return fmt.Errorf("%w: -seeds must be at least 1, got %d", ErrUsage, seeds)
	case workers < 1:
		return fmt.Errorf("%w: -workers must be at least 1, got %d", ErrUsage, workers)
	}
	return nil
}

// CheckOutputDir checks that the directory of an output file exists, so
// that a campaign does not run for hours only to fail writing its JUnit.
// "" (no file) and "-" (standard output) need no directory.
func CheckOutputDir(file string) error {
	if file == "" || file == "-" {
		return nil
	}
	st, err := os.Stat(filepath.Dir(file))
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", filepath.Dir(file))
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", file)
	}
	return nil
}

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Signals listens for SIGINT and SIGTERM and keeps the first caught.
type Signals struct {
	ch     chan os.Signal
	cancel context.CancelFunc
	mu     sync.Mutex
	got    os.Signal
}

// StopOnSignal returns a context that SIGINT or SIGTERM cancels, and what
// caught the signal. After the first, the signals' default action comes
// back: a second kills at once.
func StopOnSignal() (context.Context, *Signals) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Signals{ch: make(chan os.Signal, 1), cancel: cancel}
	signal.Notify(c.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-c.ch:
			signal.Stop(c.ch)
			c.mu.Lock()
			c.got = s
			c.mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, c
}

// Caught returns the signal caught, or nil.
func (c *Signals) Caught() os.Signal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got
}

// Release stops listening for signals.
func (c *Signals) Release() {
	signal.Stop(c.ch)
	c.cancel()
}

// SignalStatus is the exit status shells give a process a signal ended:
// 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM).
func SignalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}

// ParseFiles parses args, flags and positional arguments in any order, and
// returns the positional arguments; after "--" every argument is
// positional.
func ParseFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := ParseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(files, rest...), nil
		}
		files, args = append(files, rest[0]), rest[1:]
	}
}

// IsSet reports whether the flag called name was given.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
