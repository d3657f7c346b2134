package faults_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// bounds are the production elector's, as the tests draw with them.
var bounds = faults.Bounds{Assumptions: protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: 1976 * time.Millisecond, Lease: 6 * time.Second}}

// space is the space the tests draw in: five nodes at most, healing at
// 45 s, sized by bounds, settings drawn (and taken with the same bounds).
func space() faults.Space {
	return faults.Space{Nodes: 5, HealAt: 45 * time.Second, Bounds: bounds,
		Configure: func([]faults.Settings, int) (faults.Bounds, bool) { return bounds, true }}
}

// swarm is the plan the generator draws for seed in space.
func swarm(seed uint64) *faults.Plan { return faults.Draw(faults.NewSource(seed), space()) }

// TestSwarmSettingsCoverWhatTheElectorAccepts: every setting the swarm
// draws is one protocol.NewElector accepts, and across seeds they reach
// the edges of what it accepts: a renew deadline exactly at the
// drift-margin limit, a request timeout of exactly half the deadline and
// the default one, short and long retry periods, drift bounds near the
// largest, release on cancel on and off, one setting for all nodes and a
// mix.
func TestSwarmSettingsCoverWhatTheElectorAccepts(t *testing.T) {
	var none, uniform, mixed, atLimit, halfTimeout, defaultTimeout, shortRetry, longRetry, bigDrift, release, keep int
	for seed := uint64(1); seed <= 4000; seed++ {
		ss := swarm(seed).Settings
		switch {
		case ss == nil:
			none++
		case len(ss) == 5 && ss[0].Lease == ss[4].Lease && ss[0].RetryPeriod == ss[4].RetryPeriod:
			uniform++
		default:
			mixed++
		}
		for _, s := range ss {
			es := elector.SettingsOf(s)
			if err := es.Validate(); err != nil {
				t.Fatalf("seed %d: the elector refuses drawn settings %+v: %v", seed, s, err)
			}
			if s.RenewDeadline.D() == s.Lease.D()-protocol.DriftMargin(s.Lease.D(), s.DriftPPM) {
				atLimit++
			}
			switch {
			case s.RequestTimeout == 0:
				defaultTimeout++
			case s.RequestTimeout == s.RenewDeadline/2:
				halfTimeout++
			}
			if s.RetryPeriod < s.RenewDeadline/10 {
				shortRetry++
			}
			if s.RetryPeriod > s.RenewDeadline/2 {
				longRetry++
			}
			if s.DriftPPM > 50_000 {
				bigDrift++
			}
			if s.ReleaseOnCancel {
				release++
			} else {
				keep++
			}
		}
	}
	for name, n := range map[string]int{"no settings": none, "one setting for all": uniform, "a mix": mixed,
		"deadline at the drift-margin limit": atLimit, "timeout of half the deadline": halfTimeout,
		"default timeout": defaultTimeout, "short retry": shortRetry, "long retry": longRetry,
		"drift bound above 50000 ppm": bigDrift, "release on cancel": release, "no release": keep} {
		if n < 20 {
			t.Errorf("%s: %d draws in 4000 seeds", name, n)
		}
	}
}

