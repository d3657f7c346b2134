package linearizability

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// draw returns a number in [0, n) from a node's entropy.
func draw(r io.Reader, n int) int {
	var b [8]byte
	_, _ = io.ReadFull(r, b[:])
	return int(binary.LittleEndian.Uint64(b[:]) % uint64(n))
}

// s3Workload returns a candidate that hammers the key with every request
// the model knows: conditional creates and CASes on the last ETag it saw,
// unconditional puts, conditional and plain reads and deletes. With short,
// a quarter of the calls time out after 6 ms, before many answers come. A
// quarter of the bodies are drawn from three values, so equal ETags recur
// (ABA).
func s3Workload(short bool) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		bk, k := aws.String(env.Bucket), aws.String(env.Key)
		seen := ""
		remember := func(etag *string) {
			if etag != nil {
				seen = *etag
			}
		}
		for i := 0; ctx.Err() == nil; i++ {
			if err := env.Clock.Sleep(ctx, time.Duration(draw(env.Entropy, 30))*time.Millisecond); err != nil {
				return nil
			}
			timeout := 500 * time.Millisecond
			if short && draw(env.Entropy, 4) == 0 {
				timeout = 6 * time.Millisecond
			}
			cctx, cancel := env.Clock.WithTimeout(ctx, timeout)
			body := fmt.Sprintf("n%d.%d.%d", env.Node, env.Incarnation, i)
			if draw(env.Entropy, 4) == 0 {
				body = fmt.Sprintf("v%d", draw(env.Entropy, 3))
			}
			cond := seen
			if cond == "" || draw(env.Entropy, 8) == 0 {
				cond = `"00000000000000000000000000000000"`
			}
			switch draw(env.Entropy, 12) {
			case 0, 1, 2:
				in := &s3.GetObjectInput{Bucket: bk, Key: k}
				switch draw(env.Entropy, 4) {
				case 0:
					in.IfNoneMatch = aws.String(cond)
				case 1:
					in.IfMatch = aws.String(cond)
				}
				if out, err := env.Store.GetObject(cctx, in); err == nil {
					remember(out.ETag)
					_ = out.Body.Close()
				}
			case 3:
				if out, err := env.Store.HeadObject(cctx, &s3.HeadObjectInput{Bucket: bk, Key: k}); err == nil {
					remember(out.ETag)
				}
			case 4, 5, 6:
				in := &s3.PutObjectInput{Bucket: bk, Key: k, Body: strings.NewReader(body), IfNoneMatch: aws.String("*")}
				if out, err := env.Store.PutObject(cctx, in); err == nil {
					remember(out.ETag)
				}
			case 7, 8:
				in := &s3.PutObjectInput{Bucket: bk, Key: k, Body: strings.NewReader(body), IfMatch: aws.String(cond)}
				if out, err := env.Store.PutObject(cctx, in); err == nil {
					remember(out.ETag)
				}
			case 9:
				if out, err := env.Store.PutObject(cctx, &s3.PutObjectInput{Bucket: bk, Key: k, Body: strings.NewReader(body)}); err == nil {
					remember(out.ETag)
				}
			default:
				in := &s3.DeleteObjectInput{Bucket: bk, Key: k}
				if draw(env.Entropy, 2) == 0 {
					in.IfMatch = aws.String(cond)
				}
				_, _ = env.Store.DeleteObject(cctx, in)
			}
			cancel()
		}
		return nil
	}
}

// s3Chaos gives one request in five a fault: an answer lost or replaced by
// a 500 after the request was applied, a 500, 503 or (for conditional
// writes) 409 instead of applying it, no connection, no answer, or an
// answer delayed past most callers' timeouts.
type s3Chaos struct{}

func (s3Chaos) RequestFault(w *sim.World, r sim.Request) sim.RequestFault {
	var f sim.RequestFault
	switch w.Chooser().Choose(sim.ChooseFault, 40) {
	case 0:
		f.Fate = sim.Lost
	case 1:
		f.Fate, f.Err = sim.FailedAfter, sim.InternalError
	case 2:
		f.Fate, f.Err = sim.RefusedBefore, sim.InternalError
	case 3:
		f.Fate, f.Err = sim.RefusedBefore, sim.SlowDown
	case 4:
		if r.Conditional && r.Write {
			f.Fate, f.Err = sim.RefusedBefore, sim.ConditionalRequestConflict
		}
	case 5:
		f.Fate = sim.Unreachable
	case 6:
		f.Fate = sim.Dropped
	case 7:
		f.ExtraResponse = 20 * time.Millisecond
	}
	return f
}

