package faults_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/protocol"
)

// TestSwarmDrawsRestoreOwn: the swarm draws a restore of the leader's own
// write, last among the plan's events, only on seeds that leave the
// assumptions by foreign writes already (so that as many seeds as before
// are judged within them), k from 1 to 20 and mostly 14 to 17; its plans
// are valid and come back from JSON as they were.
func TestSwarmDrawsRestoreOwn(t *testing.T) {
	a := protocol.Assumptions{Lease: 6 * time.Second, MaxDriftPPM: 1000, MaxPause: 1976 * time.Millisecond}
	drawn, near := 0, 0
	byBack := map[int]int{}
	for seed := uint64(1); seed <= 3000; seed++ {
		p := swarm(seed)
		var own []faults.Event
		for i, e := range p.Events {
			if e.Kind != faults.RestoreOwn {
				continue
			}
			if i != len(p.Events)-1 {
				t.Fatalf("seed %d: restore-own is event %d of %d, not the last drawn", seed, i, len(p.Events))
			}
			own = append(own, e)
		}
		if len(own) == 0 {
			continue
		}
		drawn++
		e := own[0]
		if len(own) != 1 || e.Role != faults.RoleRenewer || e.Back < 1 || e.Back > 20 || e.At.D() < time.Second || e.At.D() > 45*time.Second*9/10 {
			t.Fatalf("seed %d: drew %+v", seed, own)
		}
		byBack[e.Back]++
		if e.Back >= 14 && e.Back <= 17 {
			near++
		}
		foreign := false
		for _, o := range p.Events[:len(p.Events)-1] {
			if o.Kind == faults.DeleteLock || o.Kind == faults.Overwrite || o.Kind == faults.Restore {
				foreign = true
			}
		}
		if !foreign {
			t.Fatalf("seed %d: restore-own on a seed without other foreign writes", seed)
		}
		without := *p
		without.Events = p.Events[:len(p.Events)-1]
		if (len(p.Outside(a)) > 0) != (len(without.Outside(a)) > 0) {
			t.Fatalf("seed %d: restore-own moved the plan across the assumptions", seed)
		}
		if err := p.Validate(5, 75*time.Second); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := faults.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Fatalf("seed %d: the plan changed on its way through JSON:\n%s", seed, data)
		}
	}
	// About one seed in twelve; three in four of those 14 to 17 back.
	if drawn < 150 || drawn > 350 || near*10 < drawn*7 || len(byBack) < 15 {
		t.Fatalf("restore-own on %d of 3000 seeds, %d of them 14 to 17 back; backs %v", drawn, near, byBack)
	}
}

// TestValidateRefusesBadRestoreOwn: a restore-own needs a Back of at least
// one and the renewer's role; no other kind takes a Back.
func TestValidateRefusesBadRestoreOwn(t *testing.T) {
	ok := faults.Event{Kind: faults.RestoreOwn, Role: faults.RoleRenewer, Back: 16, At: faults.Duration(time.Second)}
	for _, c := range []struct {
		name string
		edit func(*faults.Event)
		want string
	}{
		{"back 0", func(e *faults.Event) { e.Back = 0 }, "back 0 outside [1,"},
		{"negative back", func(e *faults.Event) { e.Back = -3 }, "back -3 outside [1,"},
		{"back past the bound", func(e *faults.Event) { e.Back = 1_000_000 }, "back 1000000 outside [1,"},
		{"no role", func(e *faults.Event) { e.Role = "" }, "aimed at the renewer"},
		{"the leader", func(e *faults.Event) { e.Role = faults.RoleLeader }, "aimed at the renewer"},
		{"a target", func(e *faults.Event) { e.Target = faults.TargetAll }, "no target"},
		{"back on a restore", func(e *faults.Event) { e.Kind, e.Role = faults.Restore, "" }, "only a restore-own reaches back"},
	} {
		e := ok
		c.edit(&e)
		p := &faults.Plan{HealAt: faults.Duration(45 * time.Second), Events: []faults.Event{e}}
		err := p.Validate(5, 75*time.Second)
		if !errors.Is(err, faults.ErrInvalidPlan) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate says %v, want an invalid plan saying %q", c.name, err, c.want)
		}
	}
	p := &faults.Plan{HealAt: faults.Duration(45 * time.Second), Events: []faults.Event{ok}}
	if err := p.Validate(5, 75*time.Second); err != nil {
		t.Errorf("a restore-own 16 back: %v", err)
	}
	if why := p.Outside(protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: time.Second}); len(why) != 1 || !strings.Contains(why[0], "restore-own") {
		t.Errorf("a restore-own leaves the assumptions of a protocol without foreign writes as %q", why)
	}
}
