package campaign

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/catalog"
	"github.com/s3lease/s3lease/internal/schema"
	"pgregory.net/rapid"
)

// TestShardsCoverRangeExactly: for any range and any number of shards,
// every seed of the range belongs to exactly one shard, each shard's seeds
// are Seed(start, 0..Size-1) in order, and Overlaps agrees with the seeds.
func TestShardsCoverRangeExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		start := rapid.Uint64Range(0, 1<<40).Draw(t, "start")
		n := rapid.Uint64Range(0, 300).Draw(t, "seeds")
		count := rapid.Uint64Range(1, 12).Draw(t, "shards")
		owner := map[uint64]uint64{}
		var total uint64
		for i := range count {
			sh := Shard{Index: i, Count: count}
			size := sh.Size(n)
			total += size
			for k := range size {
				s := sh.Seed(start, k)
				if s < start || s >= start+n || !sh.Owns(start, s) || sh.index(start, s) != k {
					t.Fatalf("shard %s: seed %d (k=%d) outside range %d+%d or not owned", sh, s, k, start, n)
				}
				if prev, dup := owner[s]; dup {
					t.Fatalf("seed %d in shards %d and %d of %d", s, prev, i, count)
				}
				owner[s] = i
			}
		}
		if total != n || uint64(len(owner)) != n {
			t.Fatalf("%d shards of %d seeds hold %d (%d distinct)", count, n, total, len(owner))
		}
		for s := start; s < start+n; s++ {
			if _, ok := owner[s]; !ok {
				t.Fatalf("seed %d in no shard", s)
			}
		}
		// Overlaps against brute force on a long enough range.
		a := Shard{Index: rapid.Uint64Range(0, count-1).Draw(t, "i"), Count: count}
		m := rapid.Uint64Range(1, 12).Draw(t, "m")
		b := Shard{Index: rapid.Uint64Range(0, m-1).Draw(t, "j"), Count: m}
		share := false
		for s := start; s < start+count*m; s++ {
			share = share || (a.Owns(start, s) && b.Owns(start, s))
		}
		if a.Overlaps(b) != share || b.Overlaps(a) != share {
			t.Fatalf("%s.Overlaps(%s) = %v, seeds shared: %v", a, b, a.Overlaps(b), share)
		}
	})
}

// TestDoneSetAnyOrder: indices added in any order give the same set, with
// the watermark past every contiguous prefix.
func TestDoneSetAnyOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ks := rapid.SliceOfDistinct(rapid.Uint64Range(0, 60), func(k uint64) uint64 { return k }).Draw(t, "ks")
		var d doneSet
		in := map[uint64]bool{}
		for _, k := range ks {
			if !d.add(k) {
				t.Fatalf("add(%d) reported it done already", k)
			}
			in[k] = true
			if d.add(k) {
				t.Fatalf("add(%d) twice", k)
			}
		}
		for k := range uint64(62) {
			if d.has(k) != in[k] {
				t.Fatalf("has(%d) = %v", k, d.has(k))
			}
		}
		if d.count() != uint64(len(in)) || in[d.next] || (d.next > 0 && !in[d.next-1]) || !slices.IsSorted(d.above) {
			t.Fatalf("set %+v for %v", d, ks)
		}
	})
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"0/1", "3/8", "7/8"} {
		if sh, err := ParseShard(s); err != nil || sh.String() != s {
			t.Errorf("ParseShard(%q) = %v, %v", s, sh, err)
		}
	}
	for _, s := range []string{"", "1", "8/8", "1/0", "-1/4", "a/b", "1/2/3", " 1/2"} {
		if sh, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", s, sh)
		}
	}
}

