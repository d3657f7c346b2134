package simrun

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/internal/catalog"
	"github.com/s3lease/s3lease/internal/schema"
)

// project is every scenario of the project, as cmd/simrun has them.
var project = catalog.New()

// run runs simrun with every scenario of the project, as cmd/simrun does
// (without its tools).
func run(args []string, stdout, stderr io.Writer) int { return testCLI().run(args, stdout, stderr) }

// testCLI is simrun with every scenario of the project. Its progress
// reports never tick, so that what a test reads on stderr does not depend
// on how long its commands take; a test of the reports gives its own
// ticks.
func testCLI() *program {
	cli, err := newProgram([]Option{Scenarios(project.Scenarios()...)})
	if err != nil {
		panic(err)
	}
	cli.ticker = func(bool) (<-chan time.Time, func()) { return nil, func() {} }
	return cli
}

// TestMain lets the test binary act as simrun itself, so that tests can run
// it in fresh processes with a chosen environment: on the arguments in
// $SIMRUN_CHILD_ARGS, or, with SIMRUN_CHILD=argv, on its own, as a built
// simrun would (testCLI: newProgram, with how it was invoked).
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("SIMRUN_CHILD_ARGS"); ok {
		os.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	if os.Getenv("SIMRUN_CHILD") == "argv" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child runs simrun with args in a new process with the extra environment.
func child(t *testing.T, args string, env ...string) []byte {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), "SIMRUN_CHILD_ARGS="+args), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("simrun %s: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// TestReplayIsByteIdenticalAcrossProcesses is the harness checking its own
// determinism: the same seed replayed in two separate processes, one with
// GOMAXPROCS=1 and one with GOMAXPROCS=2, prints byte-identical traces, in
// both the readable and the JSON form.
func TestReplayIsByteIdenticalAcrossProcesses(t *testing.T) {
	for _, args := range []string{"replay -seed 7", "replay -seed 12345 -json"} {
		one := child(t, args, "GOMAXPROCS=1")
		two := child(t, args, "GOMAXPROCS=2")
		if !bytes.Equal(one, two) {
			t.Fatalf("simrun %s: output differs between GOMAXPROCS=1 and GOMAXPROCS=2 (%d vs %d bytes)", args, len(one), len(two))
		}
		if len(one) < 1000 || !bytes.Contains(one, []byte("PutObject")) {
			t.Fatalf("simrun %s: suspiciously small trace:\n%s", args, one)
		}
	}
}

// TestDifferentSeedsGiveDifferentRuns guards the determinism check against a
// trace that ignores the seed.
func TestDifferentSeedsGiveDifferentRuns(t *testing.T) {
	hashes := map[string]uint64{}
	for seed := uint64(1); seed <= 20; seed++ {
		var doc schema.Replay
		var out, errOut bytes.Buffer
		if code := run([]string{"replay", "-json", "-seed", itoa(seed)}, &out, &errOut); code != exitOK {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errOut.String())
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if prev, dup := hashes[doc.Hash]; dup {
			t.Fatalf("seeds %d and %d have the same trace hash %s", prev, seed, doc.Hash)
		}
		hashes[doc.Hash] = seed
	}
}

func itoa(u uint64) string {
	b, _ := json.Marshal(u)
	return string(b)
}

// TestBadUsageExitsTwo checks that every kind of bad input gets a message
// and exit status 2, never a panic or a silent default.
func TestBadUsageExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run", "-seeds", "0"},
		{"run", "-seeds", "many"},
		{"run", "-workers", "0"},
		{"run", "-scenario", "no-such-scenario"},
		{"run", "-seed", "3", "-seeds", "10"},
		{"run", "stray"},
		{"replay"},
		{"replay", "-seed", "-1"},
		{"replay", "-seed", "1", "-scenario", "nope"},
		{"bench", "-seeds", "-5"},
		{"bench", "-table", "-workers", "2"},
		{"bench", "-table", "-scenario", "reference"},
		{"list", "extra"},
		{"explore", "-nodes", "0"},
		{"explore", "-duration", "-1s"},
		{"explore", "-path", "nonsense"},
		{"explore", "-scenario", "nope"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("simrun %q: exit %d, want 2 (stderr %q)", args, code, errOut.String())
		} else if errOut.Len() == 0 {
			t.Errorf("simrun %q: exit 2 without a message", args)
		}
	}
}

// TestRunReportsSummary runs a small campaign and checks the JSON summary.
func TestRunReportsSummary(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"run", "-seeds", "20", "-start", "100", "-json"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	var sum schema.Run
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Seeds != 20 || sum.Pass != 20 || sum.FirstSeed != 100 || sum.Scenario != "swarm" {
		t.Fatalf("summary = %+v", sum)
	}
}

// TestExploreExhaustsSmallElector: the production elector with two nodes
// survives every schedule within small bounds, and the search ends, with
// partial-order reduction and without; the reduction runs fewer
// executions, says how many branches it pruned, and the full search says
// nothing of a reduction.
func TestExploreExhaustsSmallElector(t *testing.T) {
	var sums [2]schema.Explore
	for i, por := range []string{"-por", "-por=false"} {
		var out, errOut bytes.Buffer
		code := run([]string{"explore", "-depth", "20", por, "-json"}, &out, &errOut)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s%s", por, code, out.String(), errOut.String())
		}
		if err := json.Unmarshal(out.Bytes(), &sums[i]); err != nil {
			t.Fatal(err)
		}
		if s := sums[i]; !s.Exhausted || s.Verdict != "pass" {
			t.Fatalf("%s: summary = %+v", por, s)
		}
	}
	por, full := sums[0], sums[1]
	if !por.POR || por.Pruned == 0 || full.POR || full.Pruned != 0 || full.StoppedEarly != 0 ||
		full.Executions < 100 || por.Executions >= full.Executions {
		t.Fatalf("reduced %+v\nfull %+v", por, full)
	}
}
