package harness_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// run runs the production elector with default settings on 5 nodes for d
// under plan, keeping the trace.
func runElector(t *testing.T, plan *faults.Plan, d time.Duration) *harness.Outcome {
	t.Helper()
	cfg := harness.World(7)
	cfg.Duration = d
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: elector.Protocol(elector.DefaultSettings)}, true)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Failure != nil {
		t.Fatalf("run failed: %v", o.Result.Failure)
	}
	return o
}

// TestConfiguredFollowsEachNodesSettings: with a mix of settings the
// assumptions take the smallest drift bound, each node's own pause bound
// (MaxPause the smallest), the longest lease and term, and a liveness
// bound of the longest lease plus the largest of each node's bound beyond
// its lease; each node runs its own settings.
func TestConfiguredFollowsEachNodesSettings(t *testing.T) {
	base := elector.DefaultSettings
	fast := elector.Settings{LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 300 * time.Millisecond,
		RequestTimeout: 700 * time.Millisecond, ClockDriftPPM: 5000}
	slow := elector.Settings{LeaseDuration: 12 * time.Second, RenewDeadline: 6 * time.Second, RetryPeriod: 4 * time.Second,
		RequestTimeout: 3 * time.Second, ClockDriftPPM: 100, ReleaseOnCancel: true}
	plan := &faults.Plan{Settings: []faults.Settings{fast.Plan(1), slow.Plan(3)}}
	p, err := harness.Configured(elector.Protocol(base), plan, 5)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Assumptions
	if a.MaxDriftPPM != 100 || a.Lease != 12*time.Second || a.Term != 6*time.Second || a.MaxPause != fast.Assumptions().MaxPause {
		t.Errorf("assumptions %+v", a)
	}
	for i, want := range []time.Duration{base.Assumptions().MaxPause, fast.Assumptions().MaxPause, base.Assumptions().MaxPause, slow.Assumptions().MaxPause} {
		if got := p.PauseBound(i); got != want {
			t.Errorf("n%d's pause bound %v, want %v", i, got, want)
		}
	}
	if want := 12*time.Second + 3*4*time.Second + 3*3*time.Second; p.LivenessBound != want {
		t.Errorf("liveness bound %v, want %v", p.LivenessBound, want)
	}
	if _, err := harness.Configured(elector.Protocol(base), &faults.Plan{Settings: []faults.Settings{{Node: 0, Lease: faults.Duration(time.Second),
		RenewDeadline: faults.Duration(time.Second), RetryPeriod: faults.Duration(time.Second)}}}, 5); err == nil {
		t.Error("settings the elector refuses were accepted")
	}
	// Each node runs its own: the slow node's first acquisition states
	// its 12 s lease in the record.
	plan.HealAt = faults.Duration(time.Second)
	plan.Events = []faults.Event{{Kind: faults.Pause, Node: 0, At: 0, For: faults.Duration(500 * time.Millisecond)}}
	o := runElector(t, plan, 30*time.Second)
	if o.Verdict != harness.Pass {
		t.Fatalf("verdict %v %v", o.Verdict, o.Violations)
	}
}

