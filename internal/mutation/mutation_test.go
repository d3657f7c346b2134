package mutation

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const fixture = "testdata/fixture"

func loadFixture(t *testing.T, dir string) *Package {
	t.Helper()
	p, err := Load(context.Background(), filepath.Join(dir, "lib"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// find returns the mutant of fn with operator op changing original to
// replacement.
func find(t *testing.T, ms []Mutant, fn string, op Operator, original, replacement string) Mutant {
	t.Helper()
	for _, m := range ms {
		if m.Func == fn && m.Operator == op && fold(m.Original) == original && fold(m.Replacement) == replacement {
			return m
		}
	}
	t.Fatalf("no mutant %s %s %q → %q", fn, op, original, replacement)
	return Mutant{}
}

func TestEnumerateFixture(t *testing.T) {
	p := loadFixture(t, fixture)
	ms := p.Enumerate()
	if again := p.Enumerate(); !reflect.DeepEqual(ms, again) {
		t.Fatal("two enumerations of the same sources differ")
	}
	ops := map[Operator]int{}
	ids := map[string]bool{}
	for i, m := range ms {
		ops[m.Operator]++
		if ids[m.ID] {
			t.Errorf("duplicate ID %s", m.ID)
		}
		ids[m.ID] = true
		if !strings.HasPrefix(m.ID, "lib-") || m.File != "lib/lib.go" {
			t.Errorf("mutant %s of file %s", m.ID, m.File)
		}
		if i > 0 && ms[i-1].Start > m.Start {
			t.Errorf("mutants not in source order at %s", m.ID)
		}
		if strings.HasPrefix(m.Original, "log.") && m.Operator != OpErrReturn {
			t.Errorf("%s mutates logging: %s", m.ID, m.Snippet())
		}
		src, err := p.Mutate(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "lib.go", src, 0); err != nil {
			t.Errorf("%s (%s) does not parse: %v", m.ID, m.Snippet(), err)
		}
	}
	for _, op := range Operators {
		if ops[op] == 0 {
			t.Errorf("operator %s made no mutant of the fixture", op)
		}
	}
	for _, want := range []string{
		"lib/lib.go | Expired | cmp-flip | now >= l.Deadline | now > l.Deadline | 1",
		"lib/lib.go | Expired | return-bool | true | false | 1",
		"lib/lib.go | Extend | clock-swap | c.Monotonic() | time.Duration(c.Now().UnixNano()) | 1",
		"lib/lib.go | Stamp | clock-swap | c.Now() | time.Unix(0, int64(c.Monotonic())) | 1",
		"lib/lib.go | Admit | return-other | highest, ErrStale | token, nil | 1",
		"lib/lib.go | Admit | return-zero | ErrStale | nil | 1",
		"lib/lib.go | Do | cancel-remove | defer cancel() | _ = cancel | 1",
		"lib/lib.go | Do | err-stmt-remove | n++ |  | 1",
		`lib/lib.go | Do | err-branch-return | log.Warn("f failed", "err", err) n++ cancel() return n, err | return n, err | 1`,
		"lib/lib.go | Do | arith-swap | n += 2 | n -= 2 | 1",
		"lib/lib.go | Next | off-by-one | 1 | 2 | 1",
	} {
		if !slices.ContainsFunc(ms, func(m Mutant) bool { return m.Signature() == want }) {
			t.Errorf("no mutant with signature %q", want)
		}
	}

	// Valid and invalid mutants.
	if err := p.TypeCheck(find(t, ms, "Expired", OpCompare, "now >= l.Deadline", "now > l.Deadline")); err != nil {
		t.Errorf("a valid mutant does not type-check: %v", err)
	}
	if err := p.TypeCheck(find(t, ms, "Floor", OpOffByOne, "0", "-1")); err == nil {
		t.Error("a uint64 set to -1 type-checks")
	}
}

// TestSignaturesStable: an edit elsewhere in the file moves mutants but
// keeps their signatures and IDs.
func TestSignaturesStable(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "lib", "lib.go")
	src, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte("// Next is"), []byte("// Extra is new.\nfunc Extra() int { return 7 }\n\n// Next is"), 1)
	if err := os.WriteFile(lib, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	before := loadFixture(t, fixture).Enumerate()
	after := loadFixture(t, dir)
	if after.SourceHash() == loadFixture(t, fixture).SourceHash() {
		t.Error("the source hash did not change with the sources")
	}
	byID := map[string]Mutant{}
	for _, m := range after.Enumerate() {
		byID[m.ID] = m
	}
	for _, m := range before {
		n, ok := byID[m.ID]
		if !ok {
			t.Errorf("mutant %s (%s) lost its ID after an edit elsewhere", m.ID, m.Signature())
			continue
		}
		if n.Line != m.Line+3 {
			t.Errorf("mutant %s moved from line %d to %d, want %d", m.ID, m.Line, n.Line, m.Line+3)
		}
	}
}

// TestExecuteFixture runs mutants of the fixture end to end: overlay
// builds of a stand-in for simrun, its swarm, the tests, the results file,
// a rerun that runs nothing, and Main's report and exit status.
func TestExecuteFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a fixture module")
	}
	p := loadFixture(t, fixture)
	orig := slices.Clone(p.Sources[p.Files[0]])
	ms := p.Enumerate()
	pick := map[string]Mutant{
		"swarm":      find(t, ms, "Expired", OpCompare, "now >= l.Deadline", "now > l.Deadline"),
		"swarm-late": find(t, ms, "Admit", OpReturnZero, "ErrStale", "nil"),
		"tests":      find(t, ms, "Stamp", OpClock, "c.Now()", "time.Unix(0, int64(c.Monotonic()))"),
		"survives":   find(t, ms, "Admit", OpCompare, "token < highest", "token <= highest"),
		"invalid":    find(t, ms, "Floor", OpOffByOne, "0", "-1"),
	}
	equiv := find(t, ms, "Do", OpCompare, "i < 3", "i <= 3")
	var only []string
	for _, m := range pick {
		only = append(only, m.ID)
	}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	o := &Options{Dir: fixture, Pkg: "lib", Build: "./cmd/fake", TestPkgs: []string{"./lib/"}, Seeds: 20, Workers: 1,
		Tests: true, Only: append(slices.Clone(only), equiv.ID), Results: results, BuildTimeout: 2 * time.Minute,
		TestTimeout: time.Minute, SwarmTimeout: time.Minute,
		Triage: []Judgement{{Kind: KindEquivalent, File: "lib/lib.go", Func: "Do", Operator: OpCompare,
			Original: "i < 3", Replacement: "i <= 3", Reason: "nothing checks n"}}}
	var progress bytes.Buffer
	rep, err := Execute(context.Background(), o, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	status := map[string]Entry{}
	for _, e := range rep.Mutants {
		status[e.ID] = e
	}
	for name, want := range map[string]Status{"swarm": KilledBySwarm, "swarm-late": KilledBySwarm,
		"tests": KilledByTests, "survives": Survived, "invalid": Invalid} {
		if got := status[pick[name].ID].Status; got != want {
			t.Errorf("%s mutant %s: %s, want %s\n%s", name, pick[name].ID, got, want, progress.String())
		}
	}
	if got := status[equiv.ID].Status; got != Equivalent {
		t.Errorf("mutant judged equivalent: %s", got)
	}
	if r := status[pick["swarm-late"].ID].Result; r == nil || r.FirstFailingSeed != 8 || r.SeedsToCatch != 8 {
		t.Errorf("swarm-late result %+v, want killed at seed 8", r)
	}
	if c := rep.Counts; c.Valid != 4 || rep.SwarmScore != 50 || rep.SuiteScore != 75 {
		t.Errorf("counts %+v, scores %v %v; want 4 valid, 50%% and 75%%", c, rep.SwarmScore, rep.SuiteScore)
	}
	if now, _ := os.ReadFile(p.Files[0]); !bytes.Equal(now, orig) {
		t.Fatal("the source tree was modified")
	}

	// A rerun finds everything recorded and runs nothing.
	progress.Reset()
	again, err := Execute(context.Background(), o, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(progress.String(), "baseline") {
		t.Errorf("the rerun ran mutants:\n%s", progress.String())
	}
	if again.SwarmScore != rep.SwarmScore || again.Counts != rep.Counts {
		t.Errorf("rerun: %+v, want %+v", again.Counts, rep.Counts)
	}

	// Main over the recorded results: the report, and -min-score.
	md := filepath.Join(t.TempDir(), "report.md")
	args := []string{"-C", fixture, "-pkg", "lib", "-build", "./cmd/fake", "-test-pkgs", "./lib/", "-seeds", "20",
		"-results", results, "-only", strings.Join(only, ","), "-o", md}
	var stdout, stderr bytes.Buffer
	if code := Main(append(args, "-min-score", "50"), &stdout, &stderr); code != 0 {
		t.Errorf("Main: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Swarm score: 50.0%", "Whole-suite score: 75.0%", pick["survives"].ID, "go run ./cmd/simrun mutate -C testdata/fixture"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if code := Main(append(args, "-min-score", "60"), &stdout, &stderr); code != 1 {
		t.Errorf("Main with a score below -min-score: exit %d, want 1", code)
	}
}

func TestMainUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-seeds", "0"},
		{"-sample", "3/2"},
		{"-sample", "x"},
		{"-min-score", "101"},
		{"-match", "("},
		{"extra"},
		{"-C", fixture, "-pkg", "lib", "-only", "lib-00000000", "-list"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("Main(%q) = %d with %q, want 2 and a message", args, code, stderr.String())
		}
	}
}

func TestSelect(t *testing.T) {
	ms := loadFixture(t, fixture).Enumerate()
	all, err := Select(ms, &Options{SampleK: 3, SampleM: 3})
	if err != nil || len(all) != len(ms) {
		t.Fatalf("3/3 sample: %d of %d, %v", len(all), len(ms), err)
	}
	half, _ := Select(ms, &Options{SampleK: 1, SampleM: 2})
	other, _ := Select(ms, &Options{SampleK: 2, SampleM: 2})
	if len(half) == 0 || len(half) == len(ms) || len(other) != len(ms) {
		t.Errorf("1/2 sample kept %d of %d", len(half), len(ms))
	}
	lim, _ := Select(ms, &Options{Limit: 2, SampleK: 1, SampleM: 2})
	if !slices.EqualFunc(lim, half[:2], func(a, b Mutant) bool { return a.ID == b.ID }) {
		t.Error("-limit does not keep the first mutants of the sample")
	}
}

func TestReusable(t *testing.T) {
	for _, c := range []struct {
		r     Result
		seeds int
		tests bool
		want  bool
	}{
		{Result{Status: Invalid}, 10, true, true},
		{Result{Status: KilledBySwarm, SeedsToCatch: 50, Seeds: 100}, 60, true, true},
		{Result{Status: KilledBySwarm, SeedsToCatch: 50, Seeds: 100}, 40, true, false},
		{Result{Status: KilledBySwarm, Verdict: "timeout", Seeds: 100}, 40, true, true},
		{Result{Status: Survived, Seeds: 100, Tested: true}, 100, true, true},
		{Result{Status: Survived, Seeds: 100}, 100, true, false},
		{Result{Status: Survived, Seeds: 100}, 100, false, true},
		{Result{Status: Survived, Seeds: 100, Tested: true}, 200, true, false},
		{Result{Status: KilledByTests, Seeds: 100, Tested: true}, 50, true, true},
	} {
		if got := Reusable(c.r, c.seeds, c.tests); got != c.want {
			t.Errorf("Reusable(%+v, %d, %v) = %v", c.r, c.seeds, c.tests, got)
		}
	}
}

// TestSetAreas: reporting code (a declaration, a sink's calls with their
// arguments, a reporting field, a local variable only reported, a hook)
// is observability; the rest is the election path.
func TestSetAreas(t *testing.T) {
	p := loadFixture(t, fixture)
	ms := p.Enumerate()
	p.SetAreas(ms, Scope{Funcs: []string{"Counter.Calls", "Counter.report"}, Sinks: []string{"Counter.report"},
		Fields: []string{"Counter.calls"}, Hooks: []string{"Hooks"}, RealDirective: "fixture:real",
		Config: []string{"Floor"}})
	for _, c := range []struct {
		fn         string
		op         Operator
		orig, repl string
		want       Area
	}{
		{"Counter.Add", OpArith, "c.n - before", "c.n + before", AreaObservability},
		{"Counter.Add", OpOffByOne, "1", "2", AreaObservability},
		{"Counter.Add", OpCompare, "f != nil", "f == nil", AreaObservability},
		{"Counter.Add", OpArith, "c.n += k", "c.n -= k", AreaElection},
		{"Counter.Add", OpReturnZero, "c.n", "0", AreaElection},
		{"Counter.Calls", OpReturnZero, "c.calls", "0", AreaObservability},
		{"Counter.Add", OpCompare, "k < 0", "k <= 0", AreaElection},
		{"Counter.Add", OpCompare, "c.n > 100", "c.n >= 100", AreaObservability},
		{"Expired", OpCompare, "now >= l.Deadline", "now > l.Deadline", AreaElection},
		{"SystemClock.Now", OpReturnZero, "time.Now()", "time.Time{}", AreaReal},
		{"Seed", OpOffByOne, "42", "43", AreaReal},
		{"Floor", OpOffByOne, "0", "1", AreaConfig},
	} {
		m := find(t, ms, c.fn, c.op, c.orig, c.repl)
		if want := c.want; m.Area != want {
			t.Errorf("%s %s %s: area %q, want %q", c.fn, c.op, m.Snippet(), m.Area, want)
		}
	}
	all := p.Enumerate()
	p.SetAreas(all, Scope{})
	for _, m := range all {
		if m.Area != AreaElection {
			t.Errorf("%s: area %q with an empty scope", m.ID, m.Area)
		}
	}
}
