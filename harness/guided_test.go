package harness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

// ladderPoints is the number of rungs of the ladder protocol's coverage.
const ladderPoints = 30

// ladder is a protocol with a planted coverage point: each node reads the
// lock object every 100 ms and never leads, and marks rung k when its k-th
// read is answered 409. Its scenario's plans refuse one of a node's reads
// with a 409: the first, or, drawing one in four again and again, each
// read after it, so that a seed reaches rung k one time in 4^(k-1); a
// guided campaign climbs to the higher ones by mutating the choices of the
// runs that reached a rung first.
var ladder = func() harness.Scenario {
	var names []string
	for k := 1; k <= ladderPoints; k++ {
		names = append(names, fmt.Sprintf("read %d answered 409", k))
	}
	p := harness.Protocol{
		Name: "ladder",
		Candidate: func(ctx context.Context, env sim.Env) error {
			for k := 0; ctx.Err() == nil; k++ {
				_, err := env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
				var status interface{ HTTPStatusCode() int }
				if errors.As(err, &status) && status.HTTPStatusCode() == 409 {
					env.Coverage.Hit(k)
				}
				_ = env.Clock.Sleep(ctx, 100*time.Millisecond)
			}
			return nil
		},
		Assumptions:     protocol.Assumptions{Lease: time.Second, MaxDriftPPM: 1000, MaxPause: 100 * time.Millisecond},
		NoFencingTokens: true,
		Coverage:        []harness.CoverageSet{{Name: "ladder rungs", Points: names}},
	}
	return harness.Drawn(harness.Scenario{
		Name: "test/ladder",
		Doc:  "two nodes read every 100 ms; one of a node's reads is refused 409, each later read one time in four as likely",
		Draw: func(seed uint64, src *faults.Source) harness.Setup {
			cfg := harness.World(seed)
			cfg.Nodes, cfg.Duration = 2, 5*time.Second
			s := src.Sub("ladder")
			nth := 1
			for nth < ladderPoints && s.OneIn(4) {
				nth++
			}
			plan := &faults.Plan{HealAt: faults.Duration(4 * time.Second), Events: []faults.Event{
				{Kind: faults.Refused, Node: s.Pick(2), Op: "GetObject", Nth: nth, Code: "ConditionalRequestConflict"},
			}}
			return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
		},
	})
}()

// rungs returns the ladder's rungs a run reached, from 1.
func rungs(o *harness.Outcome) []int {
	var out []int
	for k := range ladderPoints {
		if o.Reached.Has(k) {
			out = append(out, k+1)
		}
	}
	return out
}

// TestGuidedFindsPlantedPoint: no seed of the ladder's scenario, of as
// many as the budget, reaches a rung above 8 (one seed in 4^8 would); a
// guided campaign of the same budget climbs to rung 15, keeping in its
// corpus exactly the runs that reached something no run before them had,
// and only those.
func TestGuidedFindsPlantedPoint(t *testing.T) {
	const budget, target = 4000, 15
	for seed := uint64(1); seed <= budget; seed++ {
		o, err := harness.RunSeed(ladder, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if r := rungs(o); len(r) != 1 || r[0] > 8 {
			t.Fatalf("seed %d reached rungs %v", seed, r)
		}
	}
	var runs []*harness.GuidedRun
	reached := 0
	res, err := harness.Guided(context.Background(), harness.GuidedConfig{Scenario: ladder, Seed: 1, Start: 1, Runs: budget, Workers: 2,
		Done: func(r *harness.GuidedRun) bool {
			if r.Outcome.Verdict != harness.Pass {
				t.Errorf("run %d: %v %v", r.N, r.Outcome.Verdict, r.Outcome.Violations)
			}
			runs = append(runs, r)
			for _, k := range rungs(r.Outcome) {
				reached = max(reached, k)
			}
			return reached < target
		}})
	if err != nil {
		t.Fatal(err)
	}
	if reached < target {
		t.Fatalf("%d guided runs climbed to rung %d, not %d", len(runs), reached, target)
	}
	t.Logf("rung %d after %d guided runs (%d fresh, corpus of %d)", reached, len(runs), res.Fresh, len(res.Corpus))
	// The corpus keeps the runs that reached something first, and no
	// other.
	var kept []uint64
	for _, r := range runs {
		if r.New > 0 {
			kept = append(kept, r.N)
		}
		if r.NewPoints > r.New {
			t.Fatalf("run %d: %d new points, %d new in all", r.N, r.NewPoints, r.New)
		}
	}
	if !slices.Equal(kept, res.Corpus) {
		t.Fatalf("corpus %v; the runs that reached something first: %v", res.Corpus, kept)
	}
}

// guidedTrace is what a guided campaign did, run by run.
func guidedTrace(t *testing.T, sc harness.Scenario, runs uint64, workers int) []string {
	t.Helper()
	var out []string
	_, err := harness.Guided(context.Background(), harness.GuidedConfig{Scenario: sc, Seed: 7, Start: 100, Runs: runs, Workers: workers,
		Done: func(r *harness.GuidedRun) bool {
			out = append(out, fmt.Sprintf("%d seed %d parent %d %q %s %016x new %d", r.N, r.Outcome.Seed, r.Parent, r.Mutations,
				harness.SignatureOf(r.Outcome), r.Outcome.Result.Hash(), r.New))
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGuidedIsDeterministic: a guided campaign is a function of its
// configuration: the same runs, derived the same way, with the same
// traces, on one worker or two.
func TestGuidedIsDeterministic(t *testing.T) {
	sc := zoo.Scenarios()[0] // the careful lock, which passes
	one, two := guidedTrace(t, sc, 80, 1), guidedTrace(t, sc, 80, 2)
	derived := 0
	for i := range one {
		if i >= len(two) || one[i] != two[i] {
			t.Fatalf("run %d differs:\n1 worker:  %s\n2 workers: %v", i+1, one[i], two[min(i, len(two)-1)])
		}
		if !bytes.Contains([]byte(one[i]), []byte("parent 0 ")) {
			derived++
		}
	}
	if len(one) != 80 || len(two) != 80 || derived < 40 {
		t.Fatalf("%d and %d runs, %d derived", len(one), len(two), derived)
	}
}

// TestGuidedFailureReplays: a failure a guided campaign finds in a run
// derived from its corpus is a reproducer file like any other: written,
// loaded and run again, it fails the same way with the same trace.
func TestGuidedFailureReplays(t *testing.T) {
	sc := zooScenario(t, "zoo/no-watchdog")
	var found *harness.GuidedRun
	_, err := harness.Guided(context.Background(), harness.GuidedConfig{Scenario: sc, Seed: 1, Start: 1, Runs: 400, Workers: 2,
		Done: func(r *harness.GuidedRun) bool {
			if r.Parent != 0 && r.Outcome.Verdict != harness.Pass {
				found = r
				return false
			}
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	if found == nil {
		t.Fatal("no derived run failed in 400")
	}
	data, err := found.Reproducer().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := harness.LoadReproducer(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	o, err := rep.Run(sc, false)
	if err != nil {
		t.Fatal(err)
	}
	if sig := harness.SignatureOf(o); !sig.Equal(*rep.Expect) || o.Result.Hash() != found.Outcome.Result.Hash() {
		t.Fatalf("replayed: %s, trace %016x; found: %s, trace %016x\n%s", sig, o.Result.Hash(), rep.Expect, found.Outcome.Result.Hash(), data)
	}
}

// zooScenario is the zoo's scenario called name.
func zooScenario(t *testing.T, name string) harness.Scenario {
	t.Helper()
	c, err := harness.NewCatalog(zoo.All()...)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