// workloadRun runs s3Workload on three nodes for three seconds. With
// chaos, calls time out early, s3Chaos injects faults, depending on the
// seed the clients retry as the SDK does, and node 1 crashes and restarts;
// without, nothing goes wrong and only the races remain.
func workloadRun(t testing.TB, seed uint64, chaos bool) *sim.History {
	t.Helper()
	cfg := sim.Config{
		Seed: seed, Nodes: 3, Duration: 3 * time.Second, Candidate: s3Workload(chaos),
		Bucket: "b", Key: "k", WriteInterval: 100 * time.Millisecond,
		S3Request:  sim.Latency{Min: time.Millisecond, Max: 5 * time.Millisecond},
		S3Response: sim.Latency{Min: time.Millisecond, Max: 5 * time.Millisecond},
		MaxSteps:   2_000_000,
	}
	if chaos {
		if seed%3 == 0 {
			cfg.S3Attempts = 3
		}
		cfg.Setup = func(w *sim.World) {
			w.SetFaults(s3Chaos{})
			if seed%2 == 0 {
				w.At(time.Second, -1, w.Node(1).Crash)
				w.At(1500*time.Millisecond, -1, func() { w.Node(1).Restart("") })
			}
		}
	}
	return mustSimulate(t, cfg)
}

// electorRun is a run of the production elector as the reference scenario
// sets it up: five nodes for a minute; with chaos, under s3Chaos.
func electorRun(t testing.TB, seed uint64, chaos bool) *sim.History {
	t.Helper()
	elector := func(ctx context.Context, env sim.Env) error {
		e, err := protocol.NewElector(protocol.Config{
			Store: env.Store, Clock: env.Clock, Entropy: env.Entropy,
			Bucket: env.Bucket, Key: env.Key, Identity: env.Identity,
			LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second,
			RetryPeriod: time.Second, RequestTimeout: 1500 * time.Millisecond,
			ClockDriftPPM: 1000, ReleaseOnCancel: true,
			Callbacks: protocol.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context, lease protocol.Lease) { env.Lead(ctx, lease.Token) },
			},
		})
		if err != nil {
			return err
		}
		return e.Run(ctx)
	}
	cfg := sim.Config{
		Seed: seed, Nodes: 5, Duration: time.Minute, Candidate: elector,
		Bucket: "sim-bucket", Key: "leader.json",
		S3Request:     sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		S3Response:    sim.Latency{Min: 2 * time.Millisecond, Max: 40 * time.Millisecond},
		FenceRequest:  sim.Latency{Min: time.Millisecond, Max: 10 * time.Millisecond},
		FenceResponse: sim.Latency{Min: time.Millisecond, Max: 10 * time.Millisecond},
		WriteInterval: 500 * time.Millisecond,
		MaxSteps:      2_000_000,
	}
	if chaos {
		cfg.Setup = func(w *sim.World) { w.SetFaults(s3Chaos{}) }
	}
	return mustSimulate(t, cfg)
}

func mustSimulate(t testing.TB, cfg sim.Config) *sim.History {
	t.Helper()
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("seed %d: run failed: %v", cfg.Seed, res.Failure)
	}
	return res.History
}

const s3Seeds = 50

// TestS3SimulatedRunsAreLinearizable checks the simulator's S3 against the
// model: runs full of races, abandoned calls, lost answers, 500s after
// apply, SDK retries and a crash must all be judged Ok. The runs must also
// contain the cases that make the model nondeterministic, or the test
// proves little.
func TestS3SimulatedRunsAreLinearizable(t *testing.T) {
	var ops, unknown, ambiguous, conflicts int
	var slowest time.Duration
	for seed := uint64(1); seed <= s3Seeds; seed++ {
		h := workloadRun(t, seed, true)
		r := CheckS3(h, 10*time.Second)
		if r.Result != porcupine.Ok {
			t.Fatalf("seed %d: CheckS3 = %s over %d requests", seed, r.Result, r.Ops)
		}
		ops += r.Ops
		slowest = max(slowest, r.Duration)
		for _, o := range h.S3 {
			switch {
			case o.Return < 0:
				unknown++
			case o.Status == 0 || o.Status >= 500:
				ambiguous++
			case o.Status == 409:
				conflicts++
			}
		}
	}
	t.Logf("%d seeds, %d requests checked; %d without an answer, %d 5xx or no connection, %d 409; slowest check %v",
		s3Seeds, ops, unknown, ambiguous, conflicts, slowest)
	if unknown < 10*s3Seeds || ambiguous < 5*s3Seeds || conflicts < s3Seeds {
		t.Fatalf("the runs lack uncertain outcomes: %d unknown, %d ambiguous, %d conflicts", unknown, ambiguous, conflicts)
	}
}

