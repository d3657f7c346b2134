package harness_test

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

var pagesSwarm = harness.Swarm("test-html-pages", elector.Protocol(elector.DefaultSettings))

// TestElectorCreatesObjectBehindHTMLPages: behind a proxy whose error
// pages the SDK cannot read, a missing lock object reads as a 404 without
// an S3 code. The elector must still create it: swarm plans that start
// from no object, run behind such pages, pass, and on most of them a node
// leads.
func TestElectorCreatesObjectBehindHTMLPages(t *testing.T) {
	led := 0
	const seeds = 40
	for seed := uint64(1); seed <= seeds; seed++ {
		plan := harness.SwarmPlan(seed, 5, elector.Protocol(elector.DefaultSettings))
		plan.Initial = nil
		plan.ErrorPages = sim.ErrorPagesHTML.String()
		r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: pagesSwarm.Name, Seed: seed, Plan: plan}
		out, err := r.Run(pagesSwarm, false)
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != harness.Pass {
			t.Fatalf("seed %d behind HTML error pages: %v: %v", seed, out.Verdict, out.Violations)
		}
		if len(out.Result.History.Terms) > 0 {
			led++
		}
	}
	if led < seeds/2 {
		t.Errorf("a node led on %d of %d seeds behind HTML error pages", led, seeds)
	}
}