// TestSwarmDrawsEveryNewFamily: across seeds, the plans hold every initial
// content, every application mode with work inside and beyond the pause
// bound, every foreign write at every moment, whole-cluster events at
// every moment, and faults aimed at every role; and each is valid.
func TestSwarmDrawsEveryNewFamily(t *testing.T) {
	seen := map[string]int{}
	for seed := uint64(1); seed <= 3000; seed++ {
		p := swarm(seed)
		if err := p.Validate(5, 90*time.Second); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		switch o := p.Initial; {
		case o == nil:
			seen["no object"]++
		case o.Record == nil:
			seen["raw bytes"]++
		case o.Record.Token == math.MaxUint64:
			seen["largest token"]++
		case o.Record.Token == math.MaxUint64-1:
			seen["largest token less one"]++
		case o.Record.Token >= 1<<40:
			seen["token 2^40"]++
		case o.Record.Released:
			seen["released record"]++
		default:
			seen["live record"]++
		}
		for _, a := range p.Apps {
			seen["app "+string(a.Mode)]++
			switch {
			case a.Work.D() > bounds.MaxPause:
				seen["work beyond the bound"]++
			case a.Work > 0:
				seen["work within the bound"]++
			}
		}
		for _, e := range p.Events {
			switch {
			case e.Target == faults.TargetAll:
				seen["all: "+string(e.Kind)+" at "+string(e.Role)]++
				if e.Identity != "" {
					seen["all: new identities"]++
				}
			case e.Target == faults.TargetFollowers:
				seen["followers: "+string(e.Kind)]++
			case e.Kind == faults.Overwrite && e.Record != nil:
				seen["overwrite with a record at "+string(e.Role)]++
			case e.Kind == faults.Restore && e.At == 0:
				seen["restore of the content before the run"]++
			case e.Role != "":
				seen[string(e.Kind)+" at "+string(e.Role)]++
			default:
				seen[string(e.Kind)]++
			}
		}
	}
	for _, want := range []string{
		"no object", "raw bytes", "largest token", "largest token less one", "token 2^40", "released record", "live record",
		"app context", "app checks", "app polls", "work within the bound", "work beyond the bound",
		"delete-lock at leader", "delete-lock at renewer", "overwrite", "overwrite with a record at leader",
		"overwrite with a record at renewer", "restore at leader", "restore", "restore of the content before the run",
		"all: crash at ", "all: stop at leader", "all: restart at acquirer", "all: new identities",
		"followers: partition", "pause at leader", "pause at renewer", "pause at requester", "pause at acquirer",
		"crash at leader", "stop at acquirer", "partition at leader", "answer-lost at renewer", "request-delayed at acquirer",
		"answer-pause at requester", "refused at renewer", "pause-before-write at leader", "write-delayed at leader",
	} {
		if seen[want] == 0 {
			t.Errorf("no plan in 3000 draws %q", want)
		}
	}
}

// TestFamiliesDrawApart: each family draws from a sub-stream of its own:
// drawing another family's sub-stream from another seed leaves every
// other family's events as they were.
func TestFamiliesDrawApart(t *testing.T) {
	kinds := func(p *faults.Plan, keep func(faults.Event) bool) (out []faults.Event) {
		for _, e := range p.Events {
			if keep(e) {
				out = append(out, e)
			}
		}
		return out
	}
	roles := func(e faults.Event) bool { return e.Role != "" || e.Target != "" }
	for seed := uint64(1); seed <= 200; seed++ {
		a := swarm(seed)
		b := faults.Draw(faults.FromOrigin(&swapped{own: faults.NewSource(seed), other: faults.NewSource(seed + 1000), path: "/roles"}), space())
		if !reflect.DeepEqual(kinds(a, func(e faults.Event) bool { return !roles(e) }), kinds(b, func(e faults.Event) bool { return !roles(e) })) ||
			!reflect.DeepEqual(a.Initial, b.Initial) || !reflect.DeepEqual(a.Clocks, b.Clocks) || !reflect.DeepEqual(a.Settings, b.Settings) {
			t.Fatalf("seed %d: another seed's faults aimed at roles moved the other families", seed)
		}
	}
}

// swapped is the stream own, with the sub-stream path drawn from other.
type swapped struct {
	own, other *faults.Source
	path       string
}

func (o *swapped) Choose(path string, n uint64) uint64 {
	src := o.own
	if path == o.path {
		src = o.other
	}
	for _, name := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		src = src.Sub(name)
	}
	return src.Choose(n)
}

