package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
)

// Options adjust a page.
type Options struct {
	// Replay is the command that reproduces the run, shown in the header.
	// Empty: harness.ReplayCommand(NAME, SEED), which
	// reproduces a run of a scenario's own plan (not one read from a
	// reproducer file, which has a plan of its own).
	Replay string
}

// Write renders one run as a self-contained HTML page (no external
// resources: inline CSS and SVG; porcupine's own script inside an iframe).
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

// zoomHalf is half the width of the zoomed strip around the first
// violation; runs shorter than zoomMin get none (the whole run is as
// detailed).
const (
	zoomHalf = 5 * time.Second
	zoomMin  = 15 * time.Second
	// maxListed violations are listed in the header; the rest are folded.
	maxListed = 12
)

type page struct {
	Title, Scenario, Verdict, VerdictClass string
	Seed                                   uint64
	Headline                               string
	Story, Expect                          string
	Violations, MoreViolations, Expected   []violationItem
	Outside                                []string
	Failure                                string
	Signature, Replay                      string
	Facts                                  []fact
	Timeline                               template.HTML
	TimelineCaption                        string
	Zoom                                   template.HTML
	ZoomCaption                            string
	Terms                                  []termRow
	S3Doc, S3Caption, S3Error              string
	S3Height                               int
	Plan                                   string
	Trace                                  string
	HasTrace                               bool
}

type violationItem struct {
	ID, Label, At, Checker, Message string
}

type fact struct{ K, V string }

type termRow struct {
	Node, Identity, Token, Start, End, Length string
	Color                                     string
	Overlapped                                bool
}

