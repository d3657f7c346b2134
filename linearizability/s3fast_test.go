package linearizability

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// The fast checker must never contradict porcupine: whenever it decides,
// its verdict is porcupine's. These tests hold it to that on generated
// histories, legal and corrupted, and on simulated runs, and measure how
// often it decides.

func dumpS3(h *sim.History) string {
	var b strings.Builder
	for i, o := range h.S3 {
		fmt.Fprintf(&b, "  %d: n%d %s key=%s If-Match=%.10s If-None-Match=%.10s body=%.10s call=%v ret=%v -> %d %s %.10s\n",
			i, o.Node, o.Op, o.Key, o.IfMatch, o.IfNoneMatch, o.BodyETag, o.Call, o.Return, o.Status, o.Code, o.ETag)
	}
	return b.String()
}

// TestS3FastAgreesWithPorcupine is the property: on every generated
// history, and on every mutation of it, the fast checker is undecided or
// says what porcupine says. It logs how often the fast checker decides,
// by kind of history (TestS3FastAgreesInVolume has the figures that
// matter, from many more histories).
func TestS3FastAgreesWithPorcupine(t *testing.T) {
	legal := map[string]*agreement{}
	var mutated agreement
	for _, c := range categories {
		legal[c] = &agreement{}
	}
	rapid.Check(t, func(t *rapid.T) {
		d := rapidDrawer(t)
		s := drawShape(d)
		h := genS3History(d, s)
		f, p, err := legal[s.category()].judge(h)
		if err == nil && p == porcupine.Illegal {
			err = errors.New("porcupine says Illegal of a history built linearizable")
		}
		if err != nil {
			t.Fatalf("%v; history:\n%s", err, dumpS3(h))
		}
		if f.Verdict == FastIllegal {
			t.Fatalf("fast checker: Illegal (%s) for a legal history:\n%s", f.Reason, dumpS3(h))
		}
		for _, m := range s3HistoryMutations {
			if c := mutate(d, h, m); c != nil {
				if _, _, err := mutated.judge(c); err != nil {
					t.Fatalf("%s: %v; history:\n%s", m.name, err, dumpS3(c))
				}
			}
		}
	})
	for _, c := range categories {
		t.Logf("legal, %-22s %s", c+":", legal[c])
	}
	t.Logf("mutated:                      %s", &mutated)
}

// TestS3FastAgreesInVolume runs the generator of
// TestS3FastAgreesWithPorcupine from a fixed seed for many more
// histories, and requires the fast checker to decide almost every legal
// history with conditional puts only, and most illegal ones with unique
// ETags.
func TestS3FastAgreesInVolume(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(7, 11))
	d := randDrawer(r)
	legal, illegal := map[string]*agreement{}, map[string]*agreement{}
	for _, c := range categories {
		legal[c], illegal[c] = &agreement{}, &agreement{}
	}
	var mutated, all agreement
	for i := range n {
		s := drawShape(d)
		h := genS3History(d, s)
		if _, p, err := legal[s.category()].judge(h); err != nil || p == porcupine.Illegal {
			t.Fatalf("history %d: %v, porcupine %s:\n%s", i, err, p, dumpS3(h))
		}
		for _, m := range s3HistoryMutations {
			c := mutate(d, h, m)
			if c == nil {
				continue
			}
			f, p, err := mutated.judge(c)
			if err != nil {
				t.Fatalf("history %d, %s: %v:\n%s", i, m.name, err, dumpS3(c))
			}
			if p == porcupine.Illegal {
				tally := illegal[s.category()]
				tally.total++
				tally.illegal++
				if f.Verdict == FastIllegal {
					tally.decided++
					tally.fastIllegal++
				}
			}
		}
	}
	for _, c := range categories {
		t.Logf("legal, %-22s %s", c+":", legal[c])
	}
	for _, c := range categories {
		t.Logf("illegal, %-20s %s", c+":", illegal[c])
	}
	t.Logf("all mutated:                  %s", &mutated)
	for _, a := range legal {
		all.elapsedFast += a.elapsedFast
		all.elapsedPorcupine += a.elapsedPorcupine
	}
	t.Logf("legal histories: fast %v, porcupine %v", all.elapsedFast, all.elapsedPorcupine)
	if a := legal["conditional puts only"]; a.decided*100 < a.total*99 {
		t.Errorf("the fast checker decided only %s", a)
	}
	if a := illegal["conditional puts only"]; a.decided*100 < a.total*60 {
		t.Errorf("the fast checker proved illegal only %s", a)
	}
}