// TestOutsideNamesTheNewDepartures: foreign content before the run, a
// restore, slow work beyond the pause bound and a pause aimed at a role
// beyond it leave the assumptions; native content and work within the
// bound do not.
func TestOutsideNamesTheNewDepartures(t *testing.T) {
	a := protocol.Assumptions{MaxDriftPPM: 1000, MaxPause: 2 * time.Second}
	inside := &faults.Plan{
		Initial: &faults.Object{Record: &faults.Record{Holder: "gone", Token: 1 << 40}},
		Apps:    []faults.App{{Node: 1, Mode: sim.AppPolls, Work: faults.Duration(time.Second)}},
		Events:  []faults.Event{{Kind: faults.Pause, Role: faults.RoleLeader, For: faults.Duration(time.Second)}},
	}
	if why := inside.Outside(a); len(why) > 0 {
		t.Errorf("inside plan judged outside: %q", why)
	}
	for name, p := range map[string]*faults.Plan{
		"raw bytes before the run":      {Initial: &faults.Object{Body: "junk"}},
		"the largest token before":      {Initial: &faults.Object{Record: &faults.Record{Holder: "x", Token: math.MaxUint64}}},
		"a restore":                     {Events: []faults.Event{{Kind: faults.Restore, For: faults.Duration(time.Second)}}},
		"slow work beyond the bound":    {Apps: []faults.App{{Node: 0, Work: faults.Duration(3 * time.Second)}}},
		"a role pause beyond the bound": {Events: []faults.Event{{Kind: faults.Pause, Role: faults.RoleRenewer, For: faults.Duration(3 * time.Second)}}},
	} {
		if len(p.Outside(a)) != 1 {
			t.Errorf("%s: outside = %q, want one reason", name, p.Outside(a))
		}
	}
}

