package scenarios

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// writeTranscript writes a judged run condensed to what its story is told
// by: how it left the assumptions; then, one a line in true time, restarts,
// crashes and stops, terms beginning and ending, every fault by its kind
// (sim.FaultKind), each S3 request or statement a fault befell with what
// became of it (but those of a partitioned node), each read answered torn
// (the ETag it carried, the version whose body came), each write its sender
// gave up waiting for, each fenced write a fault delayed and each the resource
// refused, and panics (what befell several nodes at one instant on one
// line); then how many fenced writes were accepted and refused, and the
// outcome (harness.WriteOutcome). Two runs whose stories differ have
// different transcripts; the full trace (harness.WriteTrace) says the rest.
func writeTranscript(w io.Writer, o *harness.Outcome) error {
	res := o.Result
	if res == nil || res.Trace == nil {
		return fmt.Errorf("%s seed %d: no trace to transcribe", o.Scenario, o.Seed)
	}
	for _, why := range o.Outside {
		fmt.Fprintf(w, "outside the assumptions: %s\n", why)
	}
	evs := res.Trace.Events
	calls := indexCalls(evs)
	var lines []storyLine
	var last sim.Event             // the last fault event: a pause it announced is not told twice
	cut := map[int]time.Duration{} // each node's partition, until when: its requests' failures tell nothing more
	for i, e := range evs {
		node, what := transcriptLine(e, calls, last, res.History.End)
		switch {
		case e.Kind == sim.EvFault:
			last = e
			if e.Fault == sim.FaultPartition {
				cut[e.Node] = max(cut[e.Node], e.At+e.For)
			}
		case e.Kind == sim.EvS3Send || e.Kind == sim.EvSQLSend:
			if e.At < cut[e.Node] || e.Fault == sim.FaultUnreachable || e.Fault == sim.FaultDropped {
				what = "" // only a partition cuts a request off, and it is told
			}
		}
		// A restart of a running process crashes it first: one line.
		switch {
		case e.Kind == sim.EvCrash && i+1 < len(evs) && restarts(evs[i+1], e):
			what = ""
		case e.Kind == sim.EvStart && i > 0 && restarts(e, evs[i-1]):
			what = fmt.Sprintf("restart as %q", e.Detail)
		}
		if what == "" {
			continue
		}
		who := "s3"
		if node >= 0 {
			who = fmt.Sprintf("n%d", node)
		}
		if n := len(lines); n > 0 && lines[n-1].at == e.At && lines[n-1].what == what && node >= 0 {
			lines[n-1].who += " " + who
			continue
		}
		lines = append(lines, storyLine{e.At, who, what})
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%15s %s %s\n", clockText(l.at), l.who, l.what)
	}
	accepted, refused := 0, 0
	for _, fw := range res.History.Writes {
		if fw.Accepted {
			accepted++
		} else {
			refused++
		}
	}
	fmt.Fprintf(w, "fenced writes: %d accepted, %d refused\n", accepted, refused)
	return harness.WriteOutcome(w, o)
}

// restarts reports whether start is the restart of the process crash
// stopped, at the same instant.
func restarts(start, crash sim.Event) bool {
	return start.Kind == sim.EvStart && crash.Kind == sim.EvCrash && start.Node == crash.Node && start.At == crash.At
}

// storyLine is a line of a transcript: when, on which nodes, what.
type storyLine struct {
	at   time.Duration
	who  string
	what string
}

// callEvents are the events of one S3 request, statement or fenced write.
type callEvents struct {
	send, apply, end *sim.Event
}

// callKey tells apart the three numberings of calls.
type callKey struct {
	kind sim.EventKind // the kind of the call's send
	id   uint64
}

// sendOf maps each kind of a call's events to the kind of its send.
func sendOf(k sim.EventKind) sim.EventKind {
	switch k {
	case sim.EvS3Apply, sim.EvS3Return, sim.EvS3Abandon:
		return sim.EvS3Send
	case sim.EvSQLApply, sim.EvSQLReturn, sim.EvSQLAbandon:
		return sim.EvSQLSend
	case sim.EvFenceApply:
		return sim.EvFenceSend
	}
	return k
}

// indexCalls gathers the events of every numbered call of the trace.
func indexCalls(evs []sim.Event) map[callKey]*callEvents {
	calls := map[callKey]*callEvents{}
	for i := range evs {
		e := &evs[i]
		if e.Call == 0 {
			continue
		}
		k := callKey{sendOf(e.Kind), e.Call}
		c := calls[k]
		if c == nil {
			c = &callEvents{}
			calls[k] = c
		}
		switch e.Kind {
		case sim.EvS3Send, sim.EvSQLSend, sim.EvFenceSend:
			c.send = e
		case sim.EvS3Apply, sim.EvSQLApply, sim.EvFenceApply:
			c.apply = e
		default:
			c.end = e
		}
	}
	return calls
}

