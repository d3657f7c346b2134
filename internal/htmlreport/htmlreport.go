package htmlreport

import (
	"errors"
	"io"

	"github.com/s3lease/s3lease/harness"
)

// Options adjust a page.
type Options struct {
	// Replay is the command that reproduces the run, shown in the header.
	// Empty: harness.Repro{Scenario: NAME, Seed: SEED}.Command(), which
	// reproduces a run of a scenario's own plan (not one read from a
	// reproducer file, which has a plan of its own).
	Replay string
	// Scenario, if set, is the scenario the run is of: the page tells its
	// story and judges the run against its expectation.
	Scenario *harness.Scenario
}

// Write renders one run as a self-contained HTML page (no external
// resources: inline CSS and SVG; porcupine's own script inside iframes).
// title heads the page; empty, it is made from the scenario, seed and
// verdict. The outcome should have kept its trace (harness.RunSeed with
// keepTrace): without it the timeline shows terms, fenced writes and S3
// requests from the history alone, and the page has no readable trace.
func Write(w io.Writer, title string, o *harness.Outcome) error {
	return WriteOptions(w, title, o, Options{})
}

// WriteOptions is Write with options.
func WriteOptions(w io.Writer, title string, o *harness.Outcome, opt Options) error {
	if o == nil || o.Result == nil {
		return errors.New("htmlreport: no run to render")
	}
	p, err := newPage(title, o, opt)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}
