package protocol_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/internal/catalog"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sim"
)

// These tests run the production elector under the simulator, with its
// Metrics hooks and query methods watched from inside the simulation.

// electorLog is what one incarnation's Metrics hooks reported.
type electorLog struct {
	node, incarnation int
	transitions       []protocol.Transition
	requests          []protocol.Request
	started           []protocol.Lease
	ended             []protocol.TermEnd
}

// instrumented runs the production elector with settings s, recording each
// incarnation's hooks in a new electorLog appended to *logs; watch, if set,
// is called with the elector before Run (on the candidate's goroutine).
func instrumented(s elector.Settings, logs *[]*electorLog, watch func(ctx context.Context, env sim.Env, e *protocol.Elector)) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		l := &electorLog{node: env.Node, incarnation: env.Incarnation}
		*logs = append(*logs, l)
		cfg := s.Config(env)
		cover := cfg.Metrics // the harness's coverage hooks, kept
		cfg.Metrics = protocol.Metrics{
			Transition: func(t protocol.Transition) {
				l.transitions = append(l.transitions, t)
				if cover.Transition != nil {
					cover.Transition(t)
				}
			},
			Request: func(r protocol.Request) {
				l.requests = append(l.requests, r)
				if cover.Request != nil {
					cover.Request(r)
				}
			},
			TermStarted: func(lease protocol.Lease) { l.started = append(l.started, lease) },
			TermEnded:   func(end protocol.TermEnd) { l.ended = append(l.ended, end) },
		}
		e, err := protocol.NewElector(cfg)
		if err != nil {
			return err
		}
		if watch != nil {
			watch(ctx, env, e)
		}
		return e.Run(ctx)
	}
}

// checkLog asserts what holds of every incarnation's report: it starts at
// Run's start, every transition is declared and begins where the last one
// ended, every term that started is reported ended (but the last, if the
// run stopped during it) with its token and a hold time, and every request
// has a purpose and a latency.
func checkLog(t *testing.T, what string, l *electorLog) {
	t.Helper()
	for i, tr := range l.transitions {
		if !tr.Declared() {
			t.Errorf("%s n%d#%d: transition %d, %v, is not among protocol.Transitions()", what, l.node, l.incarnation, i, tr)
		}
		switch {
		case i == 0 && (tr.From != protocol.PhaseStopped || tr.Cause != protocol.CauseStart):
			t.Errorf("%s n%d#%d: first transition %v; want stopped --start--> ...", what, l.node, l.incarnation, tr)
		case i > 0 && tr.From != l.transitions[i-1].To:
			t.Errorf("%s n%d#%d: transition %d, %v, does not begin where %v ended", what, l.node, l.incarnation, i, tr, l.transitions[i-1])
		}
	}
	if n, m := len(l.started), len(l.ended); m != n && m != n-1 {
		t.Errorf("%s n%d#%d: %d terms started, %d ended", what, l.node, l.incarnation, n, m)
	}
	for i, end := range l.ended {
		if end.Token != l.started[i].Token || end.Held < 0 {
			t.Errorf("%s n%d#%d: term %d started %+v, ended %+v", what, l.node, l.incarnation, i, l.started[i], end)
		}
	}
	for _, r := range l.requests {
		if (r.Op != "GetObject" && r.Op != "PutObject") || r.Latency < 0 || r.Purpose.String() == "" {
			t.Errorf("%s n%d#%d: request %+v", what, l.node, l.incarnation, r)
		}
	}
}