// TestS3FastAgreesOnRandomS3History uses the generator of
// TestS3ModelMatchesInfinityModel: small histories, a third of the bodies
// shared (ABA), unconditional puts, and corrupted answers.
func TestS3FastAgreesOnRandomS3History(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(3, 4))
	var all agreement
	for i := range n {
		h, _ := randomS3History(r)
		if _, _, err := all.judge(h); err != nil {
			t.Fatalf("history %d: %v:\n%s", i, err, dumpS3(h))
		}
	}
	t.Logf("%s", &all)
}

// TestS3FastOnSimulatedRuns checks the runs of the other S3 tests: the
// workload (ABA, unconditional puts, faults: mostly left to porcupine)
// and the production elector, which the fast checker must always decide.
func TestS3FastOnSimulatedRuns(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5
	}
	var workload, elector agreement
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, chaos := range []bool{false, true} {
			if _, _, err := workload.judge(workloadRun(t, seed, chaos)); err != nil {
				t.Fatalf("workload seed %d, chaos %v: %v", seed, chaos, err)
			}
			h := electorRun(t, seed, chaos)
			if f, _, err := elector.judge(h); err != nil || f.Verdict != FastOk {
				t.Fatalf("elector seed %d, chaos %v: %v, %s (%s)", seed, chaos, err, f.Verdict, f.Reason)
			}
		}
	}
	t.Logf("workload: %s", &workload)
	t.Logf("elector:  %s; fast %v, porcupine %v", &elector, elector.elapsedFast, elector.elapsedPorcupine)
}

// TestS3FastHandBuilt lists histories and the fast checker's verdict:
// what it decides, including Illegal verdicts it proves from the If-Match
// chain, and what it leaves to porcupine.
func TestS3FastHandBuilt(t *testing.T) {
	ifMatch := func(o sim.S3Op, prev string) sim.S3Op { o.IfMatch = etagOf(prev); return o }
	for _, tc := range []struct {
		name string
		want FastVerdict
		ops  []sim.S3Op
	}{
		{"empty", FastOk, nil},
		{"a chain of CASes read by others", FastOk, []sim.S3Op{
			get(at{0, 0, 10}, ""),
			create(at{0, 10, 20}, "a"),
			withError(create(at{1, 12, 22}, "x"), 412, "PreconditionFailed"),
			get(at{1, 21, 30}, "a"),
			cas(at{0, 25, 40}, "a", "b"),
			get(at{2, 26, 35}, "a"),
			get(at{3, 27, 36}, "b"),
			withError(cas(at{1, 41, 50}, "a", "y"), 412, "PreconditionFailed"),
			cas(at{0, 45, 55}, "b", "c"),
		}},
		{"a CAS answered 500, its retry 200", FastOk, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			withError(cas(at{0, 20, 30}, "a", "b"), 500, "InternalError"),
			cas(at{0, 40, 50}, "a", "b"),
			get(at{1, 60, 70}, "b"),
		}},
		{"a CAS without an answer, seen much later", FastOk, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{0, 20, -1}, "a", "b"),
			get(at{1, 30, 40}, "a"),
			get(at{1, 5000, 5010}, "b"),
			cas(at{1, 5020, 5030}, "b", "c"),
		}},
		{"a CAS without an answer explains a refusal", FastOk, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{0, 20, -1}, "a", "b"),
			withError(cas(at{1, 30, 40}, "a", "c"), 412, "PreconditionFailed"),
		}},
		{"a delete from outside, then a new chain", FastOk, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{0, 20, 30}, "a", "b"),
			del(at{-1, 35, 35}),
			get(at{1, 40, 50}, ""),
			create(at{1, 50, 60}, "c"),
			get(at{0, 70, 80}, "c"),
		}},
		{"a conditional delete ends a chain", FastOk, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			ifMatch(del(at{0, 20, 30}), "a"),
			create(at{1, 40, 50}, "b"),
		}},
		{"racing unconditional puts, the one continued last", FastOk, []sim.S3Op{
			put(at{0, 0, 20}, "a"),
			put(at{1, 1, 21}, "b"),
			put(at{2, 2, 22}, "c"),
			cas(at{1, 30, 40}, "b", "d"),
			withError(cas(at{0, 30, 40}, "a", "e"), 412, "PreconditionFailed"),
		}},
		{"a stale read after a completed CAS", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			get(at{2, 40, 50}, "a"),
		}},
		{"one version replaced twice", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			cas(at{2, 21, 31}, "a", "c"),
		}},
		{"a CAS of a version written after it", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			cas(at{2, 5, 15}, "b", "c"),
		}},
		{"a read of an ETag nobody wrote", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			get(at{1, 20, 30}, "x"),
		}},
		{"a create while the object exists", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			get(at{1, 20, 30}, "a"),
			create(at{2, 40, 50}, "b"),
		}},
		{"a 412 while the version named was current", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			withError(cas(at{1, 20, 30}, "a", "b"), 412, "PreconditionFailed"),
			cas(at{2, 40, 50}, "a", "c"),
		}},
		{"a read misses a completed create", FastIllegal, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			get(at{1, 20, 30}, ""),
		}},
		{"a 409-answered write is read later", FastIllegal, []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 409, "ConditionalRequestConflict"),
			get(at{1, 20, 30}, "a"),
		}},
		{"ABA: one ETag written twice", FastUndecided, []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			cas(at{2, 40, 50}, "b", "a"),
			get(at{0, 60, 70}, "a"),
		}},
		{"racing unconditional puts read in an impossible order", FastUndecided, []sim.S3Op{
			put(at{0, 0, 100}, "a"),
			put(at{1, 0, 100}, "b"),
			get(at{2, 110, 120}, "a"),
			get(at{2, 130, 140}, "b"),
			get(at{2, 150, 160}, "a"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := s3History(tc.ops...)
			f := CheckS3Fast(h)
			p := checkS3Porcupine(h, 10*time.Second)
			if f.Verdict != tc.want {
				t.Errorf("CheckS3Fast = %s (%s), want %s; porcupine says %s", f.Verdict, f.Reason, tc.want, p.Result)
			}
			if f.Verdict != FastUndecided && f.Verdict.String() != string(p.Result) {
				t.Errorf("CheckS3Fast = %s, porcupine %s", f.Verdict, p.Result)
			}
		})
	}
}