// TestInitialContentIsTheFirstWrite: the lock object's content before the
// run is written before any node starts, as the first request of the S3
// history (by no node), and the elector takes over from it: the first
// term's token is above the record's (at least its token plus one, and at
// least the acquirer's wall clock in Unix milliseconds, which here starts
// at sim.Epoch); after the largest token (which it refuses) it waits a
// lease and starts from its own clock; content no elector wrote excuses
// the token violations that follow.
func TestInitialContentIsTheFirstWrite(t *testing.T) {
	for _, c := range []struct {
		name    string
		obj     faults.Object
		first   uint64 // least token of the first term: the record's plus one
		after   time.Duration
		foreign bool
	}{
		{"released", faults.Object{Record: &faults.Record{Holder: "gone", Token: 41, Released: true}}, 42, 0, false},
		{"live", faults.Object{Record: &faults.Record{Holder: "n3", Token: 7}}, 8, elector.DefaultSettings.LeaseDuration, false},
		{"2^40", faults.Object{Record: &faults.Record{Holder: "gone", Token: 1 << 40, Released: true}}, 1<<40 + 1, 0, false},
		{"largest", faults.Object{Record: &faults.Record{Holder: "x", Token: math.MaxUint64}}, 1, elector.DefaultSettings.LeaseDuration, true},
		{"largest less one", faults.Object{Record: &faults.Record{Holder: "x", Token: math.MaxUint64 - 1, Released: true}}, math.MaxUint64, 0, true},
		{"bytes", faults.Object{Body: "junk"}, 1, elector.DefaultSettings.LeaseDuration, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := c.obj
			o := runElector(t, &faults.Plan{HealAt: faults.Duration(time.Second), Initial: &obj}, 40*time.Second)
			h := o.Result.History
			first := h.S3[0]
			if first.Node != -1 || first.Op != "PutObject" || first.Call != 0 || first.Status != 200 {
				t.Fatalf("first request %+v; want the initial content, by no node, at 0", first)
			}
			// The acquirer's wall clock (no offset here) reads between the
			// epoch and the end of the run when it sends its create.
			lo, hi := max(c.first, uint64(sim.Epoch.UnixMilli())), max(c.first, uint64(sim.Epoch.Add(40*time.Second).UnixMilli()))
			if len(h.Terms) == 0 || h.Terms[0].Token < lo || h.Terms[0].Token > hi || h.Terms[0].Start < c.after {
				t.Fatalf("terms %+v; want the first with a token in [%d, %d], not before %v", h.Terms, lo, hi, c.after)
			}
			if o.Verdict != harness.Pass {
				t.Fatalf("verdict %v: %v", o.Verdict, o.Violations)
			}
			if got := len(o.Outside) > 0; got != c.foreign {
				t.Fatalf("outside the assumptions %v (%q), want %v", got, o.Outside, c.foreign)
			}
		})
	}
}

// TestRoleEventsHitTheNodeInTheRole: a pause aimed at the leader hits the
// node that leads when it fires; a crash of every node restarts every node
// with new identities; a delete just before a renewal lands makes S3
// answer that renewal 404.
func TestRoleEventsHitTheNodeInTheRole(t *testing.T) {
	plan := &faults.Plan{HealAt: faults.Duration(30 * time.Second), Events: []faults.Event{
		{Kind: faults.Pause, Role: faults.RoleLeader, At: faults.Duration(5 * time.Second), For: faults.Duration(300 * time.Millisecond)},
		{Kind: faults.Crash, Target: faults.TargetAll, At: faults.Duration(10 * time.Second), For: faults.Duration(time.Second), Identity: "-b"},
		{Kind: faults.DeleteLock, Role: faults.RoleRenewer, At: faults.Duration(20 * time.Second)},
	}}
	o := runElector(t, plan, 60*time.Second)
	h := o.Result.History
	leaderAt := func(at time.Duration) int {
		for _, tm := range h.Terms {
			if tm.Start <= at && at < tm.End {
				return tm.Node
			}
		}
		return -1
	}
	var paused, crashed, restarted int
	for _, f := range h.Faults {
		switch {
		case f.Kind == "pause":
			paused++
			if f.From < 5*time.Second || f.Node != leaderAt(f.From) {
				t.Errorf("pause %v: not the leader's (n%d leads)", f, leaderAt(f.From))
			}
		case f.Kind == "crash" && f.From == 10*time.Second:
			crashed++
		case f.Kind == "restart" && f.From == 11*time.Second:
			restarted++
		}
	}
	if paused != 1 || crashed != 5 || restarted != 5 {
		t.Errorf("%d pauses, %d crashes at 10s, %d restarts at 11s; want 1, 5, 5", paused, crashed, restarted)
	}
	for _, tm := range h.Terms {
		if tm.Start > 11*time.Second && !strings.HasSuffix(tm.Identity, "-b") {
			t.Errorf("term %+v after the restart under an old identity", tm)
		}
	}
	del := slices.IndexFunc(h.S3, func(op sim.S3Op) bool { return op.Node == -1 && op.Op == "DeleteObject" })
	if del < 0 {
		t.Fatal("no delete")
	}
	renewal := -1
	for i, op := range h.S3 {
		if op.Op == "PutObject" && op.IfMatch != "" && op.Node >= 0 && op.Call < h.S3[del].Call && op.Return > h.S3[del].Call {
			renewal = i
		}
	}
	if renewal < 0 || h.S3[renewal].Status != 404 {
		t.Fatalf("the renewal in flight at the delete: %+v; want a 404", h.S3[max(renewal, 0)])
	}
	if o.Verdict != harness.Pass {
		t.Fatalf("verdict %v: %v", o.Verdict, o.Violations)
	}
}