// TestTransitionsAreDeclared runs the production elector through the swarm
// and every failure-mode scenario of the production elector (each with the
// default settings), and checks every incarnation's transitions against
// protocol.Transitions(), the single list a coverage report builds on, and
// the run's coverage (harness.Outcome.Reached) against what the Metrics
// hook reported: each transition marked as many times as it was taken. It
// logs which declared transitions no run reached.
func TestTransitionsAreDeclared(t *testing.T) {
	declared := protocol.Transitions()
	if !slices.IsSortedFunc(declared, func(a, b protocol.Transition) int { return strings.Compare(key(a), key(b)) }) {
		t.Errorf("Transitions() is not ordered by phase, cause and destination")
	}
	for i := 1; i < len(declared); i++ {
		if declared[i] == declared[i-1] {
			t.Errorf("Transitions() lists %v twice", declared[i])
		}
	}
	reached := map[protocol.Transition]int{}
	runs := 0
	project := catalog.New()
	for _, name := range project.Names() {
		sc, err := project.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		seeds := uint64(12)
		if name == scenarios.Swarm.Name {
			seeds = 400
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			setup := sc.Build(seed)
			if setup.Protocol.Name != "elector" {
				break
			}
			var logs []*electorLog
			setup.Protocol.Candidate = instrumented(elector.DefaultSettings, &logs, nil)
			if setup.Plan != nil && len(setup.Plan.Settings) > 0 {
				// The default settings: a plan's own would run the
				// elector they configure in place of this candidate.
				plan := *setup.Plan
				plan.Settings = nil
				setup.Plan = &plan
			}
			o, err := harness.RunSetup(setup, false)
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			if o.Verdict == harness.Crashed || o.Verdict == harness.Blocked {
				t.Fatalf("%s seed %d: %v %v", name, seed, o.Verdict, o.Result.Failure)
			}
			runs++
			taken := map[protocol.Transition]uint32{}
			for _, l := range logs {
				checkLog(t, fmt.Sprintf("%s seed %d", name, seed), l)
				for _, tr := range l.transitions {
					reached[tr]++
					taken[tr]++
				}
			}
			if o.Coverage[0].Name != elector.TransitionsSet {
				t.Fatalf("%s seed %d: coverage sets %v", name, seed, o.Coverage)
			}
			for i, tr := range declared {
				if got := o.Reached.Hits(i); got != taken[tr] {
					t.Fatalf("%s seed %d: %v marked %d times in the run's coverage, reported %d times", name, seed, tr, got, taken[tr])
				}
			}
		}
	}
	var never []string
	for _, tr := range declared {
		if reached[tr] == 0 {
			never = append(never, tr.String())
		}
	}
	t.Logf("%d runs reached %d of the %d declared transitions; never reached: %s", runs, len(declared)-len(never), len(declared), strings.Join(never, "; "))
	// The paths every election takes, and the answers the swarm always
	// draws, are reached.
	for _, tr := range []protocol.Transition{
		{protocol.PhaseStopped, protocol.CauseStart, protocol.PhaseReading},
		{protocol.PhaseReading, protocol.CauseNotFound, protocol.PhaseAcquiring},
		{protocol.PhaseAcquiring, protocol.CauseOK, protocol.PhaseLeading},
		{protocol.PhaseAcquiring, protocol.CausePreconditionFailed, protocol.PhaseReading},
		{protocol.PhaseLeading, protocol.CauseRenewalDue, protocol.PhaseRenewing},
		{protocol.PhaseRenewing, protocol.CauseOK, protocol.PhaseLeading},
		{protocol.PhaseRenewing, protocol.CauseConflict, protocol.PhaseCheckingRenewal},
		{protocol.PhaseReading, protocol.CauseOK, protocol.PhaseAwaitingExpiry},
		{protocol.PhaseAwaitingExpiry, protocol.CauseExpired, protocol.PhaseAcquiring},
		{protocol.PhaseLeading, protocol.CauseExpired, protocol.PhaseReading},
		{protocol.PhaseLeading, protocol.CauseShutdown, protocol.PhaseReleasing},
		{protocol.PhaseReleasing, protocol.CauseOK, protocol.PhaseStopped},
		{protocol.PhaseReading, protocol.CauseOK, protocol.PhaseResumingOwn},
		{protocol.PhaseResumingOwn, protocol.CauseOK, protocol.PhaseLeading},
		{protocol.PhaseReading, protocol.CauseNotFound, protocol.PhaseAwaitingExpiry},
	} {
		if reached[tr] == 0 {
			t.Errorf("no run reached %v", tr)
		}
	}
}

func key(t protocol.Transition) string {
	return fmt.Sprintf("%03d %03d %03d", t.From, t.Cause, t.To)
}

// sample is one look at an elector from inside the simulation.
type sample struct {
	at     time.Duration // true time (the scenario's wall clocks are exact)
	health error
	leader protocol.LeaderInfo
}

