package simvet_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/simvet"
)

// TestMainProtocol checks the module's protocol package, which runs under
// the simulator, and expects it clean.
func TestMainProtocol(t *testing.T) {
	var out strings.Builder
	n, err := simvet.Main(t.Context(), []string{"./protocol/..."}, "..", &out)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("simvet finds %d problems in ./protocol, which runs under the simulator:\n%s", n, out.String())
	}
}

// TestMainFixture checks the output format and order on a fixture.
func TestMainFixture(t *testing.T) {
	var out strings.Builder
	n, err := simvet.Main(t.Context(), []string{"./testdata/src/flagged"}, ".", &out)
	if err != nil {
		t.Fatal(err)
	}
	lines := outputLines(out.String())
	if n == 0 || len(lines) != n {
		t.Fatalf("Main returned %d findings, printed %d lines:\n%s", n, len(lines), out.String())
	}
	format := regexp.MustCompile(`^testdata/src/flagged/\w+\.go:\d+:\d+: \S`)
	for _, line := range lines {
		if !format.MatchString(line) {
			t.Errorf("line not file:line:col: message relative to dir: %q", line)
		}
	}
	for _, want := range []string{": time.Now ", ": time.Sleep ", ": math/rand.Intn ", ": go statement ",
		": channel receive ", ": select without a default", ": sync.WaitGroup.Wait "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no finding %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "_test.go") {
		t.Errorf("a _test.go file was analysed:\n%s", out.String())
	}
	// Sorted by file, then line and column: compare with a second run.
	var again strings.Builder
	if _, err := simvet.Main(t.Context(), []string{"./testdata/src/flagged"}, ".", &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != out.String() {
		t.Errorf("two runs differ:\n%s\n---\n%s", out.String(), again.String())
	}
	if !slices.IsSortedFunc(lines, func(a, b string) int {
		fa, _, _ := strings.Cut(a, ":")
		fb, _, _ := strings.Cut(b, ":")
		return strings.Compare(fa, fb)
	}) {
		t.Errorf("findings not sorted by file:\n%s", out.String())
	}
}

func TestMainClean(t *testing.T) {
	var out strings.Builder
	n, err := simvet.Main(t.Context(), []string{"./testdata/src/allowed"}, ".", &out)
	if err != nil || n != 0 || out.Len() != 0 {
		t.Errorf("Main on a clean package = %d, %v, output %q; want 0, nil, nothing", n, err, out.String())
	}
}

func TestMainErrors(t *testing.T) {
	for _, pattern := range []string{
		"./testdata/src/nonexistent", // no such directory
		"./testdata/...",             // ./... patterns skip testdata: matches nothing
		"./testdata/src/broken",      // a type error
	} {
		var out strings.Builder
		n, err := simvet.Main(t.Context(), []string{pattern}, ".", &out)
		if err == nil || n != 0 || out.Len() != 0 {
			t.Errorf("Main(%s) = %d, %v, output %q; want 0, an error, nothing", pattern, n, err, out.String())
		} else {
			t.Logf("Main(%s): %v", pattern, err)
		}
	}
}

func outputLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
