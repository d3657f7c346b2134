package sim

import (
	"context"
	"testing"
	"time"
)

// TestReportsChangeNothing: what a node's code reports through Env.Report
// is in Result.Reports, in order, with the node, its incarnation, the true
// time and the words given; the run is the same, trace and hash, as the
// run that reports nothing.
func TestReportsChangeNothing(t *testing.T) {
	candidate := func(report bool) Candidate {
		return func(ctx context.Context, env Env) error {
			if env.Node == 1 {
				env.Clock.Go(func() {
					for i := range 2 {
						if env.Clock.Sleep(ctx, time.Second) != nil {
							return
						}
						if report {
							env.Report("check", []string{"first", "second"}[i])
						}
					}
				})
			}
			return naiveLease(ctx, env)
		}
	}
	plain := mustRun(t, testConfig(3, 10*time.Second, candidate(false)))
	got := mustRun(t, testConfig(3, 10*time.Second, candidate(true)))
	if got.Hash() != plain.Hash() || got.Steps != plain.Steps {
		t.Fatalf("reporting: hash %x, %d steps; without %x, %d steps", got.Hash(), got.Steps, plain.Hash(), plain.Steps)
	}
	if plain.Reports != nil {
		t.Fatalf("reports of a run that reports nothing: %+v", plain.Reports)
	}
	rs := got.Reports
	if len(rs) != 2 {
		t.Fatalf("%d reports, want 2: %+v", len(rs), rs)
	}
	for i, want := range []string{"first", "second"} {
		if r := rs[i]; r.Node != 1 || r.Incarnation != 1 || r.Checker != "check" || r.Message != want {
			t.Fatalf("report %d: %+v", i, r)
		}
	}
	if !(0 < rs[0].At && rs[0].At < rs[1].At && rs[1].At < got.History.End) {
		t.Fatalf("reports at %v and %v of a run that ended at %v", rs[0].At, rs[1].At, got.History.End)
	}
}
