package comparison

import (
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// TestBothSidesPass runs a few seeds on each side, taking turns: every run
// is judged Pass by every checker, and the two sides did the same work.
func TestBothSidesPass(t *testing.T) {
	r, err := Compare(t, Reference(), Reference(), 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", r)
	if r.Sim.Seeds != 4 || r.Synctest.Seeds != 4 {
		t.Fatalf("seeds run: sim %d, synctest %d; want 4 each", r.Sim.Seeds, r.Synctest.Seeds)
	}
	if err := SameWork(r, Tolerance); err != nil {
		t.Fatal(err)
	}
	if r.Ratio() <= 0 {
		t.Fatalf("ratio %v", r.Ratio())
	}
}

// TestSynctestRun checks the synctest side's history: a run of the whole
// duration in fake time, one elected leader whose term is open at the end,
// S3 requests that ran until the end and fenced writes all accepted.
func TestSynctestRun(t *testing.T) {
	w := Reference()
	h, err := RunSynctest(t, w, 7)
	if err != nil {
		t.Fatal(err)
	}
	if h.End != w.Duration || h.Nodes != w.Nodes {
		t.Fatalf("End %v, Nodes %d; want %v, %d", h.End, h.Nodes, w.Duration, w.Nodes)
	}
	// Fake time starts at 2000-01-01 UTC; a first term's token is the
	// acquirer's wall clock in Unix milliseconds (the elector's floor).
	epoch := uint64(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	if len(h.Terms) != 1 || !h.Terms[0].Open || h.Terms[0].Token < epoch || h.Terms[0].Token > epoch+uint64(h.Terms[0].Start.Milliseconds()) {
		t.Fatalf("terms %+v; want one open term with the token of its acquisition's wall clock (%d ms + its start)", h.Terms, epoch)
	}
	if last := h.S3[len(h.S3)-1].Call; last < w.Duration-2*w.Elector.RetryPeriod {
		t.Fatalf("last S3 request sent at %v of a %v run", last, w.Duration)
	}
	for _, fw := range h.Writes {
		if !fw.Accepted || fw.Applied < fw.Sent || fw.Applied > h.End {
			t.Fatalf("fenced write %+v", fw)
		}
	}
	// Every run differs from the next: latencies and entropy follow the seed.
	h2, err := RunSynctest(t, w, 8)
	if err != nil {
		t.Fatal(err)
	}
	if h2.S3[0].Return == h.S3[0].Return {
		t.Fatalf("seeds 7 and 8 answered the first request at the same instant %v", h.S3[0].Return)
	}
}

// TestJudgeMatchesHarness holds Judge to harness.RunSetup's judgement of
// the simulator's own runs: the same verdict and the same violations.
func TestJudgeMatchesHarness(t *testing.T) {
	p := Reference().electorProtocol()
	for seed := uint64(1); seed <= 3; seed++ {
		o, err := RunSim(Reference(), seed)
		if err != nil {
			t.Fatal(err)
		}
		j := Judge(o.Result.History, p)
		if j.Verdict != o.Verdict || len(j.Violations) != len(o.Violations) || j.S3.Result != o.S3.Result || j.S3.Ops != o.S3.Ops {
			t.Fatalf("seed %d: Judge says %v %v (S3 %v, %d ops), harness %v %v (S3 %v, %d ops)",
				seed, j.Verdict, j.Violations, j.S3.Result, j.S3.Ops, o.Verdict, o.Violations, o.S3.Result, o.S3.Ops)
		}
	}
}

// TestJudgeCatches shows that the checkers Judge runs on the synctest
// side's history can fail: a second holder of the leader's token, a term
// that ends without a leader, and an S3 answer no store could have given
// are each caught.
func TestJudgeCatches(t *testing.T) {
	w := Reference()
	p := w.electorProtocol()
	h, err := RunSynctest(t, w, 3)
	if err != nil {
		t.Fatal(err)
	}
	if j := Judge(h, p); j.Verdict != harness.Pass {
		t.Fatalf("unmutated history: %v %v", j.Verdict, j.Violations)
	}
	cases := []struct {
		name    string
		mutate  func(h *sim.History)
		verdict harness.Verdict
		checker string
	}{
		{"shared token", func(h *sim.History) {
			term := h.Terms[0]
			term.Node = (term.Node + 1) % h.Nodes
			term.Identity = "n" + string(rune('0'+term.Node))
			term.Start += time.Second
			h.Terms = append(h.Terms, term)
		}, harness.Unsafe, "unique-holder"},
		{"no leader at the end", func(h *sim.History) {
			h.Terms[0].Open = false
			h.Terms[0].End = h.Terms[0].Start + time.Second
		}, harness.Liveness, "liveness"},
		{"impossible S3 answer", func(h *sim.History) {
			for i := range h.S3 {
				if o := &h.S3[i]; o.Op == sim.OpGetObject && o.Status == 200 {
					o.ETag = `"00000000000000000000000000000000"`
					return
				}
			}
		}, harness.Unsafe, "s3-linearizable"},
	}
	for _, c := range cases {
		m := clone(h)
		c.mutate(m)
		j := Judge(m, p)
		if j.Verdict != c.verdict || !hasChecker(j, c.checker) {
			t.Errorf("%s: Judge says %v %v; want %v from %s", c.name, j.Verdict, j.Violations, c.verdict, c.checker)
		}
	}
}

// TestSameWorkCatchesCadence shows that the work-equality check can fail:
// a synctest side whose application writes twice as often does twice the
// fenced writes, and SameWork says so.
func TestSameWorkCatchesCadence(t *testing.T) {
	fast := Reference()
	fast.WriteInterval /= 2
	r, err := Compare(t, Reference(), fast, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	err = SameWork(r, Tolerance)
	if err == nil {
		t.Fatalf("SameWork passed a synctest side writing every %v against the simulator's %v:\n%v",
			fast.WriteInterval, Reference().WriteInterval, r)
	}
	t.Logf("SameWork: %v", err)
	if msg := err.Error(); !strings.Contains(msg, "fenced writes") || strings.Contains(msg, "terms") {
		t.Fatalf("SameWork: %v; want a difference in fenced writes only", err)
	}
}

// TestSameWork checks the tolerance at its edges, on every figure.
func TestSameWork(t *testing.T) {
	side := func(name string, c, w, tm int) Side {
		return Side{Name: name, Seeds: 10, Total: Work{S3Calls: c, FencedWrites: w, Terms: tm}}
	}
	base := side("sim", 2800, 1180, 10)
	for _, c := range []struct {
		syn  Side
		fail string
	}{
		{side("synctest", 2800, 1180, 10), ""},
		{side("synctest", 2939, 1122, 10), ""}, // just inside 5%
		{side("synctest", 2941, 1180, 10), "S3 calls"},
		{side("synctest", 2800, 1120, 10), "fenced writes"},
		{side("synctest", 2800, 1180, 11), "terms"},
	} {
		err := SameWork(Result{Sim: base, Synctest: c.syn}, Tolerance)
		switch {
		case c.fail == "" && err != nil:
			t.Errorf("%+v: %v", c.syn.Total, err)
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("%+v: %v; want a difference in %s", c.syn.Total, err, c.fail)
		}
	}
	if err := SameWork(Result{Sim: base}, Tolerance); err == nil {
		t.Error("SameWork passed a side that ran nothing")
	}
}

// TestSimSetup checks that the simulator's side is the reference
// scenario's world without faults, and that a workload it does not run
// is refused.
func TestSimSetup(t *testing.T) {
	w := Reference()
	s, err := w.SimSetup(5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Plan == nil || len(s.Plan.Events) != 0 || len(s.Plan.Clocks) != 0 || s.Config.Seed != 5 {
		t.Fatalf("setup for seed 5: plan %+v, seed %d; want no faults", s.Plan, s.Config.Seed)
	}
	w.Nodes++
	if _, err := w.SimSetup(5); err == nil {
		t.Fatal("SimSetup accepted a workload of 6 nodes")
	}
}

func hasChecker(j Judgement, checker string) bool {
	for _, v := range j.Violations {
		if v.Checker == checker {
			return true
		}
	}
	return false
}

func clone(h *sim.History) *sim.History {
	c := *h
	c.Terms = append([]sim.Term(nil), h.Terms...)
	c.Writes = append([]sim.FencedWrite(nil), h.Writes...)
	c.S3 = append([]sim.S3Op(nil), h.S3...)
	return &c
}
