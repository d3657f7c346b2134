package simrun

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite the README's sample outputs from their commands")

// readmeSample is one sample output in the README: the line
//
//	<!-- sample: ARGS -->            the block is what 'simrun ARGS' prints
//	<!-- sample: ARGS; file NAME --> the block is the file NAME it writes
//	<!-- sample: ARGS; excerpt -->   the block's lines appear, in order, in what it prints
//
// followed by a fenced block. ARGS may be several commands joined by
// " && ", run in order; the sample is the last one's. The samples run in
// the README's order in one directory, so a sample may use the files an
// earlier one wrote.
type readmeSample struct {
	args    [][]string
	file    string
	excerpt bool
	// first and last are the block's content lines in the README.
	first, last int
}

var sampleLine = regexp.MustCompile(`^<!-- sample: (.+?) -->$`)

// readmeSamples finds the samples of the README's lines.
func readmeSamples(t *testing.T, lines []string) []readmeSample {
	var samples []readmeSample
	for i := 0; i < len(lines); i++ {
		m := sampleLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("README line %d: a sample marker must be followed by a fenced block", i+1)
		}
		s := readmeSample{first: i + 2}
		parts := strings.Split(m[1], ";")
		for _, c := range strings.Split(parts[0], " && ") {
			s.args = append(s.args, strings.Fields(c))
		}
		for _, p := range parts[1:] {
			switch p = strings.TrimSpace(p); {
			case p == "excerpt":
				s.excerpt = true
			case strings.HasPrefix(p, "file "):
				s.file = strings.TrimPrefix(p, "file ")
			default:
				t.Fatalf("README line %d: unknown sample option %q", i+1, p)
			}
		}
		for s.last = s.first; s.last < len(lines) && lines[s.last] != "```"; s.last++ {
		}
		if s.last == len(lines) {
			t.Fatalf("README line %d: the sample's block is not closed", i+1)
		}
		samples = append(samples, s)
		i = s.last
	}
	return samples
}

// volatile are the parts of an output that depend on the machine, not on
// the seed: wall times and rates.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9]+(\.[0-9]+)? seeds/s`), "N seeds/s"},
	{regexp.MustCompile(`wall [0-9]+(\.[0-9]+)?s`), "wall Ts"},
	{regexp.MustCompile(`\bin [0-9]+(\.[0-9]+)?s\b`), "in Ts"},
}

func normalize(s string) []string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// TestREADMESamples runs the command of every sample output in the README
// and checks that it prints (or writes) what the README shows, but for
// wall times and rates. -update-readme rewrites the samples that are not
// excerpts.
func TestREADMESamples(t *testing.T) {
	path, err := filepath.Abs("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	samples := readmeSamples(t, lines)
	if len(samples) < 4 {
		t.Fatalf("the README has %d sample outputs; want the main job's, explore's, a reproducer and a trace", len(samples))
	}
	t.Chdir(t.TempDir()) // the commands write their files here
	outputs := make([]string, len(samples))
	for i, s := range samples {
		for _, args := range s.args {
			var out, errOut bytes.Buffer
			if code := run(args, &out, &errOut); code == exitUsage {
				t.Fatalf("README sample 'simrun %s': usage error: %s", strings.Join(args, " "), errOut.String())
			}
			outputs[i] = out.String()
		}
		if s.file != "" {
			b, err := os.ReadFile(s.file)
			if err != nil {
				t.Fatalf("README sample %q: %v", s.file, err)
			}
			outputs[i] = string(b)
		}
	}
	for i := len(samples) - 1; i >= 0; i-- { // from the end, so that rewriting keeps earlier line numbers
		s, got := samples[i], outputs[i]
		if *updateREADME && !s.excerpt {
			lines = append(lines[:s.first], append(strings.Split(strings.TrimRight(got, "\n"), "\n"), lines[s.last:]...)...)
			continue
		}
		if err := matchSample(normalize(got), normalize(strings.Join(lines[s.first:s.last], "\n")), s.excerpt); err != nil {
			t.Errorf("README line %d: the sample no longer shows what its command prints (go test ./simrun -run TestREADMESamples -update-readme rewrites it): %v\n--- it prints:\n%s",
				s.first, err, got)
		}
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// matchSample checks that got is want, or with excerpt that want's lines
// appear in got in order.
func matchSample(got, want []string, excerpt bool) error {
	if !excerpt {
		for i := range max(len(got), len(want)) {
			g, w := "", ""
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				return fmt.Errorf("line %d: README %q, command %q", i+1, w, g)
			}
		}
		return nil
	}
	j := 0
	for _, g := range got {
		if j < len(want) && g == want[j] {
			j++
		}
	}
	if j < len(want) {
		return fmt.Errorf("README line %q is not in the output (in this order)", want[j])
	}
	return nil
}