// transcriptLine is what e tells of the story, and of which node (-1: S3
// and the world outside the nodes); "" if nothing. last is the fault
// event before e; end the run's end.
func transcriptLine(e sim.Event, calls map[callKey]*callEvents, last sim.Event, end time.Duration) (int, string) {
	switch e.Kind {
	case sim.EvStart:
		if e.At > 0 {
			return e.Node, fmt.Sprintf("start as %q", e.Detail)
		}
	case sim.EvCrash:
		return e.Node, "crash"
	case sim.EvStop:
		if e.At < end {
			return e.Node, strings.TrimSuffix("stop "+e.Detail, " ")
		}
	case sim.EvLead, sim.EvUnlead:
		return e.Node, fmt.Sprintf("%s token %d", e.Kind, e.Token)
	case sim.EvPanic:
		return e.Node, "panic: " + e.Detail
	case sim.EvFault:
		return e.Node, strings.TrimSuffix(faultText(e)+": "+shortDetail(e.Detail), ": ")
	case sim.EvPause:
		if last.Node != e.Node || last.At != e.At || last.Fault != e.Fault {
			return e.Node, faultText(e)
		}
	case sim.EvS3Send, sim.EvSQLSend:
		if e.Fault != sim.NoFault {
			return e.Node, fmt.Sprintf("%s #%d %s: %s", e.Op, e.Call, faultText(e), callFate(calls[callKey{e.Kind, e.Call}]))
		}
	case sim.EvS3Return:
		if e.Fault == sim.FaultTornRead {
			return e.Node, fmt.Sprintf("%s #%d %s: the ETag %s, %s", e.Op, e.Call, faultText(e), e.ETag, strings.TrimPrefix(e.Detail, "torn: "))
		}
	case sim.EvS3Abandon, sim.EvSQLAbandon:
		c := calls[callKey{sendOf(e.Kind), e.Call}]
		write := e.Kind == sim.EvSQLAbandon || e.Op == "PutObject" || e.Op == "DeleteObject"
		if write && c != nil && c.send != nil && c.send.Fault == sim.NoFault {
			return e.Node, fmt.Sprintf("%s #%d sent at %v abandoned: %s", e.Op, e.Call, c.send.At, landed(c))
		}
	case sim.EvFenceSend:
		if e.Fault != sim.NoFault {
			return e.Node, fmt.Sprintf("fenced write #%d %s", e.Call, faultText(e))
		}
	case sim.EvFenceApply:
		if c := calls[callKey{sim.EvFenceSend, e.Call}]; e.Status != 200 && c != nil && c.send != nil {
			return c.send.Node, fmt.Sprintf("fenced write #%d token %d sent at %v refused: %s", e.Call, e.Token, c.send.At, answerText(e.Status, e.Code))
		}
	}
	return 0, ""
}

// faultText names e's fault with its length or size and its token.
func faultText(e sim.Event) string {
	s := e.Fault.String()
	if e.For != 0 {
		s += " " + e.For.String()
	}
	if e.Token != 0 {
		s += fmt.Sprintf(" token %d", e.Token)
	}
	return s
}

// callFate says what became of a request a fault befell: whether S3 (or
// the row store) applied it, and what reached its sender.
func callFate(c *callEvents) string {
	switch e := c.end; {
	case e == nil:
		return landed(c) + ", no answer"
	case e.Kind == sim.EvS3Abandon || e.Kind == sim.EvSQLAbandon:
		return fmt.Sprintf("%s, abandoned at %v", landed(c), e.At)
	default:
		return fmt.Sprintf("%s, answered %s at %v", landed(c), answerText(e.Status, e.Code), e.At)
	}
}

// landed says whether S3 (or the row store) applied a request, and when.
func landed(c *callEvents) string {
	switch a := c.apply; {
	case a == nil:
		return "not applied by the end"
	case a.Fault == sim.FaultUnreachable || a.Fault == sim.FaultDropped:
		return "never reached S3"
	case a.Fault == sim.FaultRefusedBefore:
		return "not applied"
	default:
		return fmt.Sprintf("applied %s at %v", answerText(a.Status, a.Code), a.At)
	}
}

