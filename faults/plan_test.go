package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"pgregory.net/rapid"
)

// swarm is the plan the generator draws for seed, for the production
// elector's default bounds.
func swarm(seed uint64) *Plan {
	b := Bounds{Assumptions: protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: 1900 * time.Millisecond, Lease: 6 * time.Second}}
	return Draw(NewSource(seed), Space{Nodes: 5, HealAt: 45 * time.Second, Bounds: b})
}

// TestSwarmPlansAreValidAndDeterministic: every swarm plan validates, heals
// by its HealAt, survives a JSON round trip unchanged, and is a function of
// the seed alone.
func TestSwarmPlansAreValidAndDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		p := swarm(seed)
		if err := p.Validate(5, 75*time.Second); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if q := swarm(seed); !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: two different plans", seed)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if !reflect.DeepEqual(p, back) {
			t.Fatalf("round trip changed the plan:\n%s", b)
		}
	})
}

// TestSwarmCoversTheFaultFamilies: across seeds, every family appears, and
// plans both inside and outside the assumptions occur: many seeds are judged
// strictly (over a third inside the assumptions: a record before the run
// that another tool edited, one record in four, is a foreign write).
func TestSwarmCoversTheFaultFamilies(t *testing.T) {
	a := protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: 1900 * time.Millisecond}
	seen := map[Kind]int{}
	inside, outside, knobs := 0, 0, 0
	for seed := uint64(1); seed <= 500; seed++ {
		p := swarm(seed)
		for _, e := range p.Events {
			seen[e.Kind]++
		}
		if p.S3 != (Knobs{}) {
			knobs++
		}
		if len(p.Outside(a)) == 0 {
			inside++
		} else {
			outside++
		}
	}
	for _, k := range []Kind{Pause, Crash, Restart, Stop, ClockJump, ClockStall, Partition, SlowS3, DeleteLock, Linger,
		AnswerLost, AnswerFailed, Refused, AnswerDelayed, AnswerPause, PauseBefore} {
		if seen[k] == 0 {
			t.Errorf("no swarm plan in 500 has a %s event", k)
		}
	}
	if knobs < 100 || inside < 175 || outside < 50 {
		t.Errorf("knobs in %d plans, %d inside and %d outside the assumptions", knobs, inside, outside)
	}
}

// TestValidateRejectsBadPlans: each way a plan can be wrong is refused with
// ErrInvalidPlan, faults that outlast the heal and restarts or lingering
// applications after it included.
func TestValidateRejectsBadPlans(t *testing.T) {
	ok := func() *Plan {
		return &Plan{HealAt: Duration(30 * time.Second), Events: []Event{{Kind: Pause, At: Duration(time.Second), Node: 1, For: Duration(time.Second)}}}
	}
	for name, mutate := range map[string]func(*Plan){
		"heal after end":      func(p *Plan) { p.HealAt = Duration(time.Hour) },
		"unknown kind":        func(p *Plan) { p.Events[0].Kind = "meteor" },
		"node out of range":   func(p *Plan) { p.Events[0].Node = 5 },
		"negative time":       func(p *Plan) { p.Events[0].At = -1 },
		"fault past heal":     func(p *Plan) { p.Events[0].At = Duration(29500 * time.Millisecond) },
		"aimed at nothing":    func(p *Plan) { p.Events[0] = Event{Kind: AnswerLost, Node: 0} },
		"bad code":            func(p *Plan) { p.Events[0] = Event{Kind: Refused, Node: 0, Op: "PutObject", Nth: 1, Code: "Teapot"} },
		"knob over a million": func(p *Plan) { p.S3.LostPPM = 2_000_000 },
		"clock of no node":    func(p *Plan) { p.Clocks = []ClockSetting{{Node: 9}} },
		"absurd drift":        func(p *Plan) { p.Clocks = []ClockSetting{{Node: 0, DriftPPM: -1_000_000}} },
		"too many attempts":   func(p *Plan) { p.SDKAttempts = 50 },
		"restart after heal":  func(p *Plan) { p.Events[0] = Event{Kind: Restart, At: Duration(31 * time.Second), Node: 1} },
		"edit of a body":      func(p *Plan) { p.Initial = &Object{Body: "x", Edit: 5} },
		"spelling of a body":  func(p *Plan) { p.Initial = &Object{Body: "x", Spelling: 5} },
		"linger after heal": func(p *Plan) {
			p.Events[0] = Event{Kind: Linger, At: Duration(31 * time.Second), Node: 1, By: Duration(time.Second)}
		},
	} {
		p := ok()
		mutate(p)
		if err := p.Validate(5, time.Minute); !errors.Is(err, ErrInvalidPlan) {
			t.Errorf("%s: err = %v, want ErrInvalidPlan", name, err)
		}
	}
	if err := ok().Validate(5, time.Minute); err != nil {
		t.Fatalf("valid plan rejected: %v", err)
	}
}

