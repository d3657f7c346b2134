package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/s3lease/s3lease/designs/epochfile" // the epoch-file lock, whose nodes list the bucket
	_ "github.com/s3lease/s3lease/designs/leadermgr" // another protocol on S3
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// historyKey describes a run's history as the checkers judge it: a set of
// timed entries (terms, S3 requests with their answers, fenced writes,
// faults), written in a canonical order, so that executions that differ
// only in the order of independent simultaneous steps have the same key.
func historyKey(h *sim.History) string {
	var lines []string
	for _, t := range h.Terms {
		lines = append(lines, fmt.Sprintf("term %+v", t))
	}
	for _, o := range h.S3 {
		lines = append(lines, fmt.Sprintf("s3 %+v", o))
	}
	for _, w := range h.Writes {
		lines = append(lines, fmt.Sprintf("fenced %+v", w))
	}
	for _, f := range h.Faults {
		lines = append(lines, fmt.Sprintf("fault %+v", f))
	}
	slices.Sort(lines)
	return fmt.Sprintf("end %v\n%s", h.End, strings.Join(lines, "\n"))
}

// verdictKey is a verdict with the checkers that decided it.
func verdictKey(o *harness.Outcome) string {
	var cs []string
	for _, v := range o.Violations {
		cs = append(cs, v.Checker)
	}
	slices.Sort(cs)
	return strings.Join(append([]string{o.Verdict.String()}, slices.Compact(cs)...), " ")
}

// searched is what one exploration reached: every verdict (with its
// checkers) and every history.
type searched struct {
	verdicts  map[string]int
	histories map[string]bool
	harness.ExploreResult
}

// exploreAll runs every execution of s within b, up to limit.
func exploreAll(t *testing.T, s harness.Setup, b sim.ExploreBounds, limit int) searched {
	t.Helper()
	out := searched{verdicts: map[string]int{}, histories: map[string]bool{}}
	r, err := harness.ExploreEach(s, sim.NewExplorer(1, b), limit, func(o *harness.Outcome, _ harness.Path) bool {
		out.verdicts[verdictKey(o)]++
		out.histories[historyKey(o.Result.History)] = true
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	out.ExploreResult = r
	return out
}

// TestReductionKeepsVerdicts: exploring small bounded runs of several
// scenarios and zoo variants to the end, with partial-order reduction and
// without, reaches the same verdicts, decided by the same checkers, and the
// same histories (as sets of timed entries), with no more executions.
func TestReductionKeepsVerdicts(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		nodes    int
		d        time.Duration
		faults   int
	}{
		{"reference", 2, time.Second, 0},
		{"zoo/unconditional-acquire", 2, 100 * time.Millisecond, 0},
		{"zoo/wall-clock-expiry", 2, 300 * time.Millisecond, 0},
		{"zoo/conflict-as-success", 2, 150 * time.Millisecond, 1},
		{"zoo/careful", 2, 150 * time.Millisecond, 1},
		{"unconditional-write", 2, 300 * time.Millisecond, 0},
		{"naive-skew", 2, time.Second, 0},
		{"epochfile/naive", 2, time.Second, 0},
		{"epochfile/list-race", 2, time.Second, 0},
		{"leadermgr/safe-s3", 2, time.Second, 0},
		{"leadermgr/safe-sql", 2, time.Second, 0},
		{"leadermgr/naive-sql-same-identity", 2, time.Second, 1},
	} {
		sc, err := project.Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		s := harness.Small(sc.Build(1), tc.nodes, tc.d)
		b := sim.ExploreBounds{MaxFaults: tc.faults, MaxDelays: 1}
		start := time.Now()
		por := exploreAll(t, s, b, 50_000)
		mid := time.Now()
		b.Full = true
		full := exploreAll(t, s, b, 50_000)
		name := fmt.Sprintf("%s, %d nodes for %v, %d faults", tc.scenario, tc.nodes, tc.d, tc.faults)
		if !full.Exhausted || !por.Exhausted {
			t.Fatalf("%s: not exhausted in 50,000 executions (full %d, reduced %d)", name, full.Executions, por.Executions)
		}
		if !maps.Equal(keys(full.verdicts), keys(por.verdicts)) {
			t.Errorf("%s: verdicts %v in full, %v reduced", name, full.verdicts, por.verdicts)
		}
		if !maps.Equal(full.histories, por.histories) {
			t.Errorf("%s: %d histories in full, %d reduced, not the same", name, len(full.histories), len(por.histories))
		}
		if por.Executions > full.Executions {
			t.Errorf("%s: %d executions reduced, %d full", name, por.Executions, full.Executions)
		}
		t.Logf("%s: %d executions (%v) instead of %d (%v), %d pruned, %d stopped early; %d histories; %v", name,
			por.Executions, mid.Sub(start).Round(time.Millisecond), full.Executions, time.Since(mid).Round(time.Millisecond),
			por.Pruned, por.Stopped, len(por.histories), por.verdicts)
	}
}

func keys(m map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// TestReductionFactor measures partial-order reduction on the README's
// exploration of the reference scenario (3 s, depth 30, one long delay):
// with two nodes both searches finish and the reduced one runs at least
// 50 times fewer executions; with three nodes the reduced search finishes
// and the full one has not finished after 50 times as many.
func TestReductionFactor(t *testing.T) {
	b := sim.ExploreBounds{MaxDelays: 1, MaxDepth: 30}
	for _, nodes := range []int{2, 3} {
		s := harness.Small(Reference.Build(1), nodes, 3*time.Second)
		por, err := harness.Explore(s, 1, b, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		if !por.Exhausted || por.Found != nil {
			t.Fatalf("%d nodes: the reduced search did not finish clean: %d executions, exhausted %v", nodes, por.Executions, por.Exhausted)
		}
		full := b
		full.Full = true
		limit := 50 * por.Executions
		if nodes == 2 {
			limit = 100_000
		}
		f, err := harness.Explore(s, 1, full, limit)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case nodes == 2 && !f.Exhausted:
			t.Errorf("2 nodes: the full search did not finish in %d executions", f.Executions)
		case nodes == 2 && f.Executions < 50*por.Executions:
			t.Errorf("2 nodes: %d executions reduced, %d full: less than a factor of 50", por.Executions, f.Executions)
		case nodes == 3 && f.Exhausted:
			t.Errorf("3 nodes: the full search finished in %d executions, the reduced one took %d", f.Executions, por.Executions)
		}
		t.Logf("%d nodes: %d executions reduced (%d branches pruned), %d full (exhausted %v)", nodes, por.Executions, por.Pruned, f.Executions, f.Exhausted)
	}
}
