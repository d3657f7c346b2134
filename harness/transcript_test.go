package harness_test

import (
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestWriteTranscript: the lines a story is told by, and nothing else: a
// pause told once with the fault that caused it, a crash beside a restart
// at the same instant, a request a fault befell with what became of it,
// the requests of a partitioned node left out, a refused fenced write
// under its sender.
func TestWriteTranscript(t *testing.T) {
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
		{At: 9 * s, Node: 0, Kind: sim.EvStop},
	}
	o := &harness.Outcome{Scenario: "story", Seed: 1, Verdict: harness.Pass, Result: &sim.Result{
		Trace:   &sim.Trace{Events: evs},
		History: &sim.History{End: 9 * s, Writes: []sim.FencedWrite{{Node: 0, Token: 7, Accepted: true}, {Node: 0, Token: 7}}},
	}}
	var b strings.Builder
	if err := harness.WriteTranscript(&b, o); err != nil {
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
fenced writes: 1 accepted, 1 refused
verdict: pass
`
	if b.String() != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", b.String(), want)
	}
}
