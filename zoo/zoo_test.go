package zoo

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestEveryVariantIsOneMistake: each variant of the zoo, and each masked
// one, is the careful lock with exactly one switch set, no switch serves two
// variants, names are kebab-case and unique, and every mistake is one
// sentence that says where it was seen.
func TestEveryVariantIsOneMistake(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	names := map[string]bool{Careful().Name: true}
	switches := map[string]string{}
	all := append(append([]entry(nil), zoo...), masked...)
	for _, e := range all {
		if !kebab.MatchString(e.name) || names[e.name] {
			t.Errorf("variant name %q is not kebab-case or not unique", e.name)
		}
		names[e.name] = true
		if strings.Count(e.mistake, ". ") > 0 || !strings.HasSuffix(e.mistake, ").") {
			t.Errorf("%s: mistake %q is not one sentence ending in its source in parentheses", e.name, e.mistake)
		}
		var set []string
		v := reflect.ValueOf(e.m)
		for i := range v.NumField() {
			if v.Field(i).Bool() {
				set = append(set, v.Type().Field(i).Name)
			}
		}
		if len(set) != 1 {
			t.Errorf("%s: switches %v; want exactly one", e.name, set)
			continue
		}
		if other, dup := switches[set[0]]; dup {
			t.Errorf("%s and %s both set %s", other, e.name, set[0])
		}
		switches[set[0]] = e.name
	}
	if n := reflect.TypeFor[mistakes]().NumField(); len(switches) != n {
		t.Errorf("%d switches used by %d variants; the careful lock has %d", len(switches), len(all), n)
	}
	if got := len(Variants()); got < 10 {
		t.Errorf("%d variants in the zoo; want at least 10", got)
	}
	for _, v := range append(Variants(), Masked()...) {
		c := Careful()
		if v.Candidate == nil || v.Assumptions != c.Assumptions || v.LivenessBound != c.LivenessBound {
			t.Errorf("%s: candidate set %v, assumptions %+v, bound %v; want the careful lock's %+v, %v",
				v.Name, v.Candidate != nil, v.Assumptions, v.LivenessBound, c.Assumptions, c.LivenessBound)
		}
	}
}

// TestSettings: the careful lock's are the swarm campaign's elector's, and
// so are its claims: a term of the renew deadline (the drift margin of 1000
// ppm on a 6 s lease is 12 ms, far less than the 2 s between them), pauses
// up to the slack less four times the drift, and a liveness bound of a
// lease, three retry periods and three request timeouts.
func TestSettings(t *testing.T) {
	c := Careful()
	if c.s.Settings != elector.DefaultSettings {
		t.Errorf("settings %+v, not the swarm's elector's", c.s)
	}
	if got := protocol.DriftMargin(c.s.LeaseDuration, c.s.ClockDriftPPM); got != 11_988_012 {
		t.Errorf("drift margin %v; want 11.988012ms", got)
	}
	a := c.Assumptions
	if a.Term != 4*time.Second || a.MaxDriftPPM != 1000 || a.MaxPause != 1976*time.Millisecond || a.Stalls || a.ForeignWrites || a.Linger || !a.TornReads {
		t.Errorf("assumptions %+v", a)
	}
	if c.LivenessBound != 13500*time.Millisecond {
		t.Errorf("liveness bound %v; want 13.5s", c.LivenessBound)
	}
}

func TestDecodeRecord(t *testing.T) {
	r := record{Holder: "n1", Token: 7, Nonce: "0123456789abcdef", LeaseMS: 6000}
	got, ok := decodeRecord(r.encode())
	if !ok || got != r {
		t.Errorf("round trip: %+v, %v; want %+v", got, ok, r)
	}
	for _, body := range []string{``, `{}`, `not json`, `{"holder":"n1","token":0,"leaseMs":6000}`,
		`{"holder":"","token":1,"leaseMs":6000}`, `{"holder":"n1","token":1,"leaseMs":0}`} {
		if _, ok := decodeRecord([]byte(body)); ok {
			t.Errorf("decodeRecord(%q) accepted", body)
		}
	}
}