func newPage(title string, o *harness.Outcome, opt Options) (*page, error) {
	res := o.Result
	h := res.History
	sig := harness.SignatureOf(o)
	p := &page{
		Title: title, Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict.String(),
		VerdictClass: o.Verdict.String(), Signature: sig.String(), Replay: opt.Replay, Outside: o.Outside,
	}
	if sc, err := harness.Lookup(o.Scenario); err == nil {
		p.Story, p.Expect = sc.Doc, string(sc.Expect)
	}
	if p.Title == "" {
		p.Title = fmt.Sprintf("%s seed %d: %s", o.Scenario, o.Seed, o.Verdict)
	}
	if p.Replay == "" {
		p.Replay = harness.ReplayCommand(o.Scenario, o.Seed)
	}
	items := func(vs []linearizability.Violation, id func(int) string, prefix string) []violationItem {
		out := make([]violationItem, len(vs))
		for i, v := range vs {
			out[i] = violationItem{ID: "tl-" + id(i), Label: fmt.Sprintf("%s%d", prefix, i+1), At: v.At.String(),
				Checker: checkerName(v), Message: v.Message}
		}
		return out
	}
	all := items(o.Violations, violationID, "V")
	if len(all) > maxListed {
		p.Violations, p.MoreViolations = all[:maxListed], all[maxListed:]
	} else {
		p.Violations = all
	}
	p.Expected = items(excusedViolations(o), expectedID, "E")
	for i, x := range o.Excused {
		p.Expected[i].Message += " (excused: " + x.Why() + ")"
	}
	if res.Failure != nil {
		p.Failure = res.Failure.Error()
	}
	switch {
	case res.Failure != nil:
		p.Headline = "The run could not finish: " + p.Failure
	case o.Verdict == harness.Unsafe:
		p.Headline = fmt.Sprintf("Safety broke: %d violation(s); the red lines on the timeline mark when.", len(o.Violations))
	case o.Verdict == harness.Liveness:
		p.Headline = "No stable leader once the faults healed."
	case o.Verdict == harness.Inconclusive:
		p.Headline = "Every property that could be judged held, but the S3 history's check timed out."
	case len(o.Outside) > 0:
		p.Headline = "Every property held that the protocol promises outside its assumptions: the fence kept stale writes out."
	default:
		p.Headline = "Every property held."
	}

	m := buildModel(o)
	p.Timeline = renderSVG(m, "tl-", 0, max(m.end, time.Millisecond), fullWidth(m.end), "leadership timeline of the whole run")
	p.TimelineCaption = fmt.Sprintf("The whole run, 0 to %s of true time; one lane per node.", secs(m.end))
	var focus *vline
	for i := range m.lines {
		if m.lines[i].class != "expected" {
			focus = &m.lines[i]
			break
		}
	}
	if focus != nil && m.end >= zoomMin {
		from := min(max(focus.at-zoomHalf, 0), m.end-2*zoomHalf)
		p.Zoom = renderSVG(m, "zoom-", from, from+2*zoomHalf, plotWidth, "the ten seconds around the first violation")
		p.ZoomCaption = fmt.Sprintf("Zoom: %s to %s, around %s at %s.", secs(from), secs(from+2*zoomHalf), focus.label, secs(focus.at))
	}

	// Facts.
	accepted, refused := 0, 0
	for _, w := range h.Writes {
		if w.Accepted {
			accepted++
		} else {
			refused++
		}
	}
	p.Facts = []fact{
		{"nodes", fmt.Sprint(h.Nodes)},
		{"run", secs(h.End)},
	}
	if o.Plan != nil {
		p.Facts = append(p.Facts, fact{"faults heal at", secs(o.Plan.HealAt.D())})
	}
	p.Facts = append(p.Facts,
		fact{"leadership terms", fmt.Sprint(len(h.Terms))},
		fact{"overlaps of leaders", fmt.Sprint(len(o.Overlaps))},
		fact{"S3 requests", fmt.Sprint(len(h.S3))},
		fact{"fenced writes", fmt.Sprintf("%d accepted, %d refused", accepted, refused)},
	)
	if o.S3.Result != "" {
		p.Facts = append(p.Facts, fact{"S3 history", fmt.Sprintf("%s (%d requests checked in %v)", o.S3.Result, o.S3.Ops, o.S3.Duration.Round(time.Millisecond))})
	}
	p.Facts = append(p.Facts, fact{"steps", fmt.Sprint(res.Steps)}, fact{"trace hash", fmt.Sprintf("%016x", res.Hash())})

	// Terms.
	overlapped := make(map[[2]uint64]bool) // node, token
	for _, ov := range o.Overlaps {
		for i := range 2 {
			overlapped[[2]uint64{uint64(ov.Nodes[i]), ov.Tokens[i]}] = true
		}
	}
	for _, t := range h.Terms {
		end, length := secs(t.End), secs(t.End-t.Start)
		if t.Open {
			end, length = "(still leading at the end)", secs(h.End-t.Start)+"+"
		}
		p.Terms = append(p.Terms, termRow{Node: fmt.Sprintf("n%d", t.Node), Identity: fmt.Sprintf("%s (incarnation %d)", t.Identity, t.Incarnation),
			Token: fmt.Sprint(t.Token), Start: secs(t.Start), End: end, Length: length, Color: tokenColor(t.Token),
			Overlapped: overlapped[[2]uint64{uint64(t.Node), t.Token}]})
	}

	// Porcupine's visualisation.
	if o.S3.Result != "" {
		var buf bytes.Buffer
		if err := visualize(o.S3, &buf); err != nil {
			p.S3Error = "porcupine could not draw the history: " + err.Error()
		} else {
			p.S3Doc = buf.String()
			// Porcupine draws a row of about 30 pixels per client under
			// its legend, and a scroll bar.
			p.S3Height = min(max(140+34*(h.Nodes+1), 240), 720)
		}
		p.S3Caption = fmt.Sprintf("The linearizability check of the run's S3 history found it %s (%d requests checked).", o.S3.Result, o.S3.Ops)
	} else {
		p.S3Error = "The S3 history was not checked (the run did not finish)."
	}

	plan, err := json.MarshalIndent(o.Plan, "", "  ")
	if err != nil {
		return nil, err
	}
	p.Plan = string(plan)
	if res.Trace != nil && len(res.Trace.Events) > 0 {
		var buf bytes.Buffer
		if err := res.Trace.WriteText(&buf); err != nil {
			return nil, err
		}
		p.Trace, p.HasTrace = buf.String(), true
	}
	return p, nil
}

// visualize runs porcupine's visualisation, which may panic on
// information it did not expect: the page then says so instead.
func visualize(r linearizability.S3Result, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return r.Visualize(w)
}

// excusedViolations are the run's excused violations without their excuses.
func excusedViolations(o *harness.Outcome) []linearizability.Violation {
	out := make([]linearizability.Violation, len(o.Excused))
	for i, x := range o.Excused {
		out[i] = x.Violation
	}
	return out
}
