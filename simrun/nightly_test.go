package simrun

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	nightly "github.com/s3lease/s3lease/internal/campaign"
)

// The test binary runs `simrun campaign` or `simrun merge` in a child
// process when SIMRUN_NIGHTLY_CHILD_ARGS is set (init runs before TestMain).
func init() {
	if args, ok := os.LookupEnv("SIMRUN_NIGHTLY_CHILD_ARGS"); ok {
		os.Exit(nightlyRun(strings.Fields(args), os.Stdout, os.Stderr))
	}
}

// nightlyRun is run: the campaign and merge commands among the others.
func nightlyRun(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }

func nightlySimrun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := nightlyRun(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func readReport(t *testing.T, path string) *nightly.Report {
	t.Helper()
	r, err := nightly.ReadReportFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameCounts compares what must not depend on how a campaign was run: the
// counts and the signature groups with their first seeds.
func sameCounts(t *testing.T, got, want *nightly.Report) {
	t.Helper()
	if got.SeedsRun != want.SeedsRun || !reflect.DeepEqual(got.Counts, want.Counts) || got.Complete != want.Complete || len(got.Groups) != len(want.Groups) {
		t.Fatalf("reports differ:\n got %d seeds %+v %+v complete %v, %d groups\nwant %d seeds %+v %+v complete %v, %d groups",
			got.SeedsRun, got.Counts, got.Counts.Judged, got.Complete, len(got.Groups), want.SeedsRun, want.Counts, want.Counts.Judged, want.Complete, len(want.Groups))
	}
	for i, g := range got.Groups {
		w := want.Groups[i]
		if g.Signature != w.Signature || g.Count != w.Count || !slices.Equal(g.FirstSeeds, w.FirstSeeds) {
			t.Fatalf("group %d: got %s %d %v, want %s %d %v", i, g.Signature, g.Count, g.FirstSeeds, w.Signature, w.Count, w.FirstSeeds)
		}
	}
}

// reproducers reads every reproducer file under dir/failures.
func reproducers(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(dir, nightly.FailuresDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name := d.Name(); strings.HasPrefix(name, "seed-") && strings.HasSuffix(name, ".json") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[path] = data
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return files
}

// childProc is simrun running in a child process.
type childProc struct {
	cmd    *exec.Cmd
	out    lockedBuffer  // stdout and stderr
	exited chan struct{} // closed once the process has exited and out is complete
	err    error         // Wait's error, once exited is closed
}

// lockedBuffer is a bytes.Buffer that the child's output goroutine can
// write while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// output is what the child has written so far.
func (c *childProc) output() string { return c.out.String() }

// startChild starts simrun args in a child process, killed at the end of
// the test if still running.
func startChild(t *testing.T, args string) *childProc {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &childProc{cmd: exec.Command(exe), exited: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), "SIMRUN_NIGHTLY_CHILD_ARGS="+args)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.exited
	})
	return c
}

// waitExit waits for the child to exit, for a minute at most.
func (c *childProc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		t.Fatalf("the campaign did not exit within a minute:\n%s", &c.out)
	}
}

