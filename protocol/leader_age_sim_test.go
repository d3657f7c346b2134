package protocol_test

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLeaderAgeCountsFromTheSend: a follower whose process stops for two
// seconds as a read's answer arrives reports, once it runs again, an
// observation at least that old: Leader().Age counts from the send of the
// request that made the observation, so the record it names was the lock
// object's content within that age (which the answers checker holds it
// to), whatever the latency or a pause before the elector looked at it.
func TestLeaderAgeCountsFromTheSend(t *testing.T) {
	const pause = 2 * time.Second
	cfg := harness.World(1)
	cfg.Nodes, cfg.Duration = 2, 20*time.Second
	plan := &faults.Plan{HealAt: faults.Duration(15 * time.Second),
		Apps:   []faults.App{{Node: 0, Callers: []faults.Caller{{Ask: sim.AskLeader, Every: faults.Duration(10 * time.Millisecond)}}}},
		Events: []faults.Event{{Kind: faults.AnswerPause, Node: 0, Op: "GetObject", Nth: 4, For: faults.Duration(pause)}}}
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: elector.Protocol(elector.DefaultSettings)}, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Verdict != harness.Pass {
		t.Errorf("verdict %v: %v", o.Verdict, o.Violations)
	}
	var paused sim.FaultSpan
	for _, f := range o.Result.History.Faults {
		if f.Node == 0 && f.Kind == sim.FaultAnswerPause.String() {
			paused = f
		}
	}
	if paused.To-paused.From != pause {
		t.Fatalf("no pause of %v on n0's answer: %+v", pause, paused)
	}
	for _, a := range o.Result.History.Answers {
		if a.Node == 0 && a.Ask == sim.AskLeader && a.At >= paused.To {
			if !a.Observed || a.Age < pause {
				t.Errorf("first Leader() after the pause, at %v: observed %v, %v ago; want at least %v", a.At, a.Observed, a.Age, pause)
			}
			return
		}
	}
	t.Error("no Leader() answer after the pause")
}
