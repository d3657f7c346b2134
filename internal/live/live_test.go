package live

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// runLive runs cfg within a deadline of a few times its duration and logs
// the summary.
func runLive(t *testing.T, cfg Config) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(cfg.Duration, DefaultDuration)+60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("run took %v (wall, with setup, shutdown and checks)\n%s", time.Since(start).Round(time.Millisecond), b.String())
	return res
}

// requireSafeAndElected fails unless every checker passed (liveness aside,
// which a run with faults does not promise) and leaders made fenced writes.
func requireSafeAndElected(t *testing.T, res *Result) {
	t.Helper()
	if res.Verdict != harness.Pass {
		t.Errorf("verdict %s, want pass; violations: %v", res.Verdict, res.Violations)
	}
	for _, c := range res.Checks {
		if c.Verdict == CheckFail || c.Verdict == CheckUnknown {
			t.Errorf("check %s: %s %v", c.Name, c.Verdict, c.Violations)
		}
	}
	if res.Size.Terms == 0 {
		t.Errorf("no leader was elected")
	}
	if res.Restarts > 0 && res.Size.Tokens < 2 {
		t.Errorf("%d leaders restarted but %d tokens handed out; want a takeover", res.Restarts, res.Size.Tokens)
	}
	if res.Size.Accepted < 5 {
		t.Errorf("%d fenced writes accepted, want at least 5", res.Size.Accepted)
	}
	if res.Size.S3Ops == 0 || res.Proxy.Requests == 0 {
		t.Errorf("%d S3 requests recorded, %d through the proxy", res.Size.S3Ops, res.Proxy.Requests)
	}
}

// faultyConfig is a short steady run with every fault the proxy knows, and
// the leader restarted every 1.2 s (released, then abandoned, then
// released), so that the run sees takeovers of both kinds.
func faultyConfig(seed uint64) Config {
	return Config{Nodes: 3, Phases: Steady(5 * time.Second), Seed: seed, Faults: DefaultFaults(), RestartLeaderEvery: 1200 * time.Millisecond}
}

// defaultRun is the run `simrun live` makes by default, with nodes
// electors: DefaultPhases over DefaultDuration, with DefaultFaults.
func defaultRun(nodes int) Config {
	return Config{Nodes: nodes, Seed: 1, Faults: DefaultFaults()}
}

// requirePhasesExercised fails unless every default phase did what it is
// for: creation races, contested If-Match takeovers, crashes taken over,
// faults.
func requirePhasesExercised(t *testing.T, res *Result) {
	t.Helper()
	if len(res.Phases) != len(DefaultPhases(DefaultDuration)) {
		t.Fatalf("%d phases, want the %d default ones", len(res.Phases), len(DefaultPhases(DefaultDuration)))
	}
	for _, p := range res.Phases {
		var ok bool
		switch p.Kind {
		case PhaseCreationRaces:
			ok = p.Rounds > 1 && p.CreationRaces > 0
		case PhaseRestartRaces:
			ok = p.Rounds > 1 && p.ContestedIfMatch > 0
		case PhaseCrashTakeovers:
			ok = p.Crashes > 0 && p.Terms > 0
		case PhaseContention:
			ok = p.Faults.Total() > 0 && p.ReadsRacingWrites > 0
		}
		if p.Kind.rounds() && p.Faults.Aligned == 0 {
			ok = false // the proxy held no conditional write to align it with others
		}
		if !ok {
			t.Errorf("phase %s did not exercise what it is for: %s (aligned %d)", p.Kind, p, p.Faults.Aligned)
		}
	}
}

// TestLiveDefaultRun: a default run against the embedded gofakes3 finds
// nothing wrong, and every phase exercised what it is for.
func TestLiveDefaultRun(t *testing.T) {
	res := runLive(t, defaultRun(3))
	requireSafeAndElected(t, res)
	requirePhasesExercised(t, res)
	if len(res.Keys) < 2 || res.Keys[0] != res.Key+".create-1" {
		t.Errorf("keys %v: want the creation races' keys, then %s", res.Keys, res.Key)
	}
}

func TestLiveGoFakeS3WithFaults(t *testing.T) {
	res := runLive(t, faultyConfig(1))
	requireSafeAndElected(t, res)
	f := res.Proxy.Faults
	if f.Latency == 0 || f.Total() == 0 {
		t.Errorf("faults injected: %+v; want latency and others", f)
	}
	if res.Size.Unanswered == 0 && f.DroppedAnswers+f.CutBefore > 0 {
		t.Errorf("%d answers dropped and %d connections cut, but no request is recorded without an answer", f.DroppedAnswers, f.CutBefore)
	}
	// The history is the simulator's, in its JSON.
	data, err := json.Marshal(res.History)
	if err != nil {
		t.Fatal(err)
	}
	var back sim.History
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("the history does not read back: %v", err)
	}
	if len(back.S3) != len(res.History.S3) || len(back.Terms) != len(res.History.Terms) || len(back.Writes) != len(res.History.Writes) {
		t.Errorf("the history read back differs in size")
	}
	doc, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(doc, &fields); err != nil {
		t.Fatal(err)
	}
	if string(fields["verdict"]) != `"pass"` || fields["history"] == nil || fields["checks"] == nil {
		t.Errorf("the result's JSON lacks its verdict, history or checks: verdict %s", fields["verdict"])
	}
}

