package simrun

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/s3lease/s3lease/internal/cmdline"
)

// Progress intervals: a live line on a terminal is redrawn twice a second;
// elsewhere (a CI log, a file) a line is printed every few seconds.
const (
	progressTTY  = 500 * time.Millisecond
	progressLine = 5 * time.Second
)

// runProgress counts the work of a long command as it finishes (seeds,
// runs, executions), for its progress report. A nil runProgress counts
// nothing.
type runProgress struct {
	label string // what runs: a scenario, "zoo", "shrink FILE"
	unit  string // what is counted: "seeds", "runs", "executions"
	total uint64 // 0: unknown
	start time.Time
	done  atomic.Uint64
	// failed counts what did not pass, unless uncounted (a shrink's runs
	// all fail, or should).
	failed    atomic.Uint64
	uncounted bool
	// parts are what the work is made of, if it is ("3 of 12 scenarios
	// done"): partsTotal of partUnit, parts of them done.
	parts      atomic.Uint64
	partsTotal uint64
	partUnit   string
}

// newProgress is the progress of total units (0: unknown) of label,
// starting now.
func newProgress(label, unit string, total uint64) *runProgress {
	return &runProgress{label: label, unit: unit, total: total, start: time.Now()}
}

// add counts one unit done.
func (p *runProgress) add(failed bool) {
	if p == nil {
		return
	}
	p.done.Add(1)
	if failed {
		p.failed.Add(1)
	}
}

// finishPart counts one part of the work done.
func (p *runProgress) finishPart() {
	if p != nil {
		p.parts.Add(1)
	}
}

// report is the progress so far.
func (p *runProgress) report() progressReport {
	r := progressReport{Label: p.label, Unit: p.unit, Done: p.done.Load(), Total: p.total, Failures: p.failed.Load(), Elapsed: time.Since(p.start)}
	r.Rate = float64(r.Done) / max(r.Elapsed.Seconds(), 1e-9)
	if r.Total > 0 && r.Done > 0 && r.Done < r.Total {
		r.ETA, r.HasETA = time.Duration(float64(r.Total-r.Done)/r.Rate*float64(time.Second)), true
	}
	if p.partsTotal > 0 {
		r.Extra = fmt.Sprintf("%d of %d %s done", p.parts.Load(), p.partsTotal, p.partUnit)
	}
	r.NoFailures = p.uncounted
	return r
}

// progressReport is one progress report of a long command: every command
// reports alike (a run's seeds, a campaign's, a zoo's, an exploration's
// executions, a shrink's runs).
type progressReport struct {
	Label, Unit           string
	Done, Total, Failures uint64 // Total 0: unknown
	Rate                  float64
	Elapsed, ETA          time.Duration
	HasETA                bool
	// NoFailures: failures are not counted (a shrink's runs).
	NoFailures bool
	Extra      string
}

// String is the report as one line: "swarm: 1200/10000 seeds, 410
// seeds/s, 0 failures, elapsed 3s, eta 21s".
func (r progressReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d", r.Label, r.Done)
	if r.Total > 0 {
		fmt.Fprintf(&b, "/%d", r.Total)
	}
	fmt.Fprintf(&b, " %s, %.0f %s/s", r.Unit, r.Rate, r.Unit)
	if !r.NoFailures {
		fmt.Fprintf(&b, ", %d failures", r.Failures)
	}
	if r.Extra != "" {
		b.WriteString(", " + r.Extra)
	}
	fmt.Fprintf(&b, ", elapsed %v", r.Elapsed.Round(time.Second))
	if r.HasETA {
		fmt.Fprintf(&b, ", eta %v", r.ETA.Round(time.Second))
	}
	return b.String()
}

// realTicker returns the ticks of the progress report and how to stop them:
// every progressTTY on a terminal, every progressLine elsewhere.
func realTicker(tty bool) (<-chan time.Time, func()) {
	every := progressLine
	if tty {
		every = progressTTY
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// showProgress reports a long command's progress on w (its stderr) until
// the returned function is called: on a terminal, one line redrawn in
// place at each tick and ended at the stop; elsewhere, a line at each
// tick. quiet (-quiet) shows nothing.
func (cli *program) showProgress(w io.Writer, quiet bool, report func() progressReport) (stop func()) {
	if quiet {
		return func() {}
	}
	return cli.printProgress(w, cmdline.IsTerminal(w), report)
}

// printProgress is showProgress on w, a terminal if tty.
func (cli *program) printProgress(w io.Writer, tty bool, report func() progressReport) (stop func()) {
	ticks, stopTicks := cli.ticker(tty)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer stopTicks()
		width := 0
		draw := func() {
			line := report().String()
			if tty {
				fmt.Fprintf(w, "\r%-*s", width, line)
				width = max(width, len(line))
			} else {
				fmt.Fprintln(w, line)
			}
		}
		for {
			select {
			case <-quit:
				select {
				case <-ticks: // a tick already due is drawn
					draw()
				default:
				}
				if tty && width > 0 {
					draw()
					fmt.Fprintln(w)
				}
				return
			case <-ticks:
				draw()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// quietFlag registers -quiet.
func quietFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("quiet", false, "print no progress report on stderr (by default: a line every few seconds, or a live line on a terminal)")
}
