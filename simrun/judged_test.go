package simrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/harness"
	nightly "github.com/s3lease/s3lease/internal/campaign"
	"github.com/s3lease/s3lease/internal/schema"
)

// simrunWith runs simrun with the project's scenarios and more.
func simrunWith(t *testing.T, more []harness.Scenario, args ...string) (int, string, string) {
	t.Helper()
	cli := testCLI()
	for _, sc := range more {
		if err := cli.catalog.Add(sc); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	code := cli.run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// simrunOK runs simrun and fails the test unless it exits want.
func simrunOK(t *testing.T, more []harness.Scenario, want int, args ...string) string {
	t.Helper()
	code, out, errOut := simrunWith(t, more, args...)
	if code != want {
		t.Fatalf("simrun %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out
}

// excusedBy finds a summary's line of checker and returns how many it
// judged and excused, and the count of kind among the excusing faults.
func excusedBy(t *testing.T, out, checker, kind string) (judged, excused, byKind int) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(checker) + `: (\d+) judged, (\d+) excused \(([^)]*)\), (\d+) counted$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line of %s's excused violations in:\n%s", checker, out)
	}
	judged, _ = strconv.Atoi(m[1])
	excused, _ = strconv.Atoi(m[2])
	if k := regexp.MustCompile(`(?:^|, )` + regexp.QuoteMeta(kind) + ` (\d+)`).FindStringSubmatch(m[3]); k != nil {
		byKind, _ = strconv.Atoi(k[1])
	}
	return judged, excused, byKind
}

// overlapOf is the overlap checker's tally in a document's counts.
func overlapOf(t *testing.T, c schema.Counts) harness.CheckerJudged {
	t.Helper()
	if c.Judged == nil {
		t.Fatalf("the counts record nothing judged: %+v", c)
	}
	for _, k := range c.Judged.Checkers {
		if k.Checker == "overlap" {
			return k
		}
	}
	t.Fatalf("no overlap checker among %+v", c.Judged.Checkers)
	return harness.CheckerJudged{}
}

// TestRunSaysWhatWasJudged: a run's summary says how many seeds were
// inside the assumptions, each checker's violations judged, excused and
// by which faults (vm-suspend's seeds all suspend a VM, delete-lock's all
// delete the lock object), and the plain line when most seeds left the
// assumptions, which a run inside them does not print; -json carries the
// same counts.
func TestRunSaysWhatWasJudged(t *testing.T) {
	out := simrunOK(t, nil, 0, "run", "-scenario", "vm-suspend", "-seeds", "20", "-quiet")
	judged, excused, bySuspend := excusedBy(t, out, "overlap", "vm-suspend")
	if judged == 0 || excused != judged || bySuspend != judged {
		t.Errorf("vm-suspend: overlap %d judged, %d excused, %d by vm-suspend; want every overlap excused by a suspended VM:\n%s", judged, excused, bySuspend, out)
	}
	for _, want := range []string{"0 seeds (0.0%) judged wholly inside the protocol's assumptions, 20 outside them",
		"most seeds (100.0%) ran outside the protocol's assumptions: a pass there means the fence held, not that leaders never overlapped"} {
		if !strings.Contains(out, want) {
			t.Errorf("vm-suspend's summary does not say %q:\n%s", want, out)
		}
	}

	out = simrunOK(t, nil, 0, "run", "-scenario", "delete-lock", "-seeds", "20", "-quiet")
	if judged, excused, byDelete := excusedBy(t, out, "overlap", "delete-lock"); judged == 0 || excused != judged || byDelete != judged {
		t.Errorf("delete-lock: overlap %d judged, %d excused, %d by delete-lock:\n%s", judged, excused, byDelete, out)
	}

	out = simrunOK(t, nil, 0, "run", "-scenario", "reference", "-seeds", "20", "-quiet")
	if !strings.Contains(out, "20 seeds (100.0%) judged wholly inside the protocol's assumptions, 0 outside them") || strings.Contains(out, "most seeds") {
		t.Errorf("reference, inside the assumptions:\n%s", out)
	}

	var doc schema.Run
	if err := json.Unmarshal([]byte(simrunOK(t, nil, 0, "run", "-scenario", "vm-suspend", "-seeds", "20", "-json", "-quiet")), &doc); err != nil {
		t.Fatal(err)
	}
	if ov := overlapOf(t, doc.Counts); int(ov.Judged) != judged || int(ov.Excused) != excused || len(ov.ByFault) != 1 || ov.ByFault[0].Kind != "vm-suspend" ||
		doc.Judged.Inside != 0 {
		t.Errorf("-json: %+v, inside %d; want what the summary says", ov, doc.Judged.Inside)
	}
}

// TestCampaignMergeSayWhatWasJudged: each shard's campaign says what its
// seeds judged, the merge sums the shards' tallies to the tally of one
// run of the whole range, its summary and its JUnit pass case say so,
// and a shard's report of schema 3 (which does not record it) merges
// into a report that says it is not recorded.
func TestCampaignMergeSayWhatWasJudged(t *testing.T) {
	dir := t.TempDir()
	var whole schema.Run
	if err := json.Unmarshal([]byte(simrunOK(t, nil, 0, "run", "-scenario", "vm-suspend", "-seeds", "16", "-json", "-quiet")), &whole); err != nil {
		t.Fatal(err)
	}
	want := overlapOf(t, whole.Counts)
	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, "shard"+strconv.Itoa(i))
		out := simrunOK(t, nil, 0, "campaign", "-out", d, "-scenario", "vm-suspend", "-seeds", "16", "-shard", strconv.Itoa(i)+"/2", "-quiet")
		if _, excused, _ := excusedBy(t, out, "overlap", "vm-suspend"); excused == 0 {
			t.Errorf("shard %d's summary excuses no overlap:\n%s", i, out)
		}
		shards = append(shards, filepath.Join(d, nightly.ReportFile))
	}
	merged, junit := filepath.Join(dir, "merged.json"), filepath.Join(dir, "junit.xml")
	out := simrunOK(t, nil, 0, append([]string{"merge", "-out", merged, "-junit", junit}, shards...)...)
	if judged, excused, bySuspend := excusedBy(t, out, "overlap", "vm-suspend"); judged != int(want.Judged) || excused != int(want.Excused) || bySuspend != int(want.Excused) {
		t.Errorf("merged: overlap %d judged, %d excused (%d vm-suspend); one run of the range: %+v\n%s", judged, excused, bySuspend, want, out)
	}
	r := readReport(t, merged)
	if got := overlapOf(t, r.Counts); got.Judged != want.Judged || got.Excused != want.Excused || r.Judged.Inside != whole.Judged.Inside {
		t.Errorf("merged report: %+v inside %d; one run of the range: %+v inside %d", got, r.Judged.Inside, want, whole.Judged.Inside)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`overlap: \d+ judged, \d+ excused \(vm-suspend \d+\), 0 counted`).Match(x) || !bytes.Contains(x, []byte("judged wholly inside the protocol's assumptions")) {
		t.Errorf("the JUnit pass case does not say what was judged:\n%s", x)
	}

	// A shard's report as schema 3 wrote it: no "judged".
	data, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "judged")
	doc["schema"] = 3
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shards[1], data, 0o644); err != nil {
		t.Fatal(err)
	}
	out = simrunOK(t, nil, 0, "merge", "-out", merged, shards[0], shards[1])
	if !strings.Contains(out, "is not recorded (documents before schema 4)") || strings.Contains(out, "judged wholly inside") {
		t.Errorf("a merge with a schema 3 report:\n%s", out)
	}
	if r := readReport(t, merged); r.Judged != nil {
		t.Errorf("the merged report claims to know what was judged: %+v", r.Judged)
	}
}

// TestZooSaysWhatWasJudged: the zoo's table counts each lock's seeds
// inside the assumptions and its violations excused, and its summary
// says what the careful control's seeds judged, checker by checker.
func TestZooSaysWhatWasJudged(t *testing.T) {
	out := simrunOK(t, nil, 0, "zoo", "-seeds", "40", "-quiet")
	for _, want := range []string{"INSIDE", "EXCUSED", "what the careful control's 40 seeds judged:", "judged wholly inside the protocol's assumptions"} {
		if !strings.Contains(out, want) {
			t.Errorf("the zoo's summary does not say %q:\n%s", want, out)
		}
	}
	if judged, excused, _ := excusedBy(t, out, "overlap", "pause"); judged == 0 || excused != judged {
		t.Errorf("the careful control's overlaps: %d judged, %d excused:\n%s", judged, excused, out)
	}
	var doc schema.Zoo
	if err := json.Unmarshal([]byte(simrunOK(t, nil, 0, "zoo", "-seeds", "40", "-json", "-quiet")), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Rows {
		if r.Judged == nil || r.Control && r.Judged.Excused() == 0 {
			t.Errorf("row %s records %+v judged", r.Scenario, r.Judged)
		}
	}
}

// untokenedSuspend is vm-suspend run by the elector declared without
// fencing tokens: judged by overlaps alone, which a suspended VM makes
// outside its assumptions.
func untokenedSuspend(t *testing.T) harness.Scenario {
	t.Helper()
	sc, err := project.Lookup("vm-suspend")
	if err != nil {
		t.Fatal(err)
	}
	build := sc.Build
	sc.Name = "untokened-vm-suspend"
	sc.Build = func(seed uint64) harness.Setup {
		s := build(seed)
		s.Protocol.NoFencingTokens = true
		return s
	}
	return sc
}

// TestFailOutside: a protocol without fencing tokens passes vm-suspend
// with its overlaps excused, and its summary names them as two leaders
// acting at once; -fail-outside fails those seeds, its failures replay
// with the bar (a replay command, a reproducer file), and a campaign
// records the bar: it resumes, and merges, only with the same.
func TestFailOutside(t *testing.T) {
	more := []harness.Scenario{untokenedSuspend(t)}
	out := simrunOK(t, more, 0, "run", "-scenario", "untokened-vm-suspend", "-seeds", "10", "-quiet")
	m := regexp.MustCompile(`(\d+) overlaps of leaders outside the assumptions, excused; with no fencing token, each is two leaders acting at once`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("the summary does not name the overlaps outside the assumptions:\n%s", out)
	}
	if !strings.Contains(out, "a pass there means what broke was excused, not that leaders never acted at once") {
		t.Errorf("the plain line does not speak of a protocol without tokens:\n%s", out)
	}

	out = simrunOK(t, more, 1, "run", "-scenario", "untokened-vm-suspend", "-seeds", "10", "-fail-outside", "-quiet")
	for _, want := range []string{"overlap: " + m[1] + " judged, 0 excused, " + m[1] + " counted (" + m[1] + " of them outside the assumptions, by fail-outside; vm-suspend " + m[1] + ")",
		m[1] + " overlaps of leaders outside the assumptions, failed by fail-outside", "overlap at "} {
		if !strings.Contains(out, want) {
			t.Errorf("-fail-outside: the summary does not say %q:\n%s", want, out)
		}
	}
	replay := regexp.MustCompile(`replay: go run ./cmd/simrun (replay -scenario untokened-vm-suspend -seed (\d+) -fail-outside)\n`).FindStringSubmatch(out)
	if replay == nil {
		t.Fatalf("no replay command with -fail-outside:\n%s", out)
	}
	simrunOK(t, more, 1, strings.Fields(replay[1])...)
	simrunOK(t, more, 0, "replay", "-scenario", "untokened-vm-suspend", "-seed", replay[2])
	file := filepath.Join(t.TempDir(), "repro.json")
	simrunOK(t, more, 1, strings.Fields(replay[1]+" -o "+file)...)
	if data, err := os.ReadFile(file); err != nil || !bytes.Contains(data, []byte(`"failOutside": true`)) {
		t.Fatalf("the reproducer does not keep the bar (%v):\n%s", err, data)
	}
	simrunOK(t, more, 0, "replay", file, "-expect", "recorded")

	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	simrunOK(t, more, 1, "campaign", "-out", a, "-scenario", "untokened-vm-suspend", "-seeds", "6", "-shard", "0/2", "-fail-outside", "-quiet")
	if code, _, errOut := simrunWith(t, more, "campaign", "-out", a, "-scenario", "untokened-vm-suspend", "-seeds", "6", "-shard", "0/2", "-quiet"); code != exitUsage ||
		!strings.Contains(errOut, "failing overlaps outside the assumptions") {
		t.Errorf("resuming a -fail-outside campaign without it: exit %d\n%s", code, errOut)
	}
	simrunOK(t, more, 0, "campaign", "-out", b, "-scenario", "untokened-vm-suspend", "-seeds", "6", "-shard", "1/2", "-quiet")
	if code, _, errOut := simrunWith(t, more, "merge", "-out", filepath.Join(dir, "m.json"), filepath.Join(a, nightly.ReportFile), filepath.Join(b, nightly.ReportFile)); code != exitUsage ||
		!strings.Contains(errOut, "failed overlaps outside the assumptions") {
		t.Errorf("merging shards judged with and without -fail-outside: exit %d\n%s", code, errOut)
	}
	r := readReport(t, filepath.Join(a, nightly.ReportFile))
	if !r.FailOutside || len(r.Groups) != 1 || r.Groups[0].Signature != "unsafe: overlap/outside-assumptions" || !strings.HasSuffix(r.Groups[0].Replay, " -fail-outside") {
		t.Errorf("the -fail-outside campaign's report: failOutside %v, groups %+v", r.FailOutside, r.Groups)
	}
}