// TestS3ElectorRunsAreLinearizable checks runs of the production elector,
// with and without faults.
func TestS3ElectorRunsAreLinearizable(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		for _, chaos := range []bool{false, true} {
			if r := CheckS3(electorRun(t, seed, chaos), 10*time.Second); r.Result != porcupine.Ok || r.Ops < 100 {
				t.Fatalf("seed %d, chaos %v: CheckS3 = %s over %d requests", seed, chaos, r.Result, r.Ops)
			}
		}
	}
}

// unwrittenETag is an ETag no request of any test writes.
const unwrittenETag = `"ffffffffffffffffffffffffffffffff"`

// s3Mutation corrupts one answered request of a history so that it
// contradicts what the store answered.
type s3Mutation struct {
	name string
	// apply changes o, reporting false if the mutation does not apply to
	// it; h is the history before the change.
	apply func(h *sim.History, i int, o *sim.S3Op) bool
	// always: every mutated history must be Illegal. Otherwise the
	// corrupted answer may have another explanation (see
	// TestS3MutationsAreCaught) and only most must be caught.
	always bool
}

var s3Mutations = []s3Mutation{
	{
		name:   "a read answered with an ETag nobody wrote",
		always: true,
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if (o.Op != "GetObject" && o.Op != "HeadObject") || o.Status != 200 {
				return false
			}
			o.ETag = unwrittenETag
			return true
		},
	},
	{
		name:   "a write answered with an ETag other than its body's",
		always: true,
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "PutObject" || o.Status != 200 {
				return false
			}
			o.ETag = unwrittenETag
			return true
		},
	},
	{
		name:   "an unconditional delete refused",
		always: true,
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "DeleteObject" || o.IfMatch != "" || o.Status != 200 {
				return false
			}
			o.Status, o.Code = 412, "PreconditionFailed"
			return true
		},
	},
	{
		name: "a successful conditional write refused",
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "PutObject" || o.Status != 200 || (o.IfMatch == "" && o.IfNoneMatch == "") {
				return false
			}
			o.Status, o.Code, o.ETag = 412, "PreconditionFailed", ""
			return true
		},
	},
	{
		name: "a refused conditional write succeeds",
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "PutObject" || (o.Status != 412 && o.Status != 404) {
				return false
			}
			o.Status, o.Code, o.ETag = 200, "", o.BodyETag
			return true
		},
	},
	{
		name: "a read misses the object",
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "GetObject" || o.Status != 200 {
				return false
			}
			o.Status, o.Code, o.ETag = 404, "NoSuchKey", ""
			return true
		},
	},
	{
		name: "a read finds the object last written before it",
		apply: func(h *sim.History, i int, o *sim.S3Op) bool {
			if o.Op != "GetObject" || o.Status != 404 {
				return false
			}
			last := ""
			for _, p := range h.S3[:i] {
				if p.Op == "PutObject" && p.Status == 200 && p.Return >= 0 && p.Return < o.Call {
					last = p.ETag
				}
			}
			if last == "" {
				return false
			}
			o.Status, o.Code, o.ETag = 200, "", last
			return true
		},
	},
	{
		name: "a conditional delete refused",
		apply: func(_ *sim.History, _ int, o *sim.S3Op) bool {
			if o.Op != "DeleteObject" || o.IfMatch == "" || o.Status != 200 {
				return false
			}
			o.Status, o.Code = 412, "PreconditionFailed"
			return true
		},
	},
}

