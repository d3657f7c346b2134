package simrun

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/schema"
)

// TestRunUntilFailure: -until-failure stops handing out seeds at the first
// failure and reports it with its replay command; with a budget and no
// failure it runs the budget and passes; without -start it says where it
// started.
func TestRunUntilFailure(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"run", "-scenario", "zoo/no-watchdog", "-start", "1", "-until-failure", "-workers", "1", "-json"}, &out, &errOut)
	var sum schema.Run
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	if code != harness.Unsafe.ExitCode() || len(sum.Failures) == 0 || sum.Seeds != sum.Failures[0].Seed {
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

// TestRunInterruptedPrintsSummary: a run stopped by SIGINT prints the
// summary of the seeds that finished, marked interrupted, and exits 130.
func TestRunInterruptedPrintsSummary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix signals")
	}
	child := startChild(t, "run -scenario reference -until-failure -workers 1 -json")
	child.waitFor(t, func() bool { return strings.Contains(child.output(), "running fresh seeds from") })
	if err := child.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	child.waitExit(t)
	out := child.output()
	if got := child.cmd.ProcessState.ExitCode(); got != 130 {
		t.Fatalf("after SIGINT: exit %d, want 130\n%s", got, out)
	}
	var sum schema.Run
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):strings.LastIndex(out, "}")+1]), &sum); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !sum.Interrupted || sum.Seeds != sum.Pass || !strings.Contains(out, "interrupted by interrupt") {
		t.Fatalf("summary %+v; want an interrupted run whose finished seeds all passed\n%s", sum, out)
	}
}