// TestFastPredShortcuts holds evalPred's shortcuts, for reads without
// preconditions and for puts, to what s3Apply says of every state.
func TestFastPredShortcuts(t *testing.T) {
	if f := CheckS3Fast(s3History(func() sim.S3Op { o := get(at{0, 0, 10}, ""); o.IfMatch = fastOtherETag; return o }())); f.Verdict != FastUndecided {
		t.Errorf("a request naming fastOtherETag: %s", f.Verdict)
	}
	var c fastChecker
	c.byTrim = map[string]int32{}
	for i, b := range []string{"a", "b"} {
		c.versions = append(c.versions, fastVersion{etag: etagOf(b)})
		c.byTrim[strings.Trim(etagOf(b), `"`)] = int32(i)
	}
	// A version whose ETag a client quotes differently.
	c.versions = append(c.versions, fastVersion{etag: strings.Trim(etagOf("c"), `"`)})
	c.byTrim[strings.Trim(etagOf("c"), `"`)] = 2
	etags := []string{"", etagOf("a"), strings.Trim(etagOf("a"), `"`), etagOf("b"), etagOf("c"), strings.Trim(etagOf("c"), `"`),
		etagOf("z"), "*", `""`, `"*"`, fastOtherETag}
	var outs []s3Output
	for _, st := range []int{200, 304, 404, 412, 500, 501} {
		for _, code := range []string{"", "NoSuchKey", "NotFound", "PreconditionFailed", "NotImplemented"} {
			for _, e := range etags {
				outs = append(outs, s3Output{status: st, code: code, etag: e})
			}
		}
	}
	var ins []*s3Input
	for _, kind := range []s3Kind{s3Get, s3Head} {
		ins = append(ins, &s3Input{kind: kind, key: "k"})
	}
	// Requests never name fastOtherETag (CheckS3Fast leaves histories
	// that do to porcupine); answers may.
	for _, body := range etags[1:7] {
		for _, ifMatch := range etags[:len(etags)-1] {
			for _, ifNone := range []string{"", "*", etagOf("a")} {
				ins = append(ins, &s3Input{kind: s3Put, key: "k", ifMatch: ifMatch, ifNoneMatch: ifNone, bodyETag: body})
			}
		}
	}
	states := []int32{-1, 0, 1, 2}
	n := 0
	for _, in := range ins {
		for _, out := range outs {
			fast, slow := c.evalPred(in, out, true), c.evalPredSlow(in, out, true)
			for _, v := range states {
				if fast.accepts(v) != slow.accepts(v) {
					t.Fatalf("%s answered %+v in state %d: shortcut %v, s3Apply %v", describeS3Operation(in, out), out, v, fast.accepts(v), slow.accepts(v))
				}
			}
			if fast.accepts(-1) || fast.accepts(0) || fast.accepts(1) || fast.accepts(2) {
				n++
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d answers possible in some state: the test proves little", n)
	}
}

// TestCheckS3UsesTheFastChecker checks how CheckS3 combines the two
// checkers: a history the fast checker finds Ok is not given to porcupine;
// an illegal one is, and the verdict is then porcupine's; CheckS3Porcupine
// always asks porcupine, and records the fast verdict for Disagreement.
func TestCheckS3UsesTheFastChecker(t *testing.T) {
	h := electorRun(t, 1, true)
	fast := CheckS3(h, 10*time.Second)
	slow := CheckS3Porcupine(h, 10*time.Second)
	if fast.Checker != CheckerFast || fast.Result != porcupine.Ok || fast.Fast != FastOk {
		t.Errorf("CheckS3: %s by %s (fast %s)", fast.Result, fast.Checker, fast.Fast)
	}
	if slow.Checker != CheckerPorcupine || slow.Result != porcupine.Ok || slow.Fast != FastOk || fast.Ops != slow.Ops {
		t.Errorf("CheckS3Porcupine: %s by %s (fast %s) over %d requests, CheckS3 %d", slow.Result, slow.Checker, slow.Fast, slow.Ops, fast.Ops)
	}
	for _, r := range []S3Result{fast, slow} {
		if err := r.Disagreement(); err != nil {
			t.Error(err)
		}
	}
	// The visualisation of a fast verdict is porcupine's.
	var a, b bytes.Buffer
	if err := fast.Visualize(&a); err != nil {
		t.Fatal(err)
	}
	if err := slow.Visualize(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("the visualisations differ (%d and %d bytes)", a.Len(), b.Len())
	}

	illegal := s3History(create(at{0, 0, 10}, "a"), cas(at{1, 20, 30}, "a", "b"), get(at{2, 40, 50}, "a"))
	r := CheckS3(illegal, 10*time.Second)
	if r.Checker != CheckerPorcupine || r.Result != porcupine.Illegal || r.Fast != FastIllegal || r.Ops != 3 {
		t.Errorf("illegal history: %s by %s (fast %s) over %d requests", r.Result, r.Checker, r.Fast, r.Ops)
	}
	if err := r.Disagreement(); err != nil {
		t.Error(err)
	}
	// A disagreement is reported, as such.
	r.Fast = FastOk
	if err := r.Disagreement(); !errors.Is(err, ErrS3CheckersDisagree) {
		t.Errorf("Disagreement = %v", err)
	}
}

// TestS3FastDoesNotModifyHistory checks that CheckS3Fast leaves h alone.
func TestS3FastDoesNotModifyHistory(t *testing.T) {
	for _, h := range []*sim.History{workloadRun(t, 2, true), electorRun(t, 2, true)} {
		before := slices.Clone(h.S3)
		CheckS3Fast(h)
		if !slices.Equal(h.S3, before) {
			t.Fatal("CheckS3Fast modified the history")
		}
	}
}

// TestS3FastWhenPorcupineTimesOut shows a history porcupine cannot
// decide in a millisecond, sixteen overlapping puts answered 500 and a
// read of an ETag none wrote, that the fast checker proves illegal at
// once. CheckS3 still returns porcupine's Unknown: an Illegal verdict is
// always porcupine's.
func TestS3FastWhenPorcupineTimesOut(t *testing.T) {
	var ops []sim.S3Op
	for i := range 16 {
		ops = append(ops, withError(put(at{i % 4, i, 100}, fmt.Sprint("p", i)), 500, "InternalError"))
	}
	ops = append(ops, get(at{0, 200, 210}, "never"))
	h := s3History(ops...)
	if f := CheckS3Fast(h); f.Verdict != FastIllegal {
		t.Errorf("CheckS3Fast = %s (%s)", f.Verdict, f.Reason)
	}
	if r := CheckS3(h, time.Millisecond); r.Result != porcupine.Unknown || r.Fast != FastIllegal {
		t.Errorf("CheckS3 = %s, fast %s", r.Result, r.Fast)
	}
}
