package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

var smallBounds = sim.ExploreBounds{MaxFaults: 0, MaxDelays: 1, MaxDepth: 60}

// TestExploreFindsUnconditionalWriteBug: exhaustive exploration of two nodes
// running the read-then-unconditional-write lock finds two holders of one
// token, and the path it reports replays to the same failure.
func TestExploreFindsUnconditionalWriteBug(t *testing.T) {
	p := zoo.NaiveLock{Lease: 4 * time.Second, Unconditional: true}.Protocol()
	s := harness.Small(harness.Setup{Config: harness.World(1), Protocol: p}, 2, 3*time.Second)
	r, err := harness.Explore(s, 1, smallBounds, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Found == nil || r.Found.Verdict != harness.Unsafe {
		t.Fatalf("no violation in %d executions (exhausted %v)", r.Executions, r.Exhausted)
	}
	t.Logf("found after %d executions: %v (path %q)", r.Executions, r.Found.Violations[0], r.Path)
	again, err := harness.ReplayPath(s, 1, smallBounds, r.Path, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Verdict != r.Found.Verdict || again.Result.Hash() != r.Found.Result.Hash() {
		t.Fatalf("replay of %q: %v hash %x, want %v hash %x", r.Path, again.Verdict, again.Result.Hash(), r.Found.Verdict, r.Found.Result.Hash())
	}
}

// TestExploreElectorSmall: the production elector with two nodes survives
// every schedule of a short run within the bounds (every class of
// equivalent schedules, under partial-order reduction), and the
// exploration really covers many distinct executions.
func TestExploreElectorSmall(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	s := harness.Small(harness.Setup{Config: harness.World(1), Protocol: p}, 2, 3*time.Second)
	r, err := harness.Explore(s, 1, smallBounds, 3_000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Found != nil {
		t.Fatalf("violation after %d executions: %v (path %q)", r.Executions, r.Found.Violations, r.Path)
	}
	if !r.Exhausted || r.Executions < 50 || r.Distinct < 50 {
		t.Fatalf("%d executions explored, %d distinct, exhausted %v", r.Executions, r.Distinct, r.Exhausted)
	}
	t.Logf("%d executions, %d distinct traces, exhausted %v", r.Executions, r.Distinct, r.Exhausted)
}

func TestPathRoundTrip(t *testing.T) {
	p := harness.Path{0, 0, 3, 0, 1}
	q, err := harness.ParsePath(p.String())
	if err != nil || q.String() != "2:3,4:1" {
		t.Fatalf("%v %v", q, err)
	}
	for _, bad := range []string{"x", "1:", ":2", "-1:1", "1:2:3"} {
		if _, err := harness.ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
}
