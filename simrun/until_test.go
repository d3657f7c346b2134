package simrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestRunUntilFailure: -until-failure stops handing out seeds at the first
// failure and reports it with its replay command; with a budget and no
// failure it runs the budget and passes; without -start it says where it
// started.
func TestRunUntilFailure(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"run", "-scenario", "zoo/no-watchdog", "-start", "1", "-until-failure", "-workers", "2", "-json"}, &out, &errOut)
	var sum runSummary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	if code != harness.Unsafe.ExitCode() || len(sum.Failures) == 0 || sum.Seeds > int(sum.Failures[0].Seed)+2 {
		t.Fatalf("exit %d, %d seeds run, failures %v; want a stop at the first failure", code, sum.Seeds, sum.Failures)
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"run", "-scenario", "reference", "-seeds", "12", "-until-failure"}, &out, &errOut); code != exitOK ||
		!strings.Contains(out.String(), "12 seeds") || !strings.Contains(errOut.String(), "running fresh seeds from") {
		t.Fatalf("a passing budget: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if code := run([]string{"run", "-seed", "3", "-until-failure"}, &out, &errOut); code != exitUsage {
		t.Fatalf("-seed with -until-failure: exit %d, want %d", code, exitUsage)
	}
}