// run runs lock m on nodes nodes for d, suffering plan if it is not nil.
func run(t *testing.T, m mistakes, nodes int, d time.Duration, plan *faults.Plan) *sim.History {
	t.Helper()
	cfg := sim.Config{
		Seed: 1, Nodes: nodes, Duration: d,
		Candidate:     careful{s: defaults, m: m}.candidate(),
		Bucket:        "b",
		Key:           "leader.json",
		S3Request:     sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		S3Response:    sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		FenceRequest:  sim.Latency{Min: time.Millisecond, Max: 10 * time.Millisecond},
		FenceResponse: sim.Latency{Min: time.Millisecond, Max: 10 * time.Millisecond},
		WriteInterval: 500 * time.Millisecond,
		MaxSteps:      1_000_000,
	}
	if plan != nil {
		if err := faults.Apply(plan, &cfg); err != nil {
			t.Fatal(err)
		}
	}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("run failed: %v", res.Failure)
	}
	return res.History
}

// puts returns the PutObject requests of node (-1: every node).
func puts(h *sim.History, node int) []sim.S3Op {
	var out []sim.S3Op
	for _, op := range h.S3 {
		if op.Op == "PutObject" && (node < 0 || op.Node == node) {
			out = append(out, op)
		}
	}
	return out
}

// TestCarefulQuiet: without faults one node wins the creation race and
// leads to the end with token 1, renewing every second with If-Match; every
// body it writes is unique.
func TestCarefulQuiet(t *testing.T) {
	h := run(t, mistakes{}, 3, 20*time.Second, nil)
	if len(h.Terms) != 1 || !h.Terms[0].Open || h.Terms[0].Token != 1 {
		t.Fatalf("terms %+v; want one open term with token 1", h.Terms)
	}
	leader := h.Terms[0].Node
	bodies := map[string]bool{}
	renewals := 0
	for _, op := range puts(h, -1) {
		if bodies[op.BodyETag] {
			t.Errorf("two PutObjects with body ETag %s", op.BodyETag)
		}
		bodies[op.BodyETag] = true
		switch {
		case op.IfMatch != "":
			renewals++
			if op.Node != leader {
				t.Errorf("n%d wrote If-Match while n%d led", op.Node, leader)
			}
		case op.IfNoneMatch != "*":
			t.Errorf("unconditional PutObject by n%d at %v", op.Node, op.Call)
		}
	}
	if renewals < 18 {
		t.Errorf("%d renewals in 20 s; want one a second", renewals)
	}
}

// stopLeader runs lock m on three nodes, stops the first leader at 5 s and
// returns the history. The run is deterministic, so a first run finds
// the leader to stop.
func stopLeader(t *testing.T, m mistakes) (*sim.History, int) {
	t.Helper()
	leader := run(t, m, 3, 6*time.Second, nil).Terms[0].Node
	h := run(t, m, 3, 10*time.Second, &faults.Plan{HealAt: faults.Duration(5 * time.Second),
		Events: []faults.Event{{Kind: faults.Stop, Node: leader, At: faults.Duration(5 * time.Second)}}})
	return h, leader
}

// TestCarefulReleaseKeepsToken: a leader asked to stop releases the record
// with its token, and another node takes it at its next read, with the
// next token.
func TestCarefulReleaseKeepsToken(t *testing.T) {
	h, leader := stopLeader(t, mistakes{})
	if len(h.Terms) != 2 {
		t.Fatalf("terms %+v; want two", h.Terms)
	}
	first, next := h.Terms[0], h.Terms[1]
	if first.Node != leader || first.End != 5*time.Second || next.Token != 2 || next.Node == leader {
		t.Errorf("terms %+v; want n%d's token 1 ending at 5s, then another node's token 2", h.Terms, leader)
	}
	if wait := next.Start - first.End; wait > 1500*time.Millisecond {
		t.Errorf("the released lease was taken %v after the release; want within a poll", wait)
	}
	for _, op := range h.S3 {
		if op.Op == "DeleteObject" {
			t.Errorf("n%d deleted the lock object", op.Node)
		}
	}
}