func TestDecodeRefusesUnknownFieldsAndBadDurations(t *testing.T) {
	for _, in := range []string{
		`{"healAt":"10s","surprise":1}`,
		`{"healAt":"ten seconds"}`,
		`{"healAt":"10s","events":[{"kind":"pause","at":5}]}`,
		`not json`,
	} {
		if _, err := Decode(strings.NewReader(in)); !errors.Is(err, ErrInvalidPlan) {
			t.Errorf("%s: err = %v, want ErrInvalidPlan", in, err)
		}
	}
}

// TestOutsideNamesEachBrokenAssumption: each way a plan leaves the
// assumptions is named once, and pauses of a node that overlap or touch
// are held against the bound together.
func TestOutsideNamesEachBrokenAssumption(t *testing.T) {
	a := protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: 2 * time.Second}
	p := &Plan{
		Clocks: []ClockSetting{{Node: 0, DriftPPM: 999}, {Node: 1, DriftPPM: -5000}},
		Events: []Event{
			{Kind: Pause, Node: 2, For: Duration(time.Second)},
			{Kind: Pause, Node: 3, For: Duration(3 * time.Second)},
			{Kind: ClockStall, Node: 4, For: Duration(time.Second)},
			{Kind: DeleteLock},
			{Kind: Linger, Node: 1, By: Duration(time.Second)},
			{Kind: ClockJump, Node: 0, By: Duration(time.Hour)},
		},
	}
	why := p.Outside(a)
	want := []string{"n1's clock drifts -5000", "n3 does not run from 0s to 3s", "n4's monotonic clock stalls", "someone else writes", "n1's application works on"}
	if len(why) != len(want) {
		t.Fatalf("outside = %q", why)
	}
	for i, w := range want {
		if !strings.Contains(why[i], w) {
			t.Errorf("reason %d = %q, want it to mention %q", i, why[i], w)
		}
	}
	merged := &Plan{Events: []Event{
		{Kind: Pause, Node: 2, At: Duration(time.Second), For: Duration(1500 * time.Millisecond)},
		{Kind: Pause, Node: 2, At: Duration(2 * time.Second), For: Duration(1500 * time.Millisecond)},
		{Kind: Pause, Node: 3, At: Duration(time.Second), For: Duration(1500 * time.Millisecond)},
		{Kind: Pause, Node: 3, At: Duration(3 * time.Second), For: Duration(1500 * time.Millisecond)},
	}}
	if why := merged.Outside(a); len(why) != 1 || !strings.Contains(why[0], "n2 does not run from 1s to 3.5s") {
		t.Errorf("two overlapping pauses of 1.5 s against a bound of 2 s: outside = %q", why)
	}
	if p := (&Plan{Events: []Event{{Kind: ClockJump, By: Duration(time.Hour)}}}); len(p.Outside(a)) != 0 {
		t.Error("a wall-clock jump is inside the assumptions")
	}
}