// waitFor polls the file system until ok holds; the child must not exit
// meanwhile, and it must hold within a minute.
func (c *childProc) waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !ok() {
		select {
		case <-c.exited:
			t.Fatalf("the campaign ended (%v) before the test could stop it:\n%s", c.err, &c.out)
		case <-deadline:
			t.Fatalf("the campaign recorded nothing in a minute:\n%s", &c.out)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestCampaignSurvivesSIGKILL is the kill test: a campaign on a scenario
// that fails often is killed with SIGKILL once it has recorded some
// failures and its state; the same command resumes it. Every reproducer
// written before the kill is still there, unchanged, and loads; the
// resumed run runs exactly the seeds the state did not record; and the
// final report counts every seed of the range once, as a campaign run in
// one go does.
func TestCampaignSurvivesSIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix signals")
	}
	dir := filepath.Join(t.TempDir(), "out")
	const seeds = 1000
	args := fmt.Sprintf("campaign -out %s -scenario naive-skew -seeds %d -workers 2 -keep 5", dir, seeds)
	c := startChild(t, args)
	c.waitFor(t, func() bool {
		st, err := nightly.LoadState(dir)
		return err == nil && st.Done.Count > 0 && len(reproducers(t, dir)) >= 3
	})
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.waitExit(t)
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the campaign was not killed: %v\n%s", c.err, &c.out)
	}
	before := reproducers(t, dir)
	killed, err := nightly.LoadState(dir)
	if err != nil {
		t.Fatalf("state after SIGKILL: %v", err)
	}
	if killed.Done.Count == 0 || killed.Done.Count >= seeds {
		t.Fatalf("killed with %d of %d seeds recorded", killed.Done.Count, seeds)
	}
	t.Logf("killed with %d seeds recorded and %d reproducers written", killed.Done.Count, len(before))

	code, stdout, stderr := nightlySimrun(strings.Fields(args)...)
	if code != harness.Unsafe.ExitCode() {
		t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
	if want := fmt.Sprintf("this session: %d seeds", seeds-killed.Done.Count); !strings.Contains(stdout, want) {
		t.Fatalf("resume did not skip the %d seeds recorded (want %q):\n%s", killed.Done.Count, want, stdout)
	}
	after := reproducers(t, dir)
	for path, data := range before {
		if !bytes.Equal(after[path], data) {
			t.Fatalf("%s changed or vanished after the resume", path)
		}
		if _, err := harness.LoadReproducer(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, err := os.Stat(strings.TrimSuffix(path, ".json") + ".trace.txt"); err != nil {
			t.Fatal(err)
		}
	}
	st, err := nightly.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Done.Count != seeds || st.Done.Next != seeds+1 || len(st.Done.Above) != 0 {
		t.Fatalf("after the resume, done seeds %+v", st.Done)
	}
	resumed := readReport(t, filepath.Join(dir, nightly.ReportFile))
	if !resumed.Complete || resumed.SeedsRun != seeds || resumed.Counts.Seeds() != seeds {
		t.Fatalf("resumed report: %d seeds run, %+v, complete %v", resumed.SeedsRun, resumed.Counts, resumed.Complete)
	}
	for _, g := range resumed.Groups {
		if len(g.Reproducers) > 5 {
			t.Fatalf("group %s keeps %d reproducers, more than -keep 5", g.Signature, len(g.Reproducers))
		}
		for _, p := range g.Reproducers {
			if after[filepath.Join(dir, filepath.FromSlash(p))] == nil {
				t.Fatalf("report lists %s, not on disk", p)
			}
		}
	}

	oneDir := filepath.Join(t.TempDir(), "one")
	code, stdout, stderr = nightlySimrun(strings.Fields(strings.Replace(args, dir, oneDir, 1))...)
	if code != harness.Unsafe.ExitCode() {
		t.Fatalf("one-shot: exit %d\n%s%s", code, stdout, stderr)
	}
	sameCounts(t, resumed, readReport(t, filepath.Join(oneDir, nightly.ReportFile)))
}

// TestCampaignStopsCleanlyOnSIGTERM: SIGTERM stops the campaign, which
// saves its state, prints its summary and exits 143, whatever its seeds
// showed.
func TestCampaignStopsCleanlyOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix signals")
	}
	dir := filepath.Join(t.TempDir(), "out")
	c := startChild(t, "campaign -out "+dir+" -scenario naive-skew -seeds 100000 -workers 2 -keep 1")
	c.waitFor(t, func() bool {
		st, err := nightly.LoadState(dir)
		return err == nil && st.Done.Count > 0
	})
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.waitExit(t)
	if code := c.cmd.ProcessState.ExitCode(); code != 143 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, &c.out)
	}
	if out := c.out.String(); !strings.Contains(out, "interrupted by terminated; report written, state saved") || !strings.Contains(out, "campaign naive-skew shard 0/1") {
		t.Fatalf("output:\n%s", out)
	}
	st, err := nightly.LoadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := readReport(t, filepath.Join(dir, nightly.ReportFile))
	if r.SeedsRun != st.Done.Count || r.Complete || len(st.Done.Above) != 0 {
		t.Fatalf("after SIGTERM: report %d seeds, state %+v", r.SeedsRun, st.Done)
	}
}