// TestHealthAndLeaderUnderZombieApp: in the zombie-app scenario every
// application ignores the end of its term for 5-9 s, and the first leader
// is cut off from S3 so that its term ends at its deadline. A monitor
// inside each node polls Healthy(1s) and Leader() every 200 ms. The old
// leader's elector turns unhealthy once its callback has run on for more
// than the tolerance past its term (no new term can begin on that node),
// and healthy again once the application stops; no other node is ever
// unhealthy. Leader() on a node that leads reports itself; on the others
// it names the holder, and its age grows while a node cannot reach S3.
func TestHealthAndLeaderUnderZombieApp(t *testing.T) {
	const tolerance = time.Second
	s := elector.DefaultSettings
	unhealthySeeds, staleSeeds := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		setup := scenarios.ZombieApp.Build(seed)
		var logs []*electorLog
		samples := map[int][]sample{}
		setup.Protocol.Candidate = instrumented(s, &logs, func(ctx context.Context, env sim.Env, e *protocol.Elector) {
			env.Clock.Go(func() {
				for env.Clock.Sleep(ctx, 200*time.Millisecond) == nil {
					samples[env.Node] = append(samples[env.Node], sample{
						at: env.Clock.Now().Sub(sim.Epoch), health: e.Healthy(tolerance), leader: e.Leader(),
					})
				}
			})
		})
		o, err := harness.RunSetup(setup, false)
		if err != nil {
			t.Fatal(err)
		}
		h := o.Result.History
		for _, l := range logs {
			checkLog(t, fmt.Sprintf("zombie-app seed %d", seed), l)
		}
		// When each node's application lingered after a term.
		type span struct{ from, to time.Duration }
		lingered := map[int][]span{}
		for _, f := range h.Faults {
			if f.Kind == "linger" {
				lingered[f.Node] = append(lingered[f.Node], span{f.From, f.To})
			}
		}
		sawUnhealthy := false
		for node, ss := range samples {
			for _, sm := range ss {
				inLinger, pastTolerance := false, false
				for _, sp := range lingered[node] {
					// The term's deadline is at or before the linger's
					// start (the leader context ended then, or earlier).
					if sm.at > sp.from && sm.at < sp.to+100*time.Millisecond {
						inLinger = true
						pastTolerance = pastTolerance || sm.at > sp.from+tolerance+300*time.Millisecond && sm.at < sp.to-300*time.Millisecond
					}
				}
				switch {
				case sm.health != nil && !inLinger:
					t.Errorf("seed %d: n%d unhealthy at %v though no application lingered: %v", seed, node, sm.at, sm.health)
				case sm.health != nil && (!errors.Is(sm.health, protocol.ErrUnhealthy) || !strings.Contains(sm.health.Error(), "OnStartedLeading")):
					t.Errorf("seed %d: n%d at %v: %v; want the lingering callback named", seed, node, sm.at, sm.health)
				case sm.health == nil && pastTolerance:
					t.Errorf("seed %d: n%d healthy at %v while its application lingered %v past its term", seed, node, sm.at, lingered[node])
				case sm.health != nil:
					sawUnhealthy = true
				}
				checkLeaderSample(t, seed, node, sm, h)
			}
		}
		if sawUnhealthy {
			unhealthySeeds++
		}
		// The node cut off from S3 sees its observation age.
		for node, ss := range samples {
			for _, sm := range ss {
				if sm.leader.Observed && sm.leader.Age > 3*s.RetryPeriod {
					staleSeeds++
					t.Logf("seed %d: n%d at %v last observed the leader %v ago (%q)", seed, node, sm.at, sm.leader.Age, sm.leader.Identity)
					goto nextSeed
				}
			}
		}
	nextSeed:
	}
	if unhealthySeeds == 0 || staleSeeds == 0 {
		t.Errorf("%d seeds with an unhealthy elector, %d with a stale observation of the leader; want some of each", unhealthySeeds, staleSeeds)
	}
}

// checkLeaderSample checks one Leader() against the history: Self exactly
// when the node's term covers the instant (with a margin for the grant's
// and the end's propagation; a term of the history ends when its
// application stops, so a lingering application's term ends when it began
// to linger), and a follower's observation names a live holder that led at
// some time up to the observation.
func checkLeaderSample(t *testing.T, seed uint64, node int, sm sample, h *sim.History) {
	t.Helper()
	const margin = 100 * time.Millisecond
	leading, near := false, false
	for _, term := range h.Terms {
		if term.Node != node {
			continue
		}
		end := term.End
		if term.Open {
			end = h.End
		}
		for _, f := range h.Faults {
			if f.Kind == "linger" && f.Node == node && f.From >= term.Start && f.From < end {
				end = f.From
			}
		}
		if sm.at > term.Start+margin && sm.at < end-margin {
			leading = true
		}
		if sm.at > term.Start-margin && sm.at < end+margin {
			near = true
		}
	}
	if leading && !sm.leader.Self || sm.leader.Self && !near {
		t.Errorf("seed %d: n%d at %v: Leader() %+v, but the node leads: %v", seed, node, sm.at, sm.leader, leading)
	}
	if sm.leader.Identity == "" || sm.leader.Self {
		return
	}
	observedAt := sm.at - sm.leader.Age
	for _, term := range h.Terms {
		if term.Identity == sm.leader.Identity && term.Token == sm.leader.Token && term.Start <= observedAt+margin {
			return
		}
	}
	t.Errorf("seed %d: n%d at %v: Leader() %+v names no term that began before %v", seed, node, sm.at, sm.leader, observedAt)
}