// TestWritesThatLandAfterTheHealMoveIt: a write sent before the heal and
// delayed past it is recorded where it landed, and liveness is judged
// from there.
func TestWritesThatLandAfterTheHealMoveIt(t *testing.T) {
	plan := &faults.Plan{HealAt: faults.Duration(20 * time.Second), Events: []faults.Event{
		{Kind: faults.RequestDelayed, Role: faults.RoleRenewer, At: faults.Duration(19 * time.Second), By: faults.Duration(4 * time.Second)},
		{Kind: faults.Crash, Role: faults.RoleLeader, At: faults.Duration(19500 * time.Millisecond), For: faults.Duration(100 * time.Millisecond)},
	}}
	o := runElector(t, plan, 60*time.Second)
	var landed *sim.FaultSpan
	for i, f := range o.Result.History.Faults {
		if f.Kind == faults.KindLandedAfterHeal {
			landed = &o.Result.History.Faults[i]
		}
	}
	if landed == nil || landed.From >= 20*time.Second || landed.To < 22*time.Second {
		t.Fatalf("landed-after-heal span %v; want one sent before 20s that landed after 22s", landed)
	}
	if got := harness.HealedAt(plan, o.Result.History); got < landed.To {
		t.Fatalf("healed at %v, before the write landed at %v", got, landed.To)
	}
	if o.Verdict != harness.Pass {
		t.Fatalf("verdict %v: %v", o.Verdict, o.Violations)
	}
}

// TestNewFaultsAreExcusedAsTheyHappened: a restore excuses token
// violations from it on, as other foreign writes do; slow work counts
// with a node's pauses against its pause bound.
func TestNewFaultsAreExcusedAsTheyHappened(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	bound := p.Assumptions.MaxPause
	h := &sim.History{End: time.Minute, Faults: []sim.FaultSpan{
		{Kind: "restore", Node: -1, From: 5 * time.Second, To: 5 * time.Second},
		{Kind: "slow-work", Node: 2, From: 10 * time.Second, To: 10*time.Second + bound/2},
		{Kind: "pause", Node: 2, From: 10*time.Second + bound/3, To: 10*time.Second + bound + time.Millisecond},
		{Kind: "slow-work", Node: 3, From: 10 * time.Second, To: 10*time.Second + bound/2},
	}}
	xs := harness.Excuses(p, &faults.Plan{}, h)
	var tokens, node2, node3 bool
	for _, x := range xs {
		tokens = tokens || x.Tokens && x.From == 5*time.Second
		node2 = node2 || x.Node == 2 && strings.Contains(x.Why, "slow-work + pause")
		node3 = node3 || x.Node == 3
	}
	if !tokens || !node2 || node3 {
		t.Fatalf("excuses %v; want a restore's token excuse and n2's merged slow work and pause, nothing for n3", xs)
	}
}
