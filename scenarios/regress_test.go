package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// The regression corpus: every *.json file in testdata/regress is a
// reproducer file (the format of `simrun replay -o` and `simrun shrink`)
// with an "expect", and replays to exactly that verdict and signature.
// Add one by writing a reproducer there and filling in its expectation:
//
//	go run ./cmd/simrun replay -scenario zoo/same-token -seed 14 -o scenarios/testdata/regress/zoo-same-token.json
//	go run ./cmd/simrun shrink scenarios/testdata/regress/zoo-same-token.json
//	go test -run '^TestRegress' -v ./scenarios/
//
// (shrink writes the minimised file next to its input, as NAME.min.json;
// keep the one you mean.) A file that stops showing what it expects fails
// the test with the command that replays it.

const regressDir = "testdata/regress"

// corpusResult is the replay of one corpus file.
type corpusResult struct {
	path string
	got  harness.Signature
	err  error // a malformed file, a run that cannot start, or another signature
}

// replayCorpus replays every *.json file in dir, in name order. A
// directory with no such file is an error: a corpus that silently shrank to
// nothing would test nothing.
func replayCorpus(dir string) ([]corpusResult, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s holds no reproducer files (*.json)", dir)
	}
	out := make([]corpusResult, len(paths))
	for i, p := range paths {
		out[i].path = p
		out[i].got, out[i].err = replayCorpusFile(p)
	}
	return out, nil
}

// replayCorpusFile loads one reproducer, refusing one without an
// expectation, runs it and compares its signature with the expectation.
func replayCorpusFile(path string) (harness.Signature, error) {
	f, err := os.Open(path)
	if err != nil {
		return harness.Signature{}, err
	}
	defer f.Close()
	r, err := harness.LoadReproducer(f)
	if err != nil {
		return harness.Signature{}, fmt.Errorf("malformed reproducer: %w", err)
	}
	if r.Expect == nil {
		return harness.Signature{}, errors.New(`malformed regression entry: no "expect"; a regression file must say what its run shows`)
	}
	sc, err := project.Resolve(r)
	if err != nil {
		return harness.Signature{}, err
	}
	o, err := r.Run(sc, false)
	if err != nil {
		return harness.Signature{}, fmt.Errorf("cannot run: %w", err)
	}
	got := harness.SignatureOf(o)
	if !got.Equal(*r.Expect) {
		from := path // as the command line at the repository's root names it
		if !filepath.IsAbs(from) {
			from = filepath.Join("scenarios", from)
		}
		return got, fmt.Errorf("shows %q, but the file expects %q (replay: go run ./cmd/simrun replay %s)", got, *r.Expect, from)
	}
	return got, nil
}

// TestRegressCorpus: every file of the corpus replays to its expectation,
// and the corpus holds both failures the harness must catch and runs the
// production elector must pass.
func TestRegressCorpus(t *testing.T) {
	results, err := replayCorpus(regressDir)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s: %v", r.path, r.err)
			continue
		}
		verdicts[r.got.Verdict]++
		t.Logf("%s: %s", filepath.Base(r.path), r.got)
	}
	if verdicts[harness.Pass.String()] == 0 || verdicts[harness.Unsafe.String()] == 0 {
		t.Errorf("the corpus should hold runs expected to pass and runs expected to be unsafe; it holds %v", verdicts)
	}
}

// TestRegressCorpusRefusesMalformed: a malformed file, a file without an
// expectation, or one whose run shows something else fails the corpus with
// a message naming the file and the problem, and does not hide the good
// files beside it; an empty corpus is an error too.
func TestRegressCorpusRefusesMalformed(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(regressDir, "naive-skew.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replayCorpus(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no reproducer files") {
		t.Errorf("empty corpus: %v; want an error saying it holds no files", err)
	}
	for _, c := range []struct {
		name, content, want string
	}{
		{"truncated.json", string(good[:len(good)/2]), "malformed reproducer"},
		{"not-json.json", "scenario: naive-skew\n", "malformed reproducer"},
		{"unknown-field.json", strings.Replace(string(good), `"seed"`, `"seeed"`, 1), `unknown field "seeed"`},
		{"no-expect.json", `{"version": 1, "scenario": "naive-skew", "seed": 1}`, `no "expect"`},
		{"wrong-expect.json", strings.Replace(string(good), `"overlap"`, `"unique-holder"`, 1), "but the file expects"},
	} {
		dir := t.TempDir()
		for name, data := range map[string]string{"good.json": string(good), c.name: c.content} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		results, err := replayCorpus(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			switch filepath.Base(r.path) {
			case "good.json":
				if r.err != nil {
					t.Errorf("%s: the good file beside it failed: %v", c.name, r.err)
				}
			case c.name:
				if r.err == nil || !strings.Contains(r.err.Error(), c.want) {
					t.Errorf("%s: error %v; want one containing %q", c.name, r.err, c.want)
				} else {
					t.Logf("%s: %v", c.name, r.err)
				}
			}
		}
		if len(results) != 2 {
			t.Errorf("%s: %d results for 2 files", c.name, len(results))
		}
	}
}
