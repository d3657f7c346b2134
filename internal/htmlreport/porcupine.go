package htmlreport

import (
	"bytes"
	"fmt"
	"io"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/harness"
)

// porcupineView is one of porcupine's pages, shown in an iframe whose
// document is its srcdoc attribute. The iframe is sandboxed but keeps the
// page's origin (allow-same-origin): porcupine lays its boxes out by
// measuring its text, which a browser that puts a frame of another origin
// in a process of its own (Chromium's isolation of sandboxed frames) does
// not let it do, and draws every box too narrow for its words.
type porcupineView struct {
	ID, Heading, Caption string
	// Doc is porcupine's page; empty, Error says why there is none.
	Doc, Error string
	// Height is the iframe's height in pixels: porcupine draws a row of
	// about 34 pixels per row under its legend, and a scroll bar.
	Height int
}

func viewHeight(rows int) int { return min(max(140+34*rows, 240), 720) }

// s3View is porcupine's view of the run's S3 history, as the harness
// checked it.
func s3View(o *harness.Outcome) porcupineView {
	v := porcupineView{ID: "s3-history", Heading: "The S3 history"}
	if o.S3.Result == "" {
		v.Error = "The S3 history was not checked (the run did not finish)."
		return v
	}
	v.Caption = fmt.Sprintf("The linearizability check of the run's S3 history found it %s (%d requests checked). "+
		"Each bar is one S3 request from its call to its answer, one row per node (and one more for writes by anyone else, if there were any); "+
		"unanswered requests extend to the end of the run, and grey bars were not checked (they neither changed the lock object nor said anything about it). "+
		"Hover a bar for the request, its answer and the object's state after it; click one to see the linearization.", o.S3.Result, o.S3.Ops)
	var buf bytes.Buffer
	if err := visualize(o.S3.Visualize, &buf); err != nil {
		v.Error = "porcupine could not draw the history: " + err.Error()
		return v
	}
	v.Doc, v.Height = buf.String(), viewHeight(o.Result.History.Nodes+1)
	return v
}

// electionView is porcupine's view of the run's election history (see
// checkElection).
func electionView(o *harness.Outcome) porcupineView {
	v := porcupineView{ID: "election-history", Heading: "The election history"}
	h := o.Result.History
	if h == nil || len(h.Terms) == 0 {
		v.Error = "No node led in this run: there is no election history to draw."
		return v
	}
	c := checkElection(h, len(o.Outside) > 0, harness.S3CheckTimeout)
	terms, them := fmt.Sprintf("the %d leadership terms", c.Terms), "them"
	if c.Terms == 1 {
		terms, them = "the one leadership term", "it"
	}
	found := "found " + them + " " + string(c.Result)
	if c.Result == porcupine.Unknown {
		found = fmt.Sprintf("could not decide within %v (Unknown)", harness.S3CheckTimeout)
	}
	v.Caption = fmt.Sprintf("Porcupine checked %s against a register of the leader, which demands %s, and %s. "+
		"Each term is a bar in its token's colour on its node's row, between two instants: when the node was told it leads, and when it saw its term end. "+
		"This is the strict reading; the verdict is the harness's, which excuses what faults outside the assumptions account for. "+
		"Click an instant to see the linearization.", terms, c.Rules.rulesText(), found)
	var buf bytes.Buffer
	if err := visualize(c.visualize, &buf); err != nil {
		v.Error = "porcupine could not draw the election history: " + err.Error()
		return v
	}
	// Porcupine draws a row per client up to the highest that led.
	rows := 0
	for _, t := range h.Terms {
		rows = max(rows, t.Node+1)
	}
	v.Doc, v.Height = buf.String(), viewHeight(rows)
	return v
}

// visualize runs one of porcupine's visualisations, which may panic on
// information it did not expect: the page then says so instead.
func visualize(draw func(io.Writer) error, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return draw(w)
}