// TestS3MutationsAreCaught corrupts one answer at a time in simulated
// histories and demands Illegal; no check may time out. Mutations marked
// always leave an answer nothing can explain and must all be caught. The
// others flip an answer between success and refusal, and a flip goes
// unseen when another order of the requests explains it. Races explain
// some: two earlier writes that overlapped (a delete and a put) leave the
// key either way, and a write concurrent with the mutated request may
// take effect before or after it; with equal bodies (ABA) a read cannot
// tell which write it saw. Faults explain more: a write of unknown outcome
// may take effect at any later instant, and with faults several are
// pending at any time. Runs without faults must see at least three flips
// in four caught (about 90% are), runs with faults two in five (55-90%).
func TestS3MutationsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chaos bool
		least int // per cent of the flips that must be caught
	}{
		{"races", false, 75},
		{"races and faults", true, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const perSeed = 2 // mutated requests per seed and mutation
			tried := make([]int, len(s3Mutations))
			caught := make([]int, len(s3Mutations))
			for seed := uint64(1); seed <= s3Seeds; seed++ {
				h := workloadRun(t, seed, tc.chaos)
				for m, mut := range s3Mutations {
					done := 0
					// Start at a seed-dependent request so that mutations
					// land all over the run.
					start := int(seed*7919) % len(h.S3)
					for n := range h.S3 {
						if done == perSeed {
							break
						}
						i := (start + n) % len(h.S3)
						c := *h
						c.S3 = slices.Clone(h.S3)
						o := &c.S3[i]
						if o.Return < 0 || classify(s3Output{status: o.Status}) != answerDetermined || !mut.apply(h, i, o) {
							continue
						}
						done++
						tried[m]++
						r := CheckS3(&c, 10*time.Second)
						switch {
						case r.Result == porcupine.Illegal:
							caught[m]++
						case r.Result != porcupine.Ok:
							t.Fatalf("seed %d, %s at S3[%d]: CheckS3 = %s", seed, mut.name, i, r.Result)
						case mut.always:
							t.Errorf("seed %d, %s at S3[%d]: not caught", seed, mut.name, i)
						}
					}
				}
			}
			for m, mut := range s3Mutations {
				t.Logf("%-52s caught %3d of %3d", mut.name, caught[m], tried[m])
				if tried[m] < s3Seeds/2 {
					t.Errorf("%s: tried only %d times", mut.name, tried[m])
				}
				if !mut.always && caught[m]*100 < tried[m]*tc.least {
					t.Errorf("%s: caught only %d of %d", mut.name, caught[m], tried[m])
				}
			}
		})
	}
}

// TestS3Visualize checks that the visualisation names requests and states
// as the model describes them, and shows the requests not checked.
func TestS3Visualize(t *testing.T) {
	r := mustCheckS3(t, s3History(
		create(at{0, 0, 10}, "a"),
		withError(create(at{1, 5, 15}, "b"), 412, "PreconditionFailed"),
		put(at{2, 12, -1}, "c"),
		withError(get(at{3, 16, 18}, "a"), 503, "SlowDown"),
		get(at{2, 20, 30}, "x"),
	), "Illegal")
	var buf bytes.Buffer
	if err := r.Visualize(&buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<html", "n1 PutObject If-None-Match:*", "412 PreconditionFailed",
		"present ", "S3[4] key", "n2 PutObject body (unseen) -\\u003e no answer", "may take effect at any instant",
		"n3 GetObject -\\u003e 503 SlowDown", "not checked"} {
		if !strings.Contains(html, want) {
			t.Errorf("visualisation lacks %q", want)
		}
	}
	// A whole run, with requests of every kind of outcome.
	r = CheckS3(workloadRun(t, 1, true), 10*time.Second)
	if err := r.Visualize(io.Discard); err != nil || r.Result != porcupine.Ok {
		t.Fatalf("%s, %v", r.Result, err)
	}
}

// TestS3AppliedConflictIsIllegal shows what the model says of a fault
// that applies a conditional write and answers 409: S3 does not do that
// (409 means "not applied, retry"), so a read that sees the write makes
// the history illegal.
func TestS3AppliedConflictIsIllegal(t *testing.T) {
	fault := &firstFault{fault: sim.RequestFault{Fate: sim.FailedAfter, Err: sim.ConditionalRequestConflict}}
	h := mustSimulate(t, sim.Config{
		Seed: 1, Nodes: 1, Duration: time.Second, Bucket: "b", Key: "k", WriteInterval: time.Second,
		S3Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, S3Response: sim.Latency{Min: time.Millisecond, Max: time.Millisecond},
		Candidate: func(ctx context.Context, env sim.Env) error {
			_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
				Body: strings.NewReader("v1"), IfNoneMatch: aws.String("*")})
			_, _ = env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
			return nil
		},
		Setup: func(w *sim.World) { w.SetFaults(fault) },
	})
	if len(h.S3) != 2 || h.S3[0].Status != 409 || h.S3[1].Status != 200 {
		t.Fatalf("history: %+v", h.S3)
	}
	if r := CheckS3(h, 10*time.Second); r.Result != porcupine.Illegal {
		t.Fatalf("CheckS3 = %s", r.Result)
	}
}

