package faults

import (
	"testing"
	"time"
)

// TestForNodesKeepsNodelessEvents: events of node-less kinds survive a cut
// to fewer nodes, moved to node 0; events of removed nodes are dropped.
func TestForNodesKeepsNodelessEvents(t *testing.T) {
	p := (&Plan{Events: []Event{{Kind: DeleteLock, Node: 3}, {Kind: Crash, Node: 3}, {Kind: Crash, Node: 1}}}).ForNodes(2)
	if len(p.Events) != 2 || p.Events[0].Node != 0 || p.Events[1].Node != 1 {
		t.Fatalf("ForNodes: %+v", p.Events)
	}
}

// TestCutDropsWhatNoLongerHeals: a plan cut to heal earlier keeps the
// faults over by then, and aimed faults, and stays valid.
func TestCutDropsWhatNoLongerHeals(t *testing.T) {
	s := time.Second
	p := &Plan{HealAt: Duration(45 * s),
		Clocks: []ClockSetting{{Node: 0, DriftPPM: 50_000, DriftUntil: Duration(45 * s)}},
		Events: []Event{
			{Kind: Pause, At: Duration(s), For: Duration(s)},
			{Kind: Pause, At: Duration(5 * s), For: Duration(s)},
			{Kind: Restart, At: Duration(4 * s)},
			{Kind: AnswerLost, Op: "PutObject", Nth: 3},
		}}
	c := p.Cut(4 * s)
	if len(c.Events) != 3 || c.Events[1].Kind != Restart || c.HealAt != Duration(4*s) || c.Clocks[0].DriftUntil != Duration(4*s) {
		t.Fatalf("Cut(4s): %+v", c)
	}
	if err := c.Validate(1, 5*s); err != nil {
		t.Fatal(err)
	}
	if len(p.Events) != 4 || p.HealAt != Duration(45*s) {
		t.Fatalf("Cut changed the plan it cut: %+v", p)
	}
}
