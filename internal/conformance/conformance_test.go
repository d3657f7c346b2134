package conformance

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

var update = flag.Bool("update", false, "rewrite "+reportPath+" from today's answers (needs versitygw: "+VersityGWInstall+")")

// reportPath is the committed report, relative to this package.
var reportPath = filepath.Join("..", "..", "docs", "conformance.md")

// Column headers.
const (
	colSimAWS      = "sim aws dialect"
	colSimGoFakeS3 = "sim gofakes3 dialect"
	colGoFakeS3    = "gofakes3 server"
	colVersityGW   = "versitygw server"
)

const stepTimeout = 30 * time.Second

// runAll runs every case and every race against store, the implementation
// named name, and returns the answers by row id and race name. It logs the
// counts of the races of reads against writes, which vary from run to run.
func runAll(t *testing.T, name string, store sim.S3Client) map[string]string {
	t.Helper()
	answers := make(map[string]string)
	for _, c := range Cases() {
		for i, a := range Run(context.Background(), store, testBucket, c, stepTimeout) {
			answers[c.RowID(i)] = a
		}
	}
	for _, r := range Races() {
		res, err := r.Run(context.Background(), store, testBucket, stepTimeout)
		if err != nil {
			t.Fatalf("race %s: %v", r.Name, err)
		}
		answers[r.Name] = res.Summary()
		if r.Readers > 0 {
			t.Logf("%s, %s: %d torn GETs of %d (%d raced a write)", name, r.Name, res.Torn, res.Reads, res.Raced)
		}
	}
	return answers
}

func simColumn(t *testing.T, d sim.Dialect, name string) Column {
	return Column{
		Name:    name,
		What:    "the simulator's pure store, sim.NewStore(" + d.String() + " dialect), called directly through conformance.SimStore (no simulated network); successes show nominal statuses",
		Answers: runAll(t, name, NewSimStore(d, testBucket)),
	}
}

// TestConformance runs every case against every implementation and checks
// that the committed report says what they answer today; with -update it
// rewrites the report.
func TestConformance(t *testing.T) {
	cases := Cases()
	committed, readErr := os.ReadFile(reportPath)

	cols := []Column{
		simColumn(t, sim.DialectAWS, colSimAWS),
		simColumn(t, sim.DialectGoFakeS3, colSimGoFakeS3),
	}
	gf, what := startGoFakeS3(t)
	cols = append(cols, Column{Name: colGoFakeS3, What: what, Answers: runAll(t, colGoFakeS3, gf)})

	vgw := Column{Name: colVersityGW}
	t.Run("versitygw", func(t *testing.T) {
		bin, ok := findVersityGW(t)
		if !ok {
			if *update {
				t.Fatalf("versitygw is not installed (not in PATH nor in $(go env GOPATH)/bin); -update needs it: %s", VersityGWInstall)
			}
			// Keep the committed column so that the rest of the report is
			// still checked.
			if readErr == nil {
				vgw.Answers = ParseTable(string(committed))[colVersityGW]
				vgw.What = committedWhat(string(committed), colVersityGW)
			}
			t.Skipf("versitygw not installed (not in PATH nor in $(go env GOPATH)/bin): its column is not re-checked. Install it with: %s", VersityGWInstall)
		}
		start := time.Now()
		c := startVersityGW(t, bin)
		vgw.What = "versitygw server: " + binaryVersion(bin) + ", posix backend in a temporary directory, separate process on loopback, through a real *s3.Client"
		vgw.Answers = runAll(t, colVersityGW, c)
		t.Logf("versitygw (%s) answered in %v, start included", binaryVersion(bin), time.Since(start).Round(time.Millisecond))
	})
	cols = append(cols, vgw)

	if t.Failed() {
		return // never write or compare a report with a column missing
	}
	var buf bytes.Buffer
	if err := Render(&buf, cases, Races(), cols); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(reportPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(reportPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", reportPath)
		return
	}
	if readErr != nil {
		t.Fatalf("read the committed report: %v; regenerate it with: %s", readErr, Regenerate)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Errorf("%s is stale: the implementations answer differently today (or the cases changed). Regenerate it with: %s\n%s",
			reportPath, Regenerate, firstDifference(string(committed), buf.String()))
	}
}

// committedWhat returns the "What answered" text of a column in a committed
// report.
func committedWhat(doc, col string) string {
	prefix := "| " + col + " | "
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSuffix(strings.TrimPrefix(line, prefix), " |")
		}
	}
	return ""
}

// firstDifference describes the first line where two texts differ.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "first difference at line " + strconv.Itoa(i+1) + ":\n committed: " + x + "\n today:     " + y
		}
	}
	return "no line differs"
}

// TestSimAWSDialectAnswersAsAWSDocuments: the simulator's AWS dialect must
// answer every step exactly as AWS documents.
func TestSimAWSDialectAnswersAsAWSDocuments(t *testing.T) {
	store := NewSimStore(sim.DialectAWS, testBucket)
	for _, c := range Cases() {
		got := Run(context.Background(), store, testBucket, c, stepTimeout)
		for i, s := range c.Steps {
			if got[i] != s.AWS {
				t.Errorf("%s %s: sim aws dialect answered %q, AWS documents %q", c.RowID(i), s.Request(), got[i], s.AWS)
			}
		}
	}
}

// TestSimGoFakeS3DialectAnswersAsGoFakeS3 holds the simulator's gofakes3
// dialect to the real gofakes3 server: the same status and error code at
// every step.
func TestSimGoFakeS3DialectAnswersAsGoFakeS3(t *testing.T) {
	store := NewSimStore(sim.DialectGoFakeS3, testBucket)
	server, _ := startGoFakeS3(t)
	for _, c := range Cases() {
		want := Run(context.Background(), server, testBucket, c, stepTimeout)
		got := Run(context.Background(), store, testBucket, c, stepTimeout)
		for i := range c.Steps {
			if statusAndCode(got[i]) != statusAndCode(want[i]) {
				t.Errorf("%s %s: sim gofakes3 dialect answered %q, gofakes3 server %q", c.RowID(i), c.Steps[i].Request(), got[i], want[i])
			} else if got[i] != want[i] {
				t.Logf("%s %s: same status, but sim gofakes3 dialect answered %q, gofakes3 server %q", c.RowID(i), c.Steps[i].Request(), got[i], want[i])
			}
		}
	}
}

// statusAndCode is the status and error code of an answer rendered by
// Observe: the whole of an error, the status of a success.
func statusAndCode(answer string) string {
	if accepted(answer) {
		status, _, _ := strings.Cut(answer, " ")
		return status
	}
	return answer
}