// TestS3RefusalsAreNotApplied: a write answered 403 AccessDenied, or 429
// by a throttling proxy in front of S3, did not take effect. Refused
// before it applied, a later read that finds no object is legal; applied
// and then answered so, which neither S3 nor a proxy does, the read that
// sees the write makes the history illegal.
func TestS3RefusalsAreNotApplied(t *testing.T) {
	for _, tt := range []struct {
		answer func(op, requestID string) error
		status int
		fate   sim.Fate
		want   porcupine.CheckResult
	}{
		{sim.AccessDenied, 403, sim.RefusedBefore, porcupine.Ok}, {sim.AccessDenied, 403, sim.FailedAfter, porcupine.Illegal},
		{sim.TooManyRequests, 429, sim.RefusedBefore, porcupine.Ok}, {sim.TooManyRequests, 429, sim.FailedAfter, porcupine.Illegal},
	} {
		fault := &firstFault{fault: sim.RequestFault{Fate: tt.fate, Err: tt.answer}}
		h := mustSimulate(t, sim.Config{
			Seed: 1, Nodes: 1, Duration: time.Second, Bucket: "b", Key: "k", WriteInterval: time.Second,
			S3Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, S3Response: sim.Latency{Min: time.Millisecond, Max: time.Millisecond},
			Candidate: func(ctx context.Context, env sim.Env) error {
				_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
					Body: strings.NewReader("v1"), IfNoneMatch: aws.String("*")})
				_, _ = env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
				return nil
			},
			Setup: func(w *sim.World) { w.SetFaults(fault) },
		})
		if len(h.S3) != 2 || h.S3[0].Status != tt.status {
			t.Fatalf("%d %v: history %+v", tt.status, tt.fate, h.S3)
		}
		if r := CheckS3(h, 10*time.Second); r.Result != tt.want {
			t.Errorf("%d %v: CheckS3 = %s, want %s", tt.status, tt.fate, r.Result, tt.want)
		}
		if r := CheckS3Porcupine(h, 10*time.Second); r.Result != tt.want {
			t.Errorf("%d %v: CheckS3Porcupine = %s, want %s", tt.status, tt.fate, r.Result, tt.want)
		}
	}
}

// firstFault gives the first request its fault and the others none.
type firstFault struct {
	fault sim.RequestFault
	used  bool
}

func (ff *firstFault) RequestFault(*sim.World, sim.Request) sim.RequestFault {
	if ff.used {
		return sim.RequestFault{}
	}
	ff.used = true
	return ff.fault
}

// BenchmarkCheckS3 measures one check of a run's S3 history: a minute of
// the production elector on five nodes (the reference scenario's shape),
// without faults and under s3Chaos, and three seconds of s3Workload under
// s3Chaos (dense races and many requests of unknown outcome). It reports
// the requests checked per history and the time per request.
func BenchmarkCheckS3(b *testing.B) {
	for _, bc := range []struct {
		name string
		run  func(testing.TB, uint64) *sim.History
	}{
		{"elector-5n-60s", func(t testing.TB, seed uint64) *sim.History { return electorRun(t, seed, false) }},
		{"elector-5n-60s-faults", func(t testing.TB, seed uint64) *sim.History { return electorRun(t, seed, true) }},
		{"workload-3n-3s-faults", func(t testing.TB, seed uint64) *sim.History { return workloadRun(t, seed, true) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var hs []*sim.History
			for seed := uint64(1); seed <= 10; seed++ {
				hs = append(hs, bc.run(b, seed))
			}
			ops, i := 0, 0
			for b.Loop() {
				r := CheckS3(hs[i%len(hs)], time.Minute)
				if r.Result != porcupine.Ok {
					b.Fatalf("CheckS3 = %s", r.Result)
				}
				ops += r.Ops
				i++
			}
			b.ReportMetric(float64(ops)/float64(i), "ops")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/S3op")
		})
	}
}