func lookup(t *testing.T, name string) harness.Scenario {
	t.Helper()
	sc, err := catalog.New().Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runCampaign opens and runs a campaign to its end.
func runCampaign(t *testing.T, cfg Config) *Report {
	t.Helper()
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameResults compares what must not depend on how a campaign was run
// (sessions, shards, workers): the counts, the coverage (point by point,
// with the runs that reached each and the first seed that did) and the
// groups, with their first seeds.
func sameResults(t *testing.T, got, want *Report) {
	t.Helper()
	if got.SeedsRun != want.SeedsRun || !reflect.DeepEqual(got.Counts, want.Counts) || got.Complete != want.Complete {
		t.Fatalf("counts differ:\n got %d %+v %+v complete %v\nwant %d %+v %+v complete %v", got.SeedsRun, got.Counts, got.Counts.Judged, got.Complete,
			want.SeedsRun, want.Counts, want.Counts.Judged, want.Complete)
	}
	if got.Coverage == nil || len(got.Coverage.Sets) == 0 || got.Coverage.Sets[0].Runs != got.SeedsRun {
		t.Fatalf("coverage %+v of %d seeds: every seed counts in every set", got.Coverage, got.SeedsRun)
	}
	if !reflect.DeepEqual(got.Coverage, want.Coverage) {
		t.Fatalf("coverage differs:\n got %+v\nwant %+v", got.Coverage, want.Coverage)
	}
	if len(got.Groups) != len(want.Groups) {
		t.Fatalf("%d groups, want %d", len(got.Groups), len(want.Groups))
	}
	for i, g := range got.Groups {
		w := want.Groups[i]
		if g.Signature != w.Signature || g.Count != w.Count || !slices.Equal(g.FirstSeeds, w.FirstSeeds) || g.Replay != w.Replay {
			t.Fatalf("group %d: got %+v, want %+v", i, g, w)
		}
	}
}

// checkReproducers checks that every reproducer a report lists is on disk
// beside its trace, loads, and expects the group's signature.
func checkReproducers(t *testing.T, dir string, r *Report) {
	t.Helper()
	for _, g := range r.Groups {
		for _, p := range g.Reproducers {
			f, err := os.Open(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := harness.LoadReproducer(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if g.Verdict != Nondeterministic && g.Verdict != harness.Inconclusive.String() && (rep.Expect == nil || rep.Expect.String() != g.Signature) {
				t.Fatalf("%s expects %s, in group %s", p, rep.Expect, g.Signature)
			}
			if _, err := os.Stat(filepath.Join(dir, TracePath(Slug(g.Verdict, g.Checkers), rep.Seed))); err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(dir, PagePath(Slug(g.Verdict, g.Checkers), rep.Seed)))
			if err != nil || !bytes.Contains(page, []byte("<svg")) || !bytes.Contains(page, []byte(g.Verdict)) {
				t.Fatalf("page of %s: %v (%d bytes)", p, err, len(page))
			}
		}
	}
}

// TestStateRoundTrip: the state a campaign saves loads back to the same
// campaign, and reopening it changes nothing.
func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Scenario: lookup(t, "naive-skew"), Start: 10, Seeds: 60, Shard: Shard{1, 2}, Workers: 2, Keep: 2}
	r := runCampaign(t, cfg)
	st, err := LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Scenario != "naive-skew" || st.Shard != (Shard{1, 2}) || st.Start != 10 || st.Seeds != 60 ||
		st.Done.Count != 30 || st.Done.Next != 71 || len(st.Done.Above) != 0 || !reflect.DeepEqual(st.Counts, r.Counts) || len(st.Groups) != len(r.Groups) {
		t.Fatalf("state %+v\nreport %+v", st, r)
	}
	if r.SeedsRun != 30 || !r.Complete || r.Unsafe == 0 {
		t.Fatalf("report %+v", r)
	}
	checkReproducers(t, dir, r)
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again := c.Report()
	sameResults(t, again, r)
	if !slices.EqualFunc(again.Groups, r.Groups, func(a, b Group) bool { return slices.Equal(a.Reproducers, b.Reproducers) }) {
		t.Fatalf("reproducers differ after reopening")
	}
	st2, err := LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Elapsed, st2.Elapsed = 0, 0
	a, _ := marshal(st)
	b, _ := marshal(st2)
	if !bytes.Equal(a, b) {
		t.Fatalf("state changed on reopening:\n%s\n%s", a, b)
	}
	// A finished campaign run again runs nothing and reports the same.
	r2, err := c.Run(context.Background())
	if err != nil || c.Progress().Session != 0 {
		t.Fatalf("rerun: %v, %d seeds", err, c.Progress().Session)
	}
	sameResults(t, r2, r)
}

// TestResumeMatchesOneShot: a campaign stopped part way and resumed skips
// the seeds done and ends with the counts of a campaign run in one go.
func TestResumeMatchesOneShot(t *testing.T) {
	sc := lookup(t, "zoo/no-nonce")
	const seeds = 240
	oneShot := runCampaign(t, Config{Dir: t.TempDir(), Scenario: sc, Start: 1, Seeds: seeds, Workers: 2, Keep: 3})

	dir := t.TempDir()
	cfg := Config{Dir: dir, Scenario: sc, Start: 1, Seeds: seeds, Workers: 3, Keep: 3}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for c.Progress().Done < 60 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	first, err := c.Run(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if first.Complete || first.SeedsRun < 60 || first.SeedsRun >= seeds {
		t.Fatalf("the stopped campaign ran %d seeds (complete %v)", first.SeedsRun, first.Complete)
	}
	c, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Progress(); p.Done != first.SeedsRun {
		t.Fatalf("reopened with %d seeds done, the stopped campaign had %d", p.Done, first.SeedsRun)
	}
	resumed, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Progress().Session; got != seeds-first.SeedsRun {
		t.Fatalf("the resumed campaign ran %d seeds, want the %d left", got, seeds-first.SeedsRun)
	}
	sameResults(t, resumed, oneShot)
	checkReproducers(t, dir, resumed)
	for _, g := range resumed.Groups {
		if len(g.Reproducers) != min(3, int(g.Count)) {
			t.Fatalf("group %s of %d seeds keeps %d reproducers, want %d", g.Signature, g.Count, len(g.Reproducers), min(3, int(g.Count)))
		}
	}
}

// TestOpenRefusesAnotherCampaign: a directory resumes only its own campaign.
func TestOpenRefusesAnotherCampaign(t *testing.T) {
	dir := t.TempDir()
	base := Config{Dir: dir, Scenario: lookup(t, "reference"), Start: 1, Seeds: 4, Workers: 1}
	runCampaign(t, base)
	for name, change := range map[string]func(*Config){
		"scenario": func(c *Config) { c.Scenario = lookup(t, "swarm") },
		"shard":    func(c *Config) { c.Shard = Shard{0, 2} },
		"start":    func(c *Config) { c.Start = 2 },
		"seeds":    func(c *Config) { c.Seeds = 5 },
		"check":    func(c *Config) { c.CheckDeterminism = true },
		"duration": func(c *Config) { c.Seeds, c.Duration = 0, time.Hour },
	} {
		cfg := base
		change(&cfg)
		if _, err := Open(cfg); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s changed: Open: %v, want ErrIncompatible", name, err)
		}
	}
	// Workers, keep and the duration may change.
	cfg := base
	cfg.Workers, cfg.Keep, cfg.Duration = 3, 7, time.Hour
	if _, err := Open(cfg); err != nil {
		t.Fatal(err)
	}
	// A corrupt state is refused.
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"version":1,"scenario":"reference","shard":"0/1","start":1,"seeds":4,"elapsed":"1s","done":{"count":3,"next":2},"counts":{"pass":3},"groups":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(base); !errors.Is(err, ErrBadState) {
		t.Fatalf("Open on an inconsistent state: %v, want ErrBadState", err)
	}
	// Bad configurations.
	for name, cfg := range map[string]Config{
		"no dir":      {Scenario: base.Scenario, Seeds: 1},
		"no end":      {Dir: t.TempDir(), Scenario: base.Scenario},
		"bad shard":   {Dir: t.TempDir(), Scenario: base.Scenario, Seeds: 1, Shard: Shard{2, 2}},
		"empty shard": {Dir: t.TempDir(), Scenario: base.Scenario, Seeds: 2, Shard: Shard{3, 4}},
		"overflow":    {Dir: t.TempDir(), Scenario: base.Scenario, Start: 1 << 63, Seeds: 1 << 63},
	} {
		if _, err := Open(cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: Open: %v, want ErrBadConfig", name, err)
		}
	}
}

// TestMergeShards: the shards of a range, merged, report what the whole
// range run at once reports; overlapping shards and other campaigns are
// refused.
func TestMergeShards(t *testing.T) {
	sc := lookup(t, "zoo/no-nonce")
	const seeds = 150
	whole := runCampaign(t, Config{Dir: t.TempDir(), Scenario: sc, Start: 5, Seeds: seeds, Workers: 2, Keep: 1})
	var shards []*Report
	for i := range uint64(3) {
		shards = append(shards, runCampaign(t, Config{Dir: t.TempDir(), Scenario: sc, Start: 5, Seeds: seeds, Shard: Shard{i, 3}, Workers: 2, Keep: 1}))
	}
	merged, err := Merge("", shards[2], shards[0], shards[1])
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, merged, whole)
	if len(merged.Shards) != 3 || merged.Shards[0] != (Shard{0, 3}) || merged.Shards[2] != (Shard{2, 3}) {
		t.Fatalf("merged shards %v", merged.Shards)
	}
	if len(merged.Missing) != 0 {
		t.Fatalf("all three shards merged, but %v are missing", merged.Missing)
	}
	// Two of three shards: the report knows which one is missing.
	part, err := Merge("", shards[2], shards[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Missing) != 1 || part.Missing[0] != (Shard{1, 3}) {
		t.Fatalf("shards 0/3 and 2/3 merged: missing %v, want [1/3]", part.Missing)
	}
	if got := missingShards([]Shard{{0, 2}, {1, 4}}); len(got) != 1 || got[0] != (Shard{3, 4}) {
		t.Fatalf("shards 0/2 and 1/4: missing %v, want [3/4]", got)
	}
	// Overlaps are refused: a shard twice, or 0/3 with 3/6.
	other := runCampaign(t, Config{Dir: t.TempDir(), Scenario: sc, Start: 5, Seeds: seeds, Shard: Shard{3, 6}, Workers: 2})
	disjoint := runCampaign(t, Config{Dir: t.TempDir(), Scenario: sc, Start: 5, Seeds: seeds, Shard: Shard{4, 6}, Workers: 2})
	for name, rs := range map[string][]*Report{
		"twice":           {shards[0], shards[1], shards[0]},
		"3/6 in 0/3":      {shards[0], other},
		"merged and part": {merged, shards[1]},
	} {
		if _, err := Merge("", rs...); !errors.Is(err, ErrIncompatible) {
			t.Errorf("%s: Merge: %v, want ErrIncompatible", name, err)
		}
	}
	if _, err := Merge("", shards[0], disjoint); err != nil {
		t.Errorf("0/3 and 4/6 share no seed: %v", err)
	}
	diff := *shards[1]
	diff.Scenario = "naive-skew"
	if _, err := Merge("", shards[0], &diff); !errors.Is(err, ErrIncompatible) {
		t.Errorf("different scenarios: %v", err)
	}
	diff = *shards[1]
	diff.Seeds++
	if _, err := Merge("", shards[0], &diff); !errors.Is(err, ErrIncompatible) {
		t.Errorf("different ranges: %v", err)
	}
	// A report survives writing and reading.
	data, err := merged.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, back, merged)
}

