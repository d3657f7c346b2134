package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
)

// maxListed violations are listed in the header; the rest are folded.
const maxListed = 12

// page is what the template renders.
type page struct {
	Title, Scenario, Verdict, VerdictClass string
	Seed                                   uint64
	Headline                               string
	Story, Expect                          string
	Expectation                            *expectation
	Violations, MoreViolations, Expected   []violationItem
	Outside                                []string
	Failure                                string
	Signature, Replay                      string
	Facts                                  []fact
	Timeline                               template.HTML
	TimelineCaption                        string
	Statements                             bool // the run sent statements to the row store
	Zooms                                  []zoomStrip
	Terms                                  []termRow
	Histories                              []porcupineView
	Plan                                   string
	Trace                                  string
	HasTrace                               bool
}

// violationItem is a violation as the header lists it: ID is its line on
// the whole timeline, Zoom the anchor of its zoomed strip (empty: none).
type violationItem struct {
	ID, Zoom, Label, At, Checker, Message string
	// Excused: a fault outside the assumptions accounts for it.
	Excused bool
}

type fact struct{ K, V string }

type termRow struct {
	Node, Identity, Token, Start, End, Length string
	Color                                     string
	Overlapped                                bool
}

func newPage(title string, o *harness.Outcome, opt Options) (*page, error) {
	res := o.Result
	sig := harness.SignatureOf(o)
	p := &page{
		Title: title, Scenario: o.Scenario, Seed: o.Seed, Verdict: o.Verdict.String(),
		VerdictClass: o.Verdict.String(), Signature: sig.String(), Replay: opt.Replay, Outside: o.Outside,
	}
	if sc := opt.Scenario; sc != nil {
		p.Story, p.Expect = sc.Doc, string(sc.Expect)
		p.Expectation = expectationOf(sc.Expect, o)
	}
	if p.Title == "" {
		p.Title = fmt.Sprintf("%s seed %d: %s", o.Scenario, o.Seed, o.Verdict)
	}
	if p.Replay == "" {
		p.Replay = harness.Repro{Scenario: o.Scenario, Seed: o.Seed}.Command()
	}
	if res.Failure != nil {
		p.Failure = res.Failure.Error()
	}
	p.Headline = headline(o, p.Failure)

	m := buildModel(o)
	zoomed := planZooms(m)
	items := func(vs []linearizability.Violation, id func(int) string, prefix string) []violationItem {
		out := make([]violationItem, len(vs))
		for i, v := range vs {
			out[i] = violationItem{ID: "tl-" + id(i), Zoom: m.zooms[id(i)], Label: fmt.Sprintf("%s%d", prefix, i+1), At: v.At.String(),
				Checker: checkerName(v), Message: v.Message, Excused: prefix == "E"}
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

	p.Timeline = renderSVG(m, "tl-", 0, max(m.end, time.Millisecond), fullWidth(m.end), "leadership timeline of the whole run")
	p.TimelineCaption = fmt.Sprintf("The whole run, 0 to %s of true time; one lane per node.", secs(m.end))
	p.Statements = m.statements
	p.Zooms = zoomStrips(m, zoomed)
	p.Facts = facts(o)
	p.Terms = terms(o)
	p.Histories = []porcupineView{electionView(o), s3View(o)}

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

// headline says in a sentence how the run went.
func headline(o *harness.Outcome, failure string) string {
	switch {
	case failure != "":
		return "The run could not finish: " + failure
	case o.Verdict == harness.Unsafe:
		return fmt.Sprintf("Safety broke: %d violation(s); the red lines on the timeline mark when.", len(o.Violations))
	case o.Verdict == harness.Liveness && len(o.Violations) > 0 && o.Violations[0].Checker == linearizability.RateCheckName:
		return "A node sent S3 requests faster than the protocol allows itself: a retry storm."
	case o.Verdict == harness.Liveness:
		return "No stable leader once the faults healed."
	case o.Verdict == harness.Inconclusive:
		return "Every property that could be judged held, but the S3 history's check timed out."
	case len(o.Outside) > 0:
		return "Every property held that the protocol promises outside its assumptions: the fence kept stale writes out."
	}
	return "Every property held."
}

// facts are the run's numbers, for the header.
func facts(o *harness.Outcome) []fact {
	res := o.Result
	h := res.History
	accepted, refused := 0, 0
	for _, w := range h.Writes {
		if w.Accepted {
			accepted++
		} else {
			refused++
		}
	}
	fs := []fact{
		{"nodes", fmt.Sprint(h.Nodes)},
		{"run", secs(h.End)},
	}
	if o.Plan != nil {
		fs = append(fs, fact{"faults heal at", secs(o.Plan.HealAt.D())})
	}
	fs = append(fs,
		fact{"leadership terms", fmt.Sprint(len(h.Terms))},
		fact{"overlaps of leaders", fmt.Sprint(len(o.Overlaps))},
		fact{"S3 requests", fmt.Sprint(len(h.S3))},
		fact{"fenced writes", fmt.Sprintf("%d accepted, %d refused", accepted, refused)},
	)
	if o.S3.Result != "" {
		// No time taken: one run gives one page, byte for byte.
		fs = append(fs, fact{"S3 history", fmt.Sprintf("%s (%d requests checked)", o.S3.Result, o.S3.Ops)})
	}
	return append(fs, fact{"steps", fmt.Sprint(res.Steps)}, fact{"trace hash", fmt.Sprintf("%016x", res.Hash())})
}

// terms are the rows of the table of leadership terms.
func terms(o *harness.Outcome) []termRow {
	h := o.Result.History
	overlapped := make(map[[2]uint64]bool) // node, token
	for _, ov := range o.Overlaps {
		for i := range 2 {
			overlapped[[2]uint64{uint64(ov.Nodes[i]), ov.Tokens[i]}] = true
		}
	}
	var rows []termRow
	for _, t := range h.Terms {
		end, length := secs(t.End), secs(t.End-t.Start)
		if t.Open {
			end, length = "(still leading at the end)", secs(h.End-t.Start)+"+"
		}
		rows = append(rows, termRow{Node: fmt.Sprintf("n%d", t.Node), Identity: fmt.Sprintf("%s (incarnation %d)", t.Identity, t.Incarnation),
			Token: fmt.Sprint(t.Token), Start: secs(t.Start), End: end, Length: length, Color: tokenColor(t.Token),
			Overlapped: overlapped[[2]uint64{uint64(t.Node), t.Token}]})
	}
	return rows
}

// excusedViolations are the run's excused violations without their excuses.
func excusedViolations(o *harness.Outcome) []linearizability.Violation {
	out := make([]linearizability.Violation, len(o.Excused))
	for i, x := range o.Excused {
		out[i] = x.Violation
	}
	return out
}