// TestLiveBrokenStoreIsCaught strips the conditions from every request, so
// that the store accepts every write. The electors start together and read
// at once, and every request is held 100 ms by the proxy: a write is sent
// only after a read's answer, so it reaches the store at least 200 ms after
// its elector started, and every elector whose first read was sent within
// 100 ms of the first elector's finds the key absent, creates it
// (If-None-Match: *, stripped) and is told it won. Starting three goroutines
// takes microseconds, so all three do: several leaders at once on real time,
// and accepted creates of a key that exists. The overlap check and the S3
// linearizability check must both fail. (Unique-holder is not asserted: a
// first token is floored at the creator's wall clock in milliseconds, so the
// holders share a token only when they created within one millisecond.) It
// would take two electors starting more than 100 ms late for only one to
// win, and with it the run to look safe: a leader renews every RetryPeriod,
// so a follower that saw its record never sees it unchanged for a lease.
func TestLiveBrokenStoreIsCaught(t *testing.T) {
	cfg := Config{Nodes: 3, Phases: Steady(2 * time.Second), Seed: 7, Faults: Faults{
		Latency: 1, MinLatency: 100 * time.Millisecond, MaxLatency: 100 * time.Millisecond,
		StripConditions: true,
	}}
	res := runLive(t, cfg)
	if res.Verdict != harness.Unsafe {
		t.Fatalf("verdict %s, want unsafe", res.Verdict)
	}
	if res.Proxy.Faults.Stripped == 0 {
		t.Errorf("no condition was stripped")
	}
	for _, name := range []string{CheckOverlap, CheckS3Linearizable} {
		if c, _ := res.Check(name); c.Verdict != CheckFail {
			t.Errorf("check %s: %s, want fail", name, c.Verdict)
		}
	}
	// Unique-holder fails exactly when two node incarnations hold one token.
	type holder struct{ node, incarnation int }
	holders := map[uint64]holder{}
	shared := false
	for _, term := range res.History.Terms {
		h := holder{term.Node, term.Incarnation}
		if prev, ok := holders[term.Token]; ok && prev != h {
			shared = true
		}
		holders[term.Token] = h
	}
	want := CheckPass
	if shared {
		want = CheckFail
	}
	if c, _ := res.Check("unique-holder"); c.Verdict != want {
		t.Errorf("check unique-holder: %s, want %s (a token shared by two terms: %v)", c.Verdict, want, shared)
	}
}

// TestLiveWithoutFaults is the baseline: no fault, no restart, long enough
// for liveness to be judged (the protocol's bound is 2.85 s with the
// defaults), and one leader for the whole run.
func TestLiveWithoutFaults(t *testing.T) {
	res := runLive(t, Config{Nodes: 3, Phases: Steady(3 * time.Second), Seed: 1})
	requireSafeAndElected(t, res)
	if c, _ := res.Check(CheckLiveness); c.Verdict != CheckPass {
		t.Errorf("liveness: %s (%s), want pass", c.Verdict, c.Note)
	}
	// Without faults, a request gets no answer only if it is in flight when
	// the run ends: one per node at most.
	if res.Size.Unanswered > res.History.Nodes || res.Size.Failed > 0 || res.Proxy.Faults.Total() > 0 {
		t.Errorf("a run without faults has %d requests without answer and %d failed; faults %+v", res.Size.Unanswered, res.Size.Failed, res.Proxy.Faults)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []Config{
		{Nodes: -1},
		{Faults: Faults{DropAnswer: 0.7, Cut: 0.5}},
		{Faults: Faults{Latency: 2}},
		{Faults: Faults{Latency: 1, MinLatency: time.Second, MaxLatency: time.Millisecond}},
		{RenewDeadline: 2 * time.Second}, // not below the default lease
		{Endpoints: []string{"ftp://example.invalid"}},
		{Endpoints: []string{"http://127.0.0.1:1", "http://127.0.0.1:1"}},
		{Phases: []Phase{{Kind: "warm-up", Duration: time.Second}}},
		{Phases: []Phase{{Kind: PhaseSteady}}},
		{Duration: time.Second, Phases: Steady(2 * time.Second)},
	} {
		if _, err := Run(context.Background(), c); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Run(%+v): %v, want ErrInvalidConfig", c, err)
		}
	}
}
