package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// failingSeed returns the first seed of sc from 1 whose run fails.
func failingSeed(t *testing.T, sc harness.Scenario) *harness.Outcome {
	t.Helper()
	for seed := uint64(1); seed <= 50; seed++ {
		o, err := harness.RunSeed(sc, seed, true)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			return o
		}
	}
	t.Fatalf("%s: no failing seed in 1..50", sc.Name)
	return nil
}

func loadBytes(t *testing.T, b []byte) *harness.Reproducer {
	t.Helper()
	r, err := harness.LoadReproducer(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("load: %v\n%s", err, b)
	}
	return r
}

func marshal(t *testing.T, r *harness.Reproducer) []byte {
	t.Helper()
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReproducerRoundTrip: a reproducer written and read back is equal,
// with and without plan, overrides and expectation.
func TestReproducerRoundTrip(t *testing.T) {
	o := failingSeed(t, NaiveSkew)
	for _, r := range []*harness.Reproducer{
		harness.ReproducerFor(scenario(t, o.Scenario), o),
		{Version: harness.ReproVersion, Scenario: "reference", Seed: 42},
		{Version: harness.ReproVersion, Scenario: "swarm", Seed: 1<<64 - 1, Nodes: 3, Duration: faults.Duration(50*time.Second + 1)},
		{Version: harness.ReproVersion, Scenario: "naive-skew", Seed: 7, Nodes: 2, Duration: faults.Duration(30 * time.Second),
			Plan: &faults.Plan{HealAt: faults.Duration(20 * time.Second), Clocks: []faults.ClockSetting{{Node: 1, Offset: faults.Duration(-1500 * time.Millisecond)}},
				Events: []faults.Event{{Kind: faults.Overwrite, At: faults.Duration(time.Second), Body: "{\"x\": \"\u00e9\"}"}},
				S3:     faults.Knobs{LostPPM: 5, SlowPPM: 1, SlowMax: faults.Duration(time.Second)}, SDKAttempts: 3},
			Expect: &harness.Signature{Verdict: "unsafe", Checkers: []string{"fencing/stale-accepted", "overlap"}}},
	} {
		b := marshal(t, r)
		back := loadBytes(t, b)
		if !reflect.DeepEqual(r, back) {
			t.Errorf("round trip changed the reproducer:\n%+v\n%+v\n%s", r, back, b)
		}
	}
	if harness.ReproducerFor(scenario(t, o.Scenario), o).Expect.Verdict != "unsafe" {
		t.Errorf("naive-skew seed %d: expectation %v", o.Seed, harness.ReproducerFor(scenario(t, o.Scenario), o).Expect)
	}
}

// TestLoadReproducerRefuses: every kind of malformed or incompatible file is
// refused with ErrBadReproducer and a message that says what is wrong.
func TestLoadReproducerRefuses(t *testing.T) {
	plan := func(s string) string {
		return `{"version":1,"scenario":"naive-skew","seed":1,"plan":` + s + `}`
	}
	for _, c := range []struct{ name, file, says string }{
		{"empty", ``, "not a JSON reproducer"},
		{"not JSON", `version: 1`, "not a JSON reproducer"},
		{"array", `[1]`, "not a JSON reproducer"},
		{"null", `null`, "no \"version\""},
		{"no version", `{"scenario":"reference","seed":1}`, "no \"version\""},
		{"version 0", `{"version":0,"scenario":"reference","seed":1}`, "version 0"},
		{"version 2", `{"version":2,"scenario":"reference","seed":1,"newField":true}`, "version 2"},
		{"version as text", `{"version":"1","scenario":"reference","seed":1}`, "version"},
		{"unknown field", `{"version":1,"scenario":"reference","seed":1,"seeds":3}`, "unknown field"},
		{"unknown plan field", plan(`{"healAt":"1s","s3":{},"jitter":1}`), "unknown field"},
		{"trailing data", `{"version":1,"scenario":"reference","seed":1} {}`, "after"},
		{"truncated", `{"version":1,"scenario":"reference","seed":1`, "end of JSON"},
		{"no scenario", `{"version":1,"seed":1}`, "no scenario"},
		{"unknown scenario", `{"version":1,"scenario":"nope","seed":1}`, "unknown scenario"},
		{"negative seed", `{"version":1,"scenario":"reference","seed":-1}`, "seed"},
		{"fractional seed", `{"version":1,"scenario":"reference","seed":1.5}`, "seed"},
		{"nodes negative", `{"version":1,"scenario":"reference","seed":1,"nodes":-1}`, "nodes -1"},
		{"nodes huge", `{"version":1,"scenario":"reference","seed":1,"nodes":100000}`, "nodes 100000"},
		{"duration negative", `{"version":1,"scenario":"reference","seed":1,"duration":"-1s"}`, "negative"},
		{"duration not a duration", `{"version":1,"scenario":"reference","seed":1,"duration":"soon"}`, "bad duration"},
		{"duration as number", `{"version":1,"scenario":"reference","seed":1,"duration":60}`, "duration"},
		{"duration before heal", `{"version":1,"scenario":"reference","seed":1,"duration":"30s"}`, "healAt"},
		{"duration at heal", `{"version":1,"scenario":"naive-skew","seed":1,"duration":"20s","plan":{"healAt":"20s","s3":{}}}`, "no liveness phase"},
		{"plan heals after the end", plan(`{"healAt":"2m","s3":{}}`), "healAt"},
		{"plan event node beyond nodes", `{"version":1,"scenario":"naive-skew","seed":1,"nodes":2,"plan":{"healAt":"10s","events":[{"kind":"crash","at":"1s","node":4}],"s3":{}}}`, "node 4 of 2"},
		{"plan clock node beyond nodes", `{"version":1,"scenario":"naive-skew","seed":1,"nodes":2,"plan":{"healAt":"10s","clocks":[{"node":2,"offset":"1s","driftPPM":0}],"s3":{}}}`, "node 2 of 2"},
		{"plan unknown kind", plan(`{"healAt":"10s","events":[{"kind":"meteor","node":0}],"s3":{}}`), "unknown kind"},
		{"plan fault past heal", plan(`{"healAt":"10s","events":[{"kind":"pause","at":"9s","for":"2s","node":0}],"s3":{}}`), "past healAt"},
		{"plan knob out of range", plan(`{"healAt":"10s","s3":{"lostPPM":2000000}}`), "knob"},
		{"plan aimed at nothing", plan(`{"healAt":"10s","events":[{"kind":"answer-lost","node":0}],"s3":{}}`), "aimed at no request"},
		{"plan as list", plan(`[]`), "plan"},
		{"expect no verdict", `{"version":1,"scenario":"reference","seed":1,"expect":{}}`, "expected verdict"},
		{"expect unknown verdict", `{"version":1,"scenario":"reference","seed":1,"expect":{"verdict":"stuck"}}`, "expected verdict \"stuck\""},
		{"expect pass with checkers", `{"version":1,"scenario":"reference","seed":1,"expect":{"verdict":"pass","checkers":["overlap"]}}`, "no checkers"},
		{"expect empty checker", `{"version":1,"scenario":"reference","seed":1,"expect":{"verdict":"unsafe","checkers":[""]}}`, "empty"},
		{"expect unknown field", `{"version":1,"scenario":"reference","seed":1,"expect":{"verdict":"unsafe","hash":"ab"}}`, "unknown field"},
	} {
		r, err := harness.LoadReproducer(strings.NewReader(c.file))
		if err == nil {
			// What the file says of its scenario is judged against it.
			var sc harness.Scenario
			if sc, err = project.Resolve(r); err == nil {
				_, err = r.Setup(sc)
			}
		}
		switch {
		case err == nil:
			t.Errorf("%s: accepted %s", c.name, c.file)
		case !errors.Is(err, harness.ErrBadReproducer):
			t.Errorf("%s: error %v does not wrap ErrBadReproducer", c.name, err)
		case !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: error %q does not say %q", c.name, err, c.says)
		}
	}
	if _, err := harness.LoadReproducer(strings.NewReader(strings.Repeat(" ", harness.MaxReproBytes+1))); !errors.Is(err, harness.ErrBadReproducer) {
		t.Errorf("oversized file: %v", err)
	}
}

// TestReproducerOverrides: a smaller Nodes without a plan drops the
// scenario plan's clocks and events of the missing nodes; Duration replaces
// the run's length.
func TestReproducerOverrides(t *testing.T) {
	r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: "naive-skew", Seed: 3, Nodes: 2, Duration: faults.Duration(45 * time.Second)}
	s, err := r.Setup(scenario(t, r.Scenario))
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Nodes != 2 || s.Config.Duration != 45*time.Second {
		t.Fatalf("config nodes %d duration %v", s.Config.Nodes, s.Config.Duration)
	}
	if len(s.Plan.Clocks) != 2 || len(s.Plan.Events) != 4 {
		t.Fatalf("plan for 2 nodes has %d clocks and %d events: %+v", len(s.Plan.Clocks), len(s.Plan.Events), s.Plan)
	}
	full := NaiveSkew.Build(3).Plan
	if len(full.Clocks) != 5 || len(full.Events) != 10 {
		t.Fatalf("Setup changed the scenario's own plan: %+v", full)
	}
	o, err := r.Run(scenario(t, r.Scenario), false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.History.Nodes != 2 || o.Result.History.End != 45*time.Second || o.Scenario != "naive-skew" || o.Seed != 3 {
		t.Fatalf("ran %d nodes until %v as %s seed %d", o.Result.History.Nodes, o.Result.History.End, o.Scenario, o.Seed)
	}
	// ReproducerFor keeps the overrides of the run it is made from.
	back := harness.ReproducerFor(scenario(t, o.Scenario), o)
	if back.Nodes != 2 || back.Duration.D() != 45*time.Second || len(back.Plan.Events) != 4 {
		t.Fatalf("ReproducerFor lost the overrides: %+v", back)
	}
}

// TestSignatureOf: checkers and rules of the deciding violations, sorted and
// de-duplicated; expected violations and times do not count.
func TestSignatureOf(t *testing.T) {
	o := &harness.Outcome{Verdict: harness.Unsafe, Violations: []linearizability.Violation{
		{Checker: "overlap", At: 3 * time.Second, Nodes: []int{1, 2}},
		{Checker: "fencing", Rule: linearizability.RuleStaleAccepted, At: time.Second},
		{Checker: "overlap", At: time.Second, Nodes: []int{0, 4}},
	}, Excused: []harness.Excused{{Violation: linearizability.Violation{Checker: "monotonic-tokens"}}}}
	s := harness.SignatureOf(o)
	if want := (harness.Signature{Verdict: "unsafe", Checkers: []string{"fencing/stale-accepted", "overlap"}}); !s.Equal(want) {
		t.Fatalf("signature %+v, want %+v", s, want)
	}
	if got := s.String(); got != "unsafe: fencing/stale-accepted, overlap" {
		t.Fatalf("String() = %q", got)
	}
	if got := harness.SignatureOf(&harness.Outcome{Verdict: harness.Pass}).String(); got != "pass" {
		t.Fatalf("pass: %q", got)
	}
	crashed := &harness.Outcome{Verdict: harness.Crashed, Result: &sim.Result{Failure: &sim.Failure{Kind: sim.FailurePanic}}}
	if got := harness.SignatureOf(crashed).String(); got != "crashed: panic" {
		t.Fatalf("crashed: %q", got)
	}
}

// TestReplayReproducerSameRun: a reproducer written from a failing run and
// read back replays the same run: verdict, signature and trace hash.
func TestReplayReproducerSameRun(t *testing.T) {
	for _, sc := range []harness.Scenario{NaiveSkew, UnconditionalWrite} {
		o := failingSeed(t, sc)
		b := marshal(t, harness.ReproducerFor(scenario(t, o.Scenario), o))
		r := loadBytes(t, b)
		again, err := r.Run(scenario(t, r.Scenario), true)
		if err != nil {
			t.Fatal(err)
		}
		if again.Verdict != o.Verdict || !harness.SignatureOf(again).Equal(harness.SignatureOf(o)) || again.Result.Hash() != o.Result.Hash() {
			t.Fatalf("%s seed %d: replay gives %v %v hash %x; the run gave %v %v hash %x", sc.Name, o.Seed,
				again.Verdict, harness.SignatureOf(again), again.Result.Hash(), o.Verdict, harness.SignatureOf(o), o.Result.Hash())
		}
		if len(again.Result.Trace.Events) != len(o.Result.Trace.Events) {
			t.Fatalf("%s seed %d: traces of %d and %d events", sc.Name, o.Seed, len(again.Result.Trace.Events), len(o.Result.Trace.Events))
		}
		t.Logf("%s seed %d: %s, hash %016x, reproducer of %d bytes", sc.Name, o.Seed, harness.SignatureOf(o), o.Result.Hash(), len(b))
	}
}

// TestEveryScenarioReproduces: for every scenario, the reproducer of a run
// loads and replays it exactly: its plan survives JSON without loss.
func TestEveryScenarioReproduces(t *testing.T) {
	for _, name := range project.Names() {
		sc, _ := project.Lookup(name)
		o, err := harness.RunSeed(sc, 2, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := loadBytes(t, marshal(t, harness.ReproducerFor(scenario(t, o.Scenario), o)))
		if r.Nodes != 0 || r.Duration != 0 {
			t.Errorf("%s: a scenario's own run gave overrides: nodes %d, duration %v", name, r.Nodes, r.Duration)
		}
		again, err := r.Run(scenario(t, r.Scenario), false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if again.Result.Hash() != o.Result.Hash() || !harness.SignatureOf(again).Equal(*r.Expect) {
			t.Errorf("%s seed 2: replay of its reproducer differs: %s hash %x, want %s hash %x",
				name, harness.SignatureOf(again), again.Result.Hash(), r.Expect, o.Result.Hash())
		}
	}
}

// TestWriteFileAtomic: the file has the whole content, is readable by
// others, replaces an old one, and leaves no temporary file behind.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "repro.json")
	for _, content := range []string{"first\n", "second, longer\n"} {
		if err := harness.WriteFileAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(entries))
	}
	if err := harness.WriteFileAtomic(filepath.Join(dir, "no-such-dir", "x.json"), []byte("x")); err == nil {
		t.Fatal("wrote into a missing directory")
	}
}

// FuzzLoadReproducer: no input makes LoadReproducer panic; every input it
// accepts writes out and loads back equal.
func FuzzLoadReproducer(f *testing.F) {
	f.Add([]byte(`{"version":1,"scenario":"reference","seed":1}`))
	f.Add([]byte(`{"version":1,"scenario":"swarm","seed":18446744073709551615,"nodes":3,"duration":"50s"}`))
	f.Add([]byte(`{"version":1,"scenario":"naive-skew","seed":7,"nodes":2,"duration":"30s","plan":{"healAt":"20s",` +
		`"clocks":[{"node":1,"offset":"-1.5s","driftPPM":-20}],"events":[{"kind":"crash","at":"1s","node":0},{"kind":"restart","at":"2s","node":0,"identity":"x"},` +
		`{"kind":"answer-failed","node":1,"op":"PutObject","nth":2,"code":"InternalError"},{"kind":"overwrite","at":"3s","body":"{}"}],` +
		`"s3":{"lostPPM":5,"slowPPM":1,"slowMax":"1s"},"sdkAttempts":3},"expect":{"verdict":"unsafe","checkers":["overlap","fencing/stale-accepted"]}}`))
	f.Add([]byte(`{"version":1,"scenario":"reference","seed":1,"plan":{"healAt":"0s","clocks":[],"events":[],"s3":{}},"expect":{"verdict":"pass","checkers":[]}}`))
	f.Add([]byte(`{"version":1,"scenario":"reference","seed":1,"duration":"-2562047h47m16.854775808s"}`))
	f.Add([]byte(`{"VERSION":1,"Scenario":"reference","seed":1,"seed":2}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"scenario":"reference","seed":1} x`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := harness.LoadReproducer(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, harness.ErrBadReproducer) {
				t.Fatalf("error %v does not wrap ErrBadReproducer", err)
			}
			return
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("accepted reproducer does not marshal: %v", err)
		}
		back, err := harness.LoadReproducer(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("written form of an accepted reproducer refused: %v\n%s\nfrom %q", err, b, data)
		}
		if !reflect.DeepEqual(r, back) {
			t.Fatalf("round trip changed the reproducer:\n%+v\n%+v\n%s", r, back, b)
		}
	})
}