// TestCampaignUsage: bad flags, a DIR that cannot be written and a DIR of
// another campaign exit 2 with a message.
func TestCampaignUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if code, out, errOut := nightlySimrun("campaign", "-out", dir, "-scenario", "reference", "-seeds", "3", "-workers", "1"); code != exitOK {
		t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"campaign"},
		{"campaign", "-out", dir, "stray"},
		{"campaign", "-out", dir, "-seeds", "0"},
		{"campaign", "-out", dir, "-duration", "-1s"},
		{"campaign", "-out", dir, "-workers", "0"},
		{"campaign", "-out", dir, "-keep", "-1"},
		{"campaign", "-out", dir, "-shard", "8/8"},
		{"campaign", "-out", dir, "-shard", "1"},
		{"campaign", "-out", dir, "-shard", "a/b"},
		{"campaign", "-out", dir, "-scenario", "nope"},
		{"campaign", "-out", filepath.Join(file, "sub")},
		{"campaign", "-out", file},
		{"campaign", "-out", dir, "-scenario", "reference", "-seeds", "4", "-workers", "1"},
		{"campaign", "-out", dir, "-scenario", "reference", "-seeds", "3", "-shard", "0/2"},
		{"campaign", "-out", dir, "-scenario", "swarm", "-seeds", "3"},
		{"campaign", "-out", dir, "-scenario", "reference", "-seeds", "3", "-junit", filepath.Join(file, "j.xml")},
		{"merge"},
		{"merge", "-out", filepath.Join(t.TempDir(), "m.json")},
		{"merge", "-out", filepath.Join(t.TempDir(), "m.json"), file},
		{"merge", "-out", filepath.Join(t.TempDir(), "m.json"), filepath.Join(dir, "nope.json")},
	} {
		code, _, errOut := nightlySimrun(args...)
		if code != exitUsage {
			t.Errorf("simrun %q: exit %d, want 2 (stderr %q)", args, code, errOut)
		} else if errOut == "" {
			t.Errorf("simrun %q: exit 2 without a message", args)
		}
	}
}

