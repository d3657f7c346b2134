package scenarios

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// rewrite makes TestGolden write the transcripts instead of checking them.
var rewrite = flag.Bool("rewrite", false, "rewrite the golden transcripts under testdata/golden from the runs")

// goldenStories are the failure-mode stories with the seed whose
// transcript tells each. Every seed is in the range its story's test
// checks, so the fault falls where the story says; where only some seeds
// show what the story is about, the seed is one of those.
var goldenStories = []struct {
	sc   harness.Scenario
	seed uint64
}{
	{PausePastLease, 1},
	{LateWrite, 1},
	{LateGrant, 1},
	{HungRenew, 1},
	{ZombieApp, 1},
	{WallClockJump, 1},
	{ClockSkew, 1},
	{DriftBeyondBound, 9}, // a drift past 20%: the leaders overlap and the fence refuses the old one
	{ElectorSkew, 1},
	{NaiveSkew, 1},
	{VMSuspend, 1},
	{MixedLeases, 1},
	{AmbiguousWrite, 1},
	{WriteConflict, 1},
	{UnconditionalWrite, 1},
	{CreateRace, 1},
	{ReleaseInFlight, 1},
	{RenewConflict, 2}, // terms that end at their deadline, no renewal getting through
	{LeaderCrash, 1},
	{ManyCandidates, 1},
	{RestoredRecord, 1},
	{DeleteLock, 4}, // a node restarted after the delete leads beside the old leader
	{OverwriteLock, 1},
	{WatermarkHandoff, 1},
	{WatermarkIgnored, 1},
	{TornRead, 1},
	{TornReadTrusted, 2}, // a token handed out twice
}

// TestGolden: each story's transcript (writeTranscript of its seed) is the one under testdata/golden; go test -run TestGolden -rewrite
// writes them anew, for a change that means to change a story.
func TestGolden(t *testing.T) {
	for _, g := range goldenStories {
		t.Run(g.sc.Name, func(t *testing.T) {
			got := goldenTranscript(t, g.sc, g.seed)
			path := filepath.Join("testdata", "golden", g.sc.Name+".txt")
			if *rewrite {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./scenarios -run TestGolden -rewrite writes it)", err)
			}
			if d := lineDiff(string(want), string(got)); d != "" {
				t.Errorf("the run no longer tells the story of %s (- the file, + the run; if the change is meant, go test ./scenarios -run TestGolden -rewrite):\n%s", path, d)
			}
		})
	}
}

// goldenTranscript runs seed of sc and writes its transcript under a
// header: the story, the run and the command that replays it.
func goldenTranscript(t *testing.T, sc harness.Scenario, seed uint64) []byte {
	t.Helper()
	o, err := harness.RunSeed(sc, seed, true)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, line := range wrap(sc.Doc, 100) {
		fmt.Fprintf(&b, "# %s\n", line)
	}
	fmt.Fprintf(&b, "run %s seed %d, expect %s\n# %s\n----\n", sc.Name, seed, sc.Expect, harness.Repro{Scenario: sc.Name, Seed: seed}.Command())
	if err := writeTranscript(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wrap breaks text into lines of at most width bytes, between words.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines, line = append(lines, line), ""
		}
		line = strings.TrimPrefix(line+" "+w, " ")
	}
	return append(lines, line)
}

// lineDiff shows how got differs from want, line by line: the lines only
// want has prefixed "-", those only got has "+", with two lines of context
// around each change; "" if they are equal.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []string // each line with its prefix: " ", "-" or "+"
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops, i, j = append(ops, "  "+a[i]), i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops, i = append(ops, "- "+a[i]), i+1
		default:
			ops, j = append(ops, "+ "+b[j]), j+1
		}
	}
	var out []string
	shown := -1 // the last line of ops written
	for k, op := range ops {
		if op[0] == ' ' {
			continue
		}
		from := max(k-2, shown+1)
		if from > shown+1 && shown >= 0 {
			out = append(out, "  ...")
		}
		for n := from; n <= min(k+2, len(ops)-1); n++ {
			if n > shown {
				out, shown = append(out, ops[n]), n
			}
		}
	}
	return strings.Join(out, "\n")
}