// TestSwitchesDoWhatTheySay spot-checks switches whose effect shows in a
// run without faults.
func TestSwitchesDoWhatTheySay(t *testing.T) {
	t.Run("no-nonce renewals repeat the body", func(t *testing.T) {
		h := run(t, mistakes{noNonce: true}, 1, 5*time.Second, nil)
		ps := puts(h, 0)
		if len(ps) < 4 || ps[1].BodyETag != ps[2].BodyETag || ps[2].BodyETag != ps[3].BodyETag {
			t.Errorf("renewal body ETags %+v; want all equal", ps)
		}
	})
	t.Run("unconditional-acquire writes without a precondition", func(t *testing.T) {
		h := run(t, mistakes{unconditionalAcquire: true}, 1, 500*time.Millisecond, nil)
		if ps := puts(h, 0); len(ps) == 0 || ps[0].IfMatch != "" || ps[0].IfNoneMatch != "" {
			t.Errorf("acquisition %+v; want no precondition", ps)
		}
	})
	t.Run("delete-on-release deletes", func(t *testing.T) {
		h, leader := stopLeader(t, mistakes{deleteOnRelease: true})
		deleted := false
		for _, op := range h.S3 {
			deleted = deleted || op.Op == "DeleteObject" && op.Node == leader && op.IfMatch != ""
		}
		if !deleted {
			t.Error("the stopping leader did not delete the lock object")
		}
	})
}

// TestCutOffLeader: a leader that cannot reach S3 for 10 s. The careful
// lock ends its term at its deadline, before anyone can take over; without
// the watchdog, or with the application outside the term's context, it
// leads on while another node takes over.
func TestCutOffLeader(t *testing.T) {
	for _, c := range []struct {
		name    string
		m       mistakes
		overlap bool
	}{
		{"careful", mistakes{}, false},
		{"no-watchdog", mistakes{noWatchdog: true}, true},
		{"leader-ctx-not-cancelled", mistakes{leaderCtxNotCancelled: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			leader := run(t, c.m, 3, 2*time.Second, nil).Terms[0].Node
			h := run(t, c.m, 3, 25*time.Second, &faults.Plan{HealAt: faults.Duration(15 * time.Second), Events: []faults.Event{
				{Kind: faults.Partition, Node: leader, At: faults.Duration(5 * time.Second), For: faults.Duration(10 * time.Second)}}})
			overlaps := linearizability.Overlaps(h)
			if len(h.Terms) < 2 || (len(overlaps) > 0) != c.overlap {
				t.Errorf("terms %+v, overlaps %+v; want a second term and overlap %v", h.Terms, overlaps, c.overlap)
			}
		})
	}
}

// TestCarefulTakesSettings: a variant takes any setting the elector
// accepts and refuses the others, and its claims follow the setting; the
// records a plan writes are records the careful lock reads, with the
// record's lease or else the setting's, and one holding the largest token
// is read as no record.
func TestCarefulTakesSettings(t *testing.T) {
	v := Masked()[0]
	fs := faults.Settings{Lease: faults.Duration(2 * time.Second), RenewDeadline: faults.Duration(1500 * time.Millisecond),
		RetryPeriod: faults.Duration(300 * time.Millisecond), DriftPPM: 5000}
	p, err := v.Protocol().Configure(fs)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != v.Name || p.Assumptions.Lease != 2*time.Second || p.Assumptions.MaxDriftPPM != 5000 ||
		p.LivenessBound != 2*time.Second+6*300*time.Millisecond {
		t.Errorf("configured %s: %+v within %v", p.Name, p.Assumptions, p.LivenessBound)
	}
	fs.RenewDeadline = fs.Lease // no margin for drift: the elector refuses it
	if _, err := v.Protocol().Configure(fs); err == nil {
		t.Error("a renew deadline equal to the lease was accepted")
	}
	body := p.EncodeRecord(faults.Record{Holder: "gone", Token: 9, Released: true})
	if r, ok := decodeRecord(body); !ok || r.Holder != "gone" || r.Token != 9 || !r.Released || r.lease() != 2*time.Second {
		t.Errorf("record %s read as %+v, %v", body, r, ok)
	}
	top := defaults.encodeRecord(faults.Record{Holder: "x", Token: 1<<64 - 1, Lease: faults.Duration(3 * time.Second)})
	if r, ok := decodeRecord(top); ok || r.lease() != 3*time.Second {
		t.Errorf("a record of the largest token read as %+v, %v; want no record that states its lease", r, ok)
	}
}