// TestValidateRefusesBadAims: roles, targets and the fields they need are
// checked.
func TestValidateRefusesBadAims(t *testing.T) {
	for name, e := range map[string]faults.Event{
		"unknown role":           {Kind: faults.Pause, Role: "boss", For: 1},
		"unknown target":         {Kind: faults.Pause, Target: "some"},
		"answer fault at leader": {Kind: faults.AnswerLost, Role: faults.RoleLeader},
		"role and nth":           {Kind: faults.AnswerLost, Role: faults.RoleRenewer, Op: "PutObject", Nth: 2},
		"targeted answer fault":  {Kind: faults.AnswerLost, Op: "PutObject", Nth: 1, Target: faults.TargetAll},
		"crash at role, no for":  {Kind: faults.Crash, Role: faults.RoleLeader},
		"restart at a role":      {Kind: faults.Restart, Role: faults.RoleLeader},
		"delete of every node":   {Kind: faults.DeleteLock, Target: faults.TargetAll},
		"stall at a role":        {Kind: faults.ClockStall, Role: faults.RoleLeader, For: 1},
		"record on a delete":     {Kind: faults.DeleteLock, Record: &faults.Record{Holder: "x", Token: 1}},
	} {
		p := &faults.Plan{HealAt: faults.Duration(30 * time.Second), Events: []faults.Event{e}}
		if err := p.Validate(5, time.Minute); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, p := range map[string]*faults.Plan{
		"settings of no node":  {Settings: []faults.Settings{{Node: 7, Lease: 1, RenewDeadline: 1, RetryPeriod: 1}}},
		"two settings":         {Settings: []faults.Settings{{Node: 1, Lease: 1, RenewDeadline: 1, RetryPeriod: 1}, {Node: 1, Lease: 1, RenewDeadline: 1, RetryPeriod: 1}}},
		"settings with a zero": {Settings: []faults.Settings{{Node: 1, Lease: 1, RetryPeriod: 1}}},
		"unknown app mode":     {Apps: []faults.App{{Node: 0, Mode: "lazy"}}},
		"two apps for a node":  {Apps: []faults.App{{Node: 0}, {Node: 0}}},
	} {
		p.HealAt = faults.Duration(30 * time.Second)
		if err := p.Validate(5, time.Minute); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSwarmDrawsTornReads: the generator draws a store that tears raced
// reads on about one draw in 4 for a protocol that tolerates torn reads,
// one in 20 for another, at every raced read or 10% to all of them; such
// a plan leaves the assumptions of a protocol that does not tolerate them
// only, and a plan with a chance outside [0, 1e6] is refused.
func TestSwarmDrawsTornReads(t *testing.T) {
	const seeds = 4000
	for _, tolerates := range []bool{true, false} {
		sp := space()
		sp.Bounds.TornReads = tolerates
		b := sp.Bounds
		sp.Configure = func([]faults.Settings, int) (faults.Bounds, bool) { return b, true }
		drawn, all := 0, 0
		for seed := uint64(1); seed <= seeds; seed++ {
			p := faults.Draw(faults.NewSource(seed), sp)
			switch ppm := p.S3.TornPPM; {
			case ppm == 0:
				continue
			case ppm == 1_000_000:
				all++
			case ppm < 100_000 || ppm > 1_000_000:
				t.Fatalf("seed %d: torn reads at %d ppm", seed, ppm)
			}
			drawn++
			a := sp.Bounds.Assumptions
			if why := (&faults.Plan{S3: faults.Knobs{TornPPM: p.S3.TornPPM}}).Outside(a); len(why) > 0 == tolerates {
				t.Fatalf("seed %d: a protocol that tolerates torn reads: %v; outside: %q", seed, tolerates, why)
			}
		}
		want := seeds / 20
		if tolerates {
			want = seeds / 4
		}
		t.Logf("tolerated %v: %d of %d draws tear reads, %d of them every raced read", tolerates, drawn, seeds, all)
		if drawn < want*8/10 || drawn > want*12/10 || all < drawn/3 || all > drawn*2/3 {
			t.Errorf("tolerated %v: %d of %d draws tear reads (%d every raced one); want about %d, half of them every one", tolerates, drawn, seeds, all, want)
		}
	}
	p := &faults.Plan{HealAt: faults.Duration(30 * time.Second), S3: faults.Knobs{TornPPM: 1_000_001}}
	if err := p.Validate(5, time.Minute); err == nil {
		t.Error("a chance of torn reads above 1e6 ppm is accepted")
	}
}

// TestSwarmDrawsOpaqueETags: a protocol that works on a store whose ETags
// are not MD5s gets one on about one draw in 6 of those without torn
// reads, and never with them; any other protocol never. Such a plan
// leaves the assumptions of a protocol that does not claim it, and torn
// reads on such a store leave everyone's.
func TestSwarmDrawsOpaqueETags(t *testing.T) {
	const seeds = 4000
	for _, works := range []bool{true, false} {
		sp := space()
		sp.Bounds.OpaqueETags, sp.Bounds.TornReads = works, true
		b := sp.Bounds
		sp.Configure = func([]faults.Settings, int) (faults.Bounds, bool) { return b, true }
		drawn, whole := 0, 0
		for seed := uint64(1); seed <= seeds; seed++ {
			p := faults.Draw(faults.NewSource(seed), sp)
			if p.S3.TornPPM == 0 {
				whole++
			}
			if !p.S3.OpaqueETags {
				continue
			}
			drawn++
			if !works || p.S3.TornPPM > 0 {
				t.Fatalf("seed %d: opaque ETags drawn for a protocol that works with them: %v, torn reads at %d ppm", seed, works, p.S3.TornPPM)
			}
			if why := p.Outside(b.Assumptions); len(why) > 0 {
				for _, w := range why {
					if strings.Contains(w, "ETag") {
						t.Fatalf("seed %d: opaque ETags leave the assumptions of a protocol that works with them: %q", seed, why)
					}
				}
			}
		}
		want := 0
		if works {
			want = whole / 6
		}
		if drawn < want*8/10 || drawn > want*12/10 {
			t.Errorf("works %v: %d of %d draws without torn reads have opaque ETags; want about %d", works, drawn, whole, want)
		}
	}
	opaque := faults.Knobs{OpaqueETags: true}
	for _, c := range []struct {
		a    protocol.Assumptions
		k    faults.Knobs
		want string
	}{
		{protocol.Assumptions{}, opaque, "not the MD5s"},
		{protocol.Assumptions{OpaqueETags: true, TornReads: true}, faults.Knobs{OpaqueETags: true, TornPPM: 1000}, "no reader can tell"},
	} {
		if why := (&faults.Plan{S3: c.k}).Outside(c.a); !strings.Contains(strings.Join(why, "; "), c.want) {
			t.Errorf("%+v under %+v: outside %q, want a reason with %q", c.k, c.a, why, c.want)
		}
	}
}