// answerText is an answer's HTTP status and error code, or a statement's
// command tag or SQLSTATE.
func answerText(status int, code string) string {
	switch {
	case status == 0:
		return code
	case code == "":
		return fmt.Sprint(status)
	}
	return fmt.Sprintf("%d %s", status, code)
}

// shortDetail is a fault's note, cut to a line: an overwrite's note quotes
// the whole body it wrote.
func shortDetail(s string) string {
	const most = 120
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && (s[cut]&0xc0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// clockText is d as seconds with nanoseconds, as the trace prints time.
func clockText(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%d.%09ds", sign, d/time.Second, d%time.Second)
}

// TestTranscriptLines: the lines a story is told by, and nothing else: a
// pause told once with the fault that caused it, a crash beside a restart
// at the same instant, a request a fault befell with what became of it,
// the requests of a partitioned node left out, a refused fenced write
// under its sender, a read answered torn.
func TestTranscriptLines(t *testing.T) {
	s := time.Second
	evs := []sim.Event{
		{At: 0, Node: 0, Kind: sim.EvStart, Detail: "n0"},
		{At: 1 * s, Node: 0, Kind: sim.EvLead, Token: 7},
		{At: 2 * s, Node: 0, Kind: sim.EvFault, Fault: sim.FaultClockStall, For: 3 * s, Detail: "VM suspended for 3s"},
		{At: 2 * s, Node: 0, Kind: sim.EvPause, Fault: sim.FaultClockStall, For: 3 * s},
		{At: 2 * s, Node: 1, Kind: sim.EvPause, Fault: sim.FaultPause, For: s},
		{At: 3 * s, Node: 2, Kind: sim.EvCrash},
		{At: 3 * s, Node: 1, Kind: sim.EvCrash},
		{At: 3 * s, Node: 1, Kind: sim.EvStart, Detail: "n1-r"},
		{At: 4 * s, Node: 1, Kind: sim.EvS3Send, Call: 9, Op: "PutObject", Fault: sim.FaultFailedAfter},
		{At: 4*s + 1, Node: -1, Kind: sim.EvS3Apply, Call: 9, Op: "PutObject", Status: 200, Fault: sim.FaultFailedAfter},
		{At: 4*s + 2, Node: 1, Kind: sim.EvS3Return, Call: 9, Op: "PutObject", Status: 500, Code: "InternalError"},
		{At: 5 * s, Node: 2, Kind: sim.EvFault, Fault: sim.FaultPartition, For: 2 * s},
		{At: 6 * s, Node: 2, Kind: sim.EvS3Send, Call: 10, Op: "GetObject", Fault: sim.FaultUnreachable},
		{At: 6 * s, Node: 0, Kind: sim.EvFenceSend, Call: 3, Token: 7},
		{At: 6*s + 1, Node: -1, Kind: sim.EvFenceApply, Call: 3, Token: 7, Status: 409, Code: "stale"},
		{At: 7 * s, Node: 1, Kind: sim.EvS3Send, Call: 11, Op: "GetObject"},
		{At: 7*s + 1, Node: -1, Kind: sim.EvS3Apply, Call: 11, Op: "GetObject", Status: 200, ETag: `"a"`},
		{At: 7*s + 2, Node: 1, Kind: sim.EvS3Return, Call: 11, Op: "GetObject", Status: 200, ETag: `"b"`, Fault: sim.FaultTornRead, Detail: `torn: the body of "a"`},
		{At: 9 * s, Node: 0, Kind: sim.EvStop},
	}
	o := &harness.Outcome{Scenario: "story", Seed: 1, Verdict: harness.Pass, Result: &sim.Result{
		Trace:   &sim.Trace{Events: evs},
		History: &sim.History{End: 9 * s, Writes: []sim.FencedWrite{{Node: 0, Token: 7, Accepted: true}, {Node: 0, Token: 7}}},
	}}
	var b strings.Builder
	if err := writeTranscript(&b, o); err != nil {
		t.Fatal(err)
	}
	want := `   1.000000000s n0 lead token 7
   2.000000000s n0 clock-stall 3s: VM suspended for 3s
   2.000000000s n1 pause 1s
   3.000000000s n2 crash
   3.000000000s n1 restart as "n1-r"
   4.000000000s n1 PutObject #9 failed-after: applied 200 at 4.000000001s, answered 500 InternalError at 4.000000002s
   5.000000000s n2 partition 2s
   6.000000001s n0 fenced write #3 token 7 sent at 6s refused: 409 stale
   7.000000002s n1 GetObject #11 torn-read: the ETag "b", the body of "a"
fenced writes: 1 accepted, 1 refused
verdict: pass
`
	if b.String() != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", b.String(), want)
	}
}
