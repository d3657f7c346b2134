package elector_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// fed is a node's incarnation whose Transition hook a feeding candidate
// fed an extra transition.
type fed struct{ node, incarnation int }

// feeding runs the production elector with settings s, whose Metrics
// hooks are the configuration's (Settings.Config) chained by hooks
// of the candidate's own; each time the elector takes the transition
// when, those feed the configuration's hook extra, twice, and note the
// incarnation in *fedTo the first time.
func feeding(t *testing.T, s elector.Settings, when, extra protocol.Transition, fedTo *[]fed) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := s.Config(env)
		hook, noted := cfg.Metrics.Transition, false
		if hook == nil {
			t.Errorf("node %d: the configuration has no Transition hook", env.Node)
			return errors.New("no Transition hook")
		}
		cfg.Metrics.Transition = func(tr protocol.Transition) {
			hook(tr)
			if tr == when {
				hook(extra)
				hook(extra)
				if !noted {
					*fedTo = append(*fedTo, fed{env.Node, env.Incarnation})
					noted = true
				}
			}
		}
		e, err := protocol.NewElector(cfg)
		if err != nil {
			return err
		}
		elector.ReportLease(env, e)
		return e.Run(ctx)
	}
}

// renewalDue is the transition a leader takes when its renewal is due:
// every term that lasts a renewal period takes it.
var renewalDue = protocol.Transition{From: protocol.PhaseLeading, Cause: protocol.CauseRenewalDue, To: protocol.PhaseRenewing}

// runFed runs seed of the swarm of the production elector (with the
// default settings for every node, so that the candidate is feeding's)
// twice: as it is, and with its hooks fed extra at each renewal due. It
// returns both outcomes and the incarnations fed.
func runFed(t *testing.T, seed uint64, coverage bool, extra protocol.Transition) (plain, with *harness.Outcome, fedTo []fed) {
	t.Helper()
	p := elector.Protocol(elector.DefaultSettings)
	p.Configure = nil
	if !coverage {
		p.Coverage = nil
	}
	q := p
	q.Candidate = feeding(t, elector.DefaultSettings, renewalDue, extra, &fedTo)
	var err error
	if plain, err = harness.RunSeed(harness.Swarm("transitions-plain", p), seed, false); err != nil {
		t.Fatal(err)
	}
	if with, err = harness.RunSeed(harness.Swarm("transitions-fed", q), seed, false); err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	return plain, with, fedTo
}

// TestUndeclaredTransitionIsUnsafe: a transition that protocol.Transitions()
// does not declare, reported through the hook that Settings.Config
// installs (here by a candidate that chains hooks of its own to it, with
// and without the elector's coverage sets), makes the run Unsafe with one
// TransitionsCheck violation for each incarnation that reported it (its
// first only), which no fault excuses, that names the node, the
// incarnation, the transition and the true time, at which the node led.
// The report changes nothing in the run: its trace is the same as that of
// the run without it.
func TestUndeclaredTransitionIsUnsafe(t *testing.T) {
	undeclared := protocol.Transition{From: protocol.PhaseStopped, Cause: protocol.CauseOK, To: protocol.PhaseLeading}
	if undeclared.Declared() {
		t.Fatalf("%v is declared", undeclared)
	}
	for _, coverage := range []bool{true, false} {
		runs := 0
		for seed := uint64(1); seed <= 20; seed++ {
			what := fmt.Sprintf("coverage %v, seed %d", coverage, seed)
			plain, with, fedTo := runFed(t, seed, coverage, undeclared)
			if plain.Result.Hash() != with.Result.Hash() {
				t.Fatalf("%s: the report changed the run: trace %016x, %016x without it", what, with.Result.Hash(), plain.Result.Hash())
			}
			for _, v := range plain.Violations {
				if v.Checker == elector.TransitionsCheck {
					t.Fatalf("%s: the elector as it is: %v", what, v)
				}
			}
			for _, x := range with.Excused {
				if x.Checker == elector.TransitionsCheck {
					t.Fatalf("%s: excused: %v", what, x.Violation)
				}
			}
			var found []string
			for _, v := range with.Violations {
				if v.Checker == elector.TransitionsCheck {
					found = append(found, v.Message)
					checkFedViolation(t, what, with, v, undeclared)
				}
			}
			if len(found) != len(fedTo) {
				t.Fatalf("%s: %d incarnations fed %v, %d violations: %q", what, len(fedTo), undeclared, len(found), found)
			}
			for i, f := range fedTo {
				if want := fmt.Sprintf("node %d, incarnation %d, ", f.node, f.incarnation); !strings.HasPrefix(found[i], want) {
					t.Fatalf("%s: violation %d: %q, want it to begin %q", what, i, found[i], want)
				}
			}
			if len(fedTo) == 0 {
				if with.Verdict != plain.Verdict {
					t.Fatalf("%s: nothing fed, but the verdict is %v, %v without the hooks", what, with.Verdict, plain.Verdict)
				}
				continue
			}
			runs++
			if with.Verdict != harness.Unsafe {
				t.Fatalf("%s: verdict %v, want unsafe", what, with.Verdict)
			}
		}
		if runs < 10 {
			t.Fatalf("coverage %v: only %d of 20 runs had a term that renewed", coverage, runs)
		}
	}
}

// checkFedViolation checks a violation of tr, fed at a renewal due: it
// names one node, which led at its instant, and says when and which
// transition.
func checkFedViolation(t *testing.T, what string, o *harness.Outcome, v linearizability.Violation, tr protocol.Transition) {
	t.Helper()
	h := o.Result.History
	if len(v.Nodes) != 1 {
		t.Fatalf("%s: nodes %v in %v", what, v.Nodes, v)
	}
	if !strings.Contains(v.Message, tr.String()) || !strings.Contains(v.Message, fmt.Sprintf("at %v:", v.At)) {
		t.Fatalf("%s: %q does not say %v at %v", what, v.Message, tr, v.At)
	}
	// An application that polls (sim.AppPolls) records its term only to
	// its last act, which may come before its elector's renewal is due.
	polls := slices.ContainsFunc(o.Plan.Apps, func(a faults.App) bool { return a.Node == v.Nodes[0] && a.Mode == sim.AppPolls })
	for _, term := range h.Terms {
		if term.Node == v.Nodes[0] && term.Start <= v.At && (term.Open || v.At <= term.End || polls) {
			return
		}
	}
	t.Fatalf("%s: node %d led at no term around %v: %v", what, v.Nodes[0], v.At, v)
}

// TestDeclaredTransitionIsNoViolation: a declared transition reported
// through the same hook is no violation: the run is judged as it is
// without it.
func TestDeclaredTransitionIsNoViolation(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		plain, with, _ := runFed(t, seed, true, renewalDue)
		if with.Verdict != plain.Verdict || len(with.Violations) != len(plain.Violations) {
			t.Fatalf("seed %d: %v %v; %v %v without the extra transition", seed, with.Verdict, with.Violations, plain.Verdict, plain.Violations)
		}
	}
}