// TestJUnit: the JUnit XML parses, with a failing testcase per signature
// and a passing one for the passes.
func TestJUnit(t *testing.T) {
	dir := t.TempDir()
	r := runCampaign(t, Config{Dir: dir, Scenario: lookup(t, "zoo/no-nonce"), Start: 1, Seeds: 40, Workers: 2, Keep: 1})
	if len(r.Groups) < 2 {
		t.Fatalf("want several signatures to test with, got %+v", r.Groups)
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r, ""); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		XMLName  xml.Name `xml:"testsuite"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &suite); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if suite.Tests != len(r.Groups)+1 || suite.Failures != len(r.Groups) || len(suite.Cases) != suite.Tests {
		t.Fatalf("suite of %d tests, %d failures, %d cases for %d groups", suite.Tests, suite.Failures, len(suite.Cases), len(r.Groups))
	}
	for i, g := range r.Groups {
		c := suite.Cases[i]
		if c.Name != g.Signature || c.Failure == nil || c.Failure.Type != g.Verdict ||
			!bytes.Contains([]byte(c.Failure.Message), []byte(g.Replay)) || !bytes.Contains([]byte(c.Failure.Text), []byte(g.Reproducers[0])) {
			t.Fatalf("testcase %d: %+v for group %+v", i, c, g)
		}
	}
	if last := suite.Cases[len(suite.Cases)-1]; last.Name != "pass" || last.Failure != nil || last.SystemOut == "" {
		t.Fatalf("pass testcase %+v", last)
	}
}

// TestCheckDeterminism: a deterministic scenario passes the check; one
// whose runs depend on something besides the seed is caught, as its own
// kind of failure.
func TestCheckDeterminism(t *testing.T) {
	r := runCampaign(t, Config{Dir: t.TempDir(), Scenario: lookup(t, "reference"), Start: 1, Seeds: 12, Workers: 2, CheckDeterminism: true})
	if r.Pass != 12 || r.Nondeterministic != 0 || !r.CheckDeterminism {
		t.Fatalf("reference with -check-determinism: %+v", r)
	}
	ref := lookup(t, "reference")
	var runs atomic.Uint64
	flaky := harness.Scenario{Name: "test/flaky", Doc: "reference with a seed that changes on every run",
		Build: func(seed uint64) harness.Setup { return ref.Build(seed + runs.Add(1)) }}
	dir := t.TempDir()
	r = runCampaign(t, Config{Dir: dir, Scenario: flaky, Start: 1, Seeds: 5, Workers: 2, Keep: 1, CheckDeterminism: true})
	if r.Nondeterministic != 5 || len(r.Groups) != 1 || r.Groups[0].Signature != Nondeterministic || r.Worst() != harness.Crashed {
		t.Fatalf("flaky scenario: %+v", r)
	}
	if len(r.Groups[0].Reproducers) != 1 {
		t.Fatalf("reproducers %v", r.Groups[0].Reproducers)
	}
	trace, err := os.ReadFile(filepath.Join(dir, TracePath(Nondeterministic, reproSeed(r.Groups[0].Reproducers[0]))))
	if err != nil || !bytes.HasPrefix(trace, []byte("# nondeterministic: two runs")) {
		t.Fatalf("trace of a nondeterministic seed: %v\n%.200s", err, trace)
	}
}

// TestDurationLimitsUnboundedCampaign: with no count, the duration ends
// the campaign, and a resumed campaign gets only what is left of it.
func TestDurationLimitsUnboundedCampaign(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Scenario: lookup(t, "reference"), Start: 1, Duration: 300 * time.Millisecond, Workers: 2}
	r := runCampaign(t, cfg)
	if r.SeedsRun == 0 || r.Complete || r.Seeds != 0 {
		t.Fatalf("report %+v", r)
	}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Run(context.Background())
	if err != nil || c.Progress().Session != 0 {
		t.Fatalf("the spent campaign ran %d more seeds (%v)", c.Progress().Session, err)
	}
	sameResults(t, again, r)
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct {
		verdict  string
		checkers []string
		want     string
	}{
		{"unsafe", []string{"overlap"}, "unsafe_overlap"},
		{"unsafe", []string{"fencing/stale-accepted", "overlap"}, "unsafe_fencing.stale-accepted_overlap"},
		{"liveness", []string{"liveness"}, "liveness_liveness"},
		{"crashed", []string{"panic"}, "crashed_panic"},
		{"crashed", nil, "crashed"},
		{Nondeterministic, nil, "nondeterministic"},
	} {
		if got := Slug(tc.verdict, tc.checkers); got != tc.want {
			t.Errorf("Slug(%s, %v) = %s, want %s", tc.verdict, tc.checkers, got, tc.want)
		}
	}
	odd := Slug("unsafe", []string{"Weird Checker/../x"})
	if odd != filepath.Base(odd) || odd[:6] != "other-" || odd == Slug("unsafe", []string{"Weird Checker/../y"}) {
		t.Errorf("odd slug %q", odd)
	}
}

// TestStateWithoutCoverage: a state written before campaigns kept their
// coverage resumes; the coverage then counts only the seeds run since, and
// says so. A state whose coverage counts more runs than seeds is refused.
func TestStateWithoutCoverage(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Dir: dir, Scenario: lookup(t, "zoo/no-nonce"), Start: 1, Seeds: 200, Workers: 2}
	c, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for deadline := time.Now().Add(time.Minute); c.Progress().Done < 10 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}()
	first, err := c.Run(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	st, err := LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Coverage == nil || st.Coverage.Sets[0].Runs != first.SeedsRun {
		t.Fatalf("state's coverage %+v after %d seeds", st.Coverage, first.SeedsRun)
	}
	bad := *st
	bad.Coverage = &schema.Coverage{Sets: slices.Clone(st.Coverage.Sets)}
	bad.Coverage.Sets[0].Runs = st.Counts.Seeds() + 1
	writeState(t, dir, &bad)
	if _, err := LoadState(dir); !errors.Is(err, ErrBadState) {
		t.Fatalf("coverage of more runs than seeds: %v, want ErrBadState", err)
	}
	st.Coverage = nil
	writeState(t, dir, st)
	r := runCampaign(t, cfg)
	if first.SeedsRun == 200 {
		t.Fatal("the campaign ran to its end before it was stopped")
	}
	if r.SeedsRun != 200 || r.Coverage == nil || r.Coverage.Sets[0].Runs != 200-first.SeedsRun {
		t.Fatalf("resumed: %d seeds, coverage %+v; want the %d seeds of the second session counted", r.SeedsRun, r.Coverage, 200-first.SeedsRun)
	}
	if sum := r.Coverage.Summary(r.SeedsRun); !strings.Contains(sum, fmt.Sprintf("(in %d of the runs)", 200-first.SeedsRun)) {
		t.Fatalf("summary %q does not say how many runs it counts", sum)
	}
}

func writeState(t *testing.T, dir string, st *State) {
	t.Helper()
	data, err := marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StateFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