// TestMergeCommand: shards of a range, merged, report what the whole range
// reports, with reproducer paths relative to the merged report; merging a
// shard twice, or overlapping shards, is refused.
func TestMergeCommand(t *testing.T) {
	root := t.TempDir()
	common := []string{"-scenario", "zoo/no-nonce", "-seeds", "120", "-start", "7", "-workers", "2", "-keep", "2"}
	campaign := func(dir string, extra ...string) *nightly.Report {
		t.Helper()
		args := append(append([]string{"campaign", "-out", filepath.Join(root, dir)}, common...), extra...)
		code, out, errOut := nightlySimrun(args...)
		r := readReport(t, filepath.Join(root, dir, nightly.ReportFile))
		if code != reportCode(r) || code == exitOK {
			t.Fatalf("simrun %q: exit %d for a report whose worst is %s\n%s%s", args, code, r.Worst(), out, errOut)
		}
		return r
	}
	whole := campaign("whole", "-junit", filepath.Join(root, "whole", "junit.xml"))
	for i := range 3 {
		campaign(fmt.Sprintf("shard%d", i), "-shard", fmt.Sprintf("%d/3", i))
	}
	campaign("half", "-shard", "1/6") // inside shard 1/3

	out := filepath.Join(root, "merged", "report.json")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	shardReports := []string{filepath.Join(root, "shard2", "report.json"), filepath.Join(root, "shard0", "report.json"), filepath.Join(root, "shard1", "report.json")}
	code, stdout, errOut := nightlySimrun(append([]string{"merge", "-out", out, "-junit", filepath.Join(root, "merged", "junit.xml")}, shardReports...)...)
	merged := readReport(t, out)
	if code != reportCode(whole) {
		t.Fatalf("merge: exit %d, want %d\n%s%s", code, reportCode(whole), stdout, errOut)
	}
	sameCounts(t, merged, whole)
	if len(merged.Shards) != 3 || merged.SeedsRun != 120 || !merged.Complete {
		t.Fatalf("merged: %+v", merged)
	}
	for _, g := range merged.Groups {
		if len(g.Reproducers) == 0 {
			t.Fatalf("group %s has no reproducer", g.Signature)
		}
		for _, p := range g.Reproducers {
			if !strings.HasPrefix(p, "../shard") {
				t.Fatalf("reproducer path %s not relative to the merged report", p)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(out), p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, bad := range [][]string{
		{shardReports[0], shardReports[1], shardReports[0]},
		{shardReports[2], filepath.Join(root, "half", "report.json")},
		{out, shardReports[1]},
	} {
		code, _, errOut := nightlySimrun(append([]string{"merge", "-out", filepath.Join(root, "bad.json")}, bad...)...)
		if code != exitUsage || !strings.Contains(errOut, "overlaps") {
			t.Errorf("merge %v: exit %d, want 2 for overlapping shards (stderr %q)", bad, code, errOut)
		}
	}

	// The JUnit files parse, with one failing testcase per signature and
	// one passing testcase.
	for _, file := range []string{filepath.Join(root, "whole", "junit.xml"), filepath.Join(root, "merged", "junit.xml")} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var suite junitFile
		if err := xml.Unmarshal(data, &suite); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var names []string
		for i, c := range suite.Cases {
			names = append(names, c.Name)
			if last := i == len(suite.Cases)-1; last != (c.Failure == nil) {
				t.Fatalf("%s: testcase %q failing: %v", file, c.Name, c.Failure != nil)
			}
			if c.Failure != nil && !strings.Contains(c.Failure.Message, "simrun replay ") {
				t.Fatalf("%s: testcase %q without the replay command: %q", file, c.Name, c.Failure.Message)
			}
		}
		var want []string
		for _, g := range whole.Groups {
			want = append(want, g.Signature)
		}
		if want = append(want, "pass"); !slices.Equal(names, want) || suite.Tests != len(want) || suite.Failures != len(want)-1 {
			t.Fatalf("%s: testcases %q (%d tests, %d failures), want %q", file, names, suite.Tests, suite.Failures, want)
		}
	}
}

// TestCampaignCheckDeterminism: every seed of a normal scenario run twice
// gives the same trace; the campaign passes.
func TestCampaignCheckDeterminism(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := nightlySimrun("campaign", "-out", dir, "-scenario", "reference", "-seeds", "16", "-workers", "2", "-check-determinism", "-json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	r, err := nightly.ReadReport(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if !r.CheckDeterminism || r.Pass != 16 || r.Nondeterministic != 0 || !r.Complete {
		t.Fatalf("report %+v", r)
	}
}

// junitFile is what the tests read of a JUnit file.
type junitFile struct {
	XMLName    xml.Name `xml:"testsuite"`
	Tests      int      `xml:"tests,attr"`
	Failures   int      `xml:"failures,attr"`
	Properties []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
	Cases []junitCase `xml:"testcase"`
}

// junitCase is a testcase of a junitFile.
type junitCase struct {
	Name    string `xml:"name,attr"`
	Failure *struct {
		Message string `xml:"message,attr"`
	} `xml:"failure"`
}

// TestMergeOfSomeShardsIsIncomplete: merging one of a campaign's two
// shards says which shard is missing on stderr, in the merged report
// ("complete": false, "missing") and in the JUnit file (a failing testcase
// "incomplete"). The exit status is 7 when every seed covered passed; a
// failing seed's status wins over it, the documents still saying the merge
// is incomplete.
func TestMergeOfSomeShardsIsIncomplete(t *testing.T) {
	for _, c := range []struct {
		scenario string
		code     int
	}{{"reference", exitIncomplete}, {"naive-skew", harness.Unsafe.ExitCode()}} {
		root := t.TempDir()
		dir := filepath.Join(root, "shard0")
		if code, out, errOut := nightlySimrun("campaign", "-out", dir, "-scenario", c.scenario, "-seeds", "6", "-shard", "0/2", "-workers", "1"); code != c.code && code != exitOK {
			t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
		}
		merged, junit := filepath.Join(root, "merged.json"), filepath.Join(root, "junit.xml")
		code, out, errOut := nightlySimrun("merge", "-out", merged, "-junit", junit, filepath.Join(dir, nightly.ReportFile))
		if code != c.code || !strings.Contains(errOut, "incomplete: no report covers shard(s) 1/2") {
			t.Fatalf("%s: merge of shard 0/2 alone: exit %d, stderr %q; want %d naming shard 1/2 as missing\n%s", c.scenario, code, errOut, c.code, out)
		}
		r := readReport(t, merged)
		if r.Complete || len(r.Missing) != 1 || r.Missing[0] != (nightly.Shard{Index: 1, Count: 2}) {
			t.Fatalf("%s: merged report: complete %v, missing %v; want incomplete, missing [1/2]", c.scenario, r.Complete, r.Missing)
		}
		if c.code != exitIncomplete && r.Counts.Failures() == 0 {
			t.Fatalf("%s: no seed failed; the case of both at once is not tested", c.scenario)
		}
		data, err := os.ReadFile(junit)
		if err != nil {
			t.Fatal(err)
		}
		var suite junitFile
		if err := xml.Unmarshal(data, &suite); err != nil {
			t.Fatal(err)
		}
		props := map[string]string{}
		for _, p := range suite.Properties {
			props[p.Name] = p.Value
		}
		incomplete := slices.IndexFunc(suite.Cases, func(tc junitCase) bool {
			return tc.Name == "incomplete" && tc.Failure != nil && strings.Contains(tc.Failure.Message, "1/2")
		})
		if props["complete"] != "false" || props["missing"] != "1/2" || incomplete < 0 || suite.Failures != len(r.Groups)+1 {
			t.Fatalf("%s: JUnit: properties %v, %d failures; want complete=false, missing=1/2 and a failing testcase incomplete\n%s", c.scenario, props, suite.Failures, data)
		}
	}
}

// TestCampaignInterruptedExitsAsShellsExpect: a campaign stopped by SIGINT
// (SIGTERM) before its budget writes its report and state and exits 130
// (143), as a shell expects of a process a signal ended; the report says
// it is incomplete and counts the seeds run.
func TestCampaignInterruptedExitsAsShellsExpect(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs Unix signals")
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := filepath.Join(t.TempDir(), "out")
		child := startChild(t, fmt.Sprintf("campaign -out %s -scenario reference -seeds 10000000 -workers 1", dir))
		child.waitFor(t, func() bool {
			st, err := nightly.LoadState(dir)
			return err == nil && st.Done.Count > 0
		})
		if err := child.cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		child.waitExit(t)
		if got := child.cmd.ProcessState.ExitCode(); got != c.code {
			t.Fatalf("after %v: exit %d, want %d\n%s", c.sig, got, c.code, &child.out)
		}
		r := readReport(t, filepath.Join(dir, nightly.ReportFile))
		if r.Complete || r.SeedsRun == 0 {
			t.Errorf("after %v: report complete=%v with %d seeds run; want an incomplete report of the seeds run", c.sig, r.Complete, r.SeedsRun)
		}
	}
}
