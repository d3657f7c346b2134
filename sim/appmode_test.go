package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// leaseCandidate leads with token 1 from the start on node 0: its leader
// context is cancelled at cancelAt (0: never), and the lease check it
// reports says yes until yesUntil (true time).
func leaseCandidate(cancelAt, yesUntil time.Duration) Candidate {
	return func(ctx context.Context, env Env) error {
		if env.Node != 0 {
			return nil
		}
		w := env.Clock.(*nodeClock).w
		env.ReportLease(func() (uint64, bool) { return 1, w.Now() < yesUntil })
		lctx, cancel := context.WithCancel(ctx)
		done, markDone := context.WithCancel(context.Background())
		env.Clock.Go(func() {
			defer markDone()
			env.Lead(lctx, 1)
		})
		if cancelAt > 0 {
			_ = env.Clock.Sleep(ctx, cancelAt)
			cancel()
		}
		_ = env.Clock.Sleep(done, time.Hour)
		cancel()
		return nil
	}
}

// TestAppChecksEndsItsTermAtTheFirstNo: an application that asks the lease
// check before each write stops at the first no, though its context is
// never cancelled, and records each write as checked.
func TestAppChecksEndsItsTermAtTheFirstNo(t *testing.T) {
	cfg := testConfig(1, 10*time.Second, leaseCandidate(0, 2*time.Second))
	cfg.Setup = func(w *World) { w.Node(0).SetApp(AppChecks, 0) }
	h := mustRun(t, cfg).History
	if len(h.Terms) != 1 || h.Terms[0].Open || h.Terms[0].End < 2*time.Second || h.Terms[0].End > 2*time.Second+cfg.WriteInterval {
		t.Fatalf("terms %+v; want one that ends at the first check after 2s", h.Terms)
	}
	for _, fw := range h.Writes {
		if !fw.Checked || fw.CheckedAt > fw.Sent || fw.Sent >= 2*time.Second {
			t.Fatalf("write %+v: want checked, before 2s", fw)
		}
	}
}

// TestAppPollsIgnoresItsContext: an application that relies on the lease
// check alone writes on after its context is cancelled, while the check
// says yes, and its term ends at its last write.
func TestAppPollsIgnoresItsContext(t *testing.T) {
	cfg := testConfig(1, 10*time.Second, leaseCandidate(time.Second, 3*time.Second))
	cfg.Setup = func(w *World) { w.Node(0).SetApp(AppPolls, 0) }
	h := mustRun(t, cfg).History
	last := h.Writes[len(h.Writes)-1]
	if last.Sent < 2*time.Second || last.Sent >= 3*time.Second {
		t.Fatalf("last write sent at %v; want after the cancellation at 1s, before the no at 3s", last.Sent)
	}
	if len(h.Terms) != 1 || h.Terms[0].End != last.Sent {
		t.Fatalf("terms %+v; want one ending at the last write, %v", h.Terms, last.Sent)
	}
}

// TestAppWithoutLeaseCheckFallsBack: a mode that needs the lease check runs
// as AppContext when the candidate reported none.
func TestAppWithoutLeaseCheckFallsBack(t *testing.T) {
	c := func(ctx context.Context, env Env) error {
		lctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
		defer cancel()
		env.Lead(lctx, 1)
		return nil
	}
	cfg := testConfig(1, 5*time.Second, c)
	cfg.Setup = func(w *World) { w.Node(0).SetApp(AppPolls, 0) }
	h := mustRun(t, cfg).History
	if len(h.Terms) != 1 || h.Terms[0].End > time.Second+cfg.WriteInterval {
		t.Fatalf("terms %+v; want one ending with its context", h.Terms)
	}
	for _, fw := range h.Writes {
		if fw.Checked {
			t.Fatalf("write %+v checked without a lease check", fw)
		}
	}
}

// TestSlowWorkDelaysTheWriteAndIsRecorded: work between the check and the
// write delays the write by its length on the node's clock, and each such
// gap is recorded as a slow-work span from the check to the send; work the
// end of the run (or a crash) cuts short is recorded as far as it went.
func TestSlowWorkDelaysTheWriteAndIsRecorded(t *testing.T) {
	cfg := testConfig(1, 3*time.Second, leaseCandidate(0, time.Hour))
	cfg.Setup = func(w *World) { w.Node(0).SetApp(AppChecks, 250*time.Millisecond) }
	h := mustRun(t, cfg).History
	spans := 0
	for _, f := range h.Faults {
		if f.Kind != "slow-work" {
			continue
		}
		spans++
		if f.Node != 0 || f.To-f.From != 250*time.Millisecond && (f.To != 3*time.Second || f.To-f.From > 250*time.Millisecond) {
			t.Fatalf("span %+v; want 250ms on n0, or less ending at the end of the run", f)
		}
	}
	if spans == 0 || spans != len(h.Writes) && spans != len(h.Writes)+1 {
		t.Fatalf("%d slow-work spans for %d writes", spans, len(h.Writes))
	}
	for _, fw := range h.Writes {
		if fw.Sent-fw.CheckedAt != 250*time.Millisecond {
			t.Fatalf("write %+v sent %v after its check; want 250ms", fw, fw.Sent-fw.CheckedAt)
		}
	}
}

// landingInjector calls back at every request's landing.
type landingInjector struct{ at []time.Duration }

func (l *landingInjector) RequestFault(w *World, r Request) RequestFault {
	return RequestFault{Landing: func() { l.at = append(l.at, w.Now()) }}
}

// TestLandingIsCalledWhereS3AppliesTheRequest: a request fault's Landing
// runs at the instant S3 applies the request, once per request.
func TestLandingIsCalledWhereS3AppliesTheRequest(t *testing.T) {
	c := func(ctx context.Context, env Env) error {
		for range 3 {
			b, k := env.Bucket, env.Key
			_, _ = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &b, Key: &k})
		}
		return nil
	}
	l := &landingInjector{}
	cfg := testConfig(1, time.Second, c)
	cfg.Setup = func(w *World) { w.SetFaults(l) }
	res := mustRun(t, cfg)
	var applied []time.Duration
	for _, e := range res.Trace.Events {
		if e.Kind == EvS3Apply {
			applied = append(applied, e.At)
		}
	}
	if len(applied) != 3 || len(l.at) != 3 {
		t.Fatalf("%d landings for %d applies", len(l.at), len(applied))
	}
	for i := range applied {
		if l.at[i] != applied[i] {
			t.Fatalf("landing %d at %v, applied at %v", i, l.at[i], applied[i])
		}
	}
}

// stopAtLanding stops node 0 when its first PutObject reaches S3, and
// delays its GetObjects' answers by a second.
type stopAtLanding struct{ stopped bool }

func (s *stopAtLanding) RequestFault(w *World, r Request) RequestFault {
	if r.Op != "PutObject" {
		return RequestFault{ExtraResponse: time.Second}
	}
	if s.stopped {
		return RequestFault{}
	}
	s.stopped = true
	return RequestFault{Landing: w.Node(r.Node).Stop}
}

// TestStopAtLandingWakesAtOnce: a node stopped by a fault aimed at one of
// its requests' landing (Landing) notices at once: a call of the node
// waiting on a context derived from the node's returns at that instant,
// cancelled, as it does when a plan's event stops the node.
func TestStopAtLandingWakesAtOnce(t *testing.T) {
	returned := false
	c := func(ctx context.Context, env Env) error {
		b, k := env.Bucket, env.Key
		env.Clock.Go(func() {
			// Derived as a term's context and a request's timeout are.
			term, cancel := context.WithCancel(ctx)
			defer cancel()
			call, stop := env.Clock.WithTimeout(term, time.Minute)
			defer stop()
			_, err := env.Store.GetObject(call, &s3.GetObjectInput{Bucket: &b, Key: &k})
			returned = errors.Is(err, context.Canceled)
		})
		_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: &b, Key: &k, Body: strings.NewReader("x")})
		return nil
	}
	cfg := testConfig(1, 3*time.Second, c)
	cfg.S3Request = Latency{Min: 100 * time.Millisecond, Max: 100 * time.Millisecond}
	cfg.S3Response = cfg.S3Request
	cfg.Setup = func(w *World) { w.SetFaults(&stopAtLanding{}) }
	res := mustRun(t, cfg)
	var stop time.Duration = -1
	for _, e := range res.Trace.Events {
		if e.Kind == EvStop {
			stop = e.At
		}
	}
	abandoned := time.Duration(-1)
	for _, e := range res.Trace.Events {
		if e.Kind == EvS3Abandon {
			abandoned = e.At
		}
	}
	if stop != 100*time.Millisecond || !returned || abandoned != stop {
		t.Fatalf("stopped at %v; the waiting call returned cancelled: %v, abandoned at %v", stop, returned, abandoned)
	}
}

// TestAppPollsTermEndsAtItsLastActWhateverEndsIt: an application that
// polls and waits for a slow write acts no more while it waits; its term
// ends at that write's send, though the crash that ends it comes later,
// and so does the end of a run that ends while it waits.
func TestAppPollsTermEndsAtItsLastActWhateverEndsIt(t *testing.T) {
	for _, crash := range []bool{true, false} {
		cfg := testConfig(1, 4*time.Second, leaseCandidate(0, time.Hour))
		cfg.Setup = func(w *World) {
			n := w.Node(0)
			n.SetApp(AppPolls, 0)
			n.DelayWrite(2, 10*time.Second)
			if crash {
				w.At(3*time.Second, -1, n.Crash)
			}
		}
		h := mustRun(t, cfg).History
		if len(h.Writes) != 1 || len(h.Terms) != 1 { // the slow write lands after the end
			t.Fatalf("crash %v: %d writes, terms %+v", crash, len(h.Writes), h.Terms)
		}
		tm := h.Terms[0]
		if tm.End < cfg.WriteInterval || tm.End > cfg.WriteInterval+time.Millisecond || tm.Open == crash {
			t.Fatalf("crash %v: term %+v; want it to end at the second write's send, %v", crash, tm, cfg.WriteInterval)
		}
	}
}

// TestSlowWorkCutShortByACrashIsRecorded: work in progress when the node
// crashes counts from its check to the crash.
func TestSlowWorkCutShortByACrashIsRecorded(t *testing.T) {
	cfg := testConfig(1, 5*time.Second, leaseCandidate(0, time.Hour))
	cfg.Setup = func(w *World) {
		w.Node(0).SetApp(AppContext, 10*time.Second)
		w.At(2*time.Second, -1, w.Node(0).Crash)
	}
	h := mustRun(t, cfg).History
	for _, f := range h.Faults {
		if f.Kind == "slow-work" {
			if f.From != 0 || f.To != 2*time.Second {
				t.Fatalf("span %+v; want from the check at 0 to the crash at 2s", f)
			}
			return
		}
	}
	t.Fatal("no slow-work span")
}

// TestStartLeadEndsTheTermWhenStopped: a term started by callback (Env.StartLead)
// lasts from the call until its stop function is called.
func TestStartLeadEndsTheTermWhenStopped(t *testing.T) {
	cfg := testConfig(1, 10*time.Second, func(ctx context.Context, env Env) error {
		if err := env.Clock.Sleep(ctx, time.Second); err != nil {
			return err
		}
		stop := env.StartLead(ctx, 7)
		if err := env.Clock.Sleep(ctx, 2*time.Second); err != nil {
			return err
		}
		stop()
		return env.Clock.Sleep(ctx, time.Hour)
	})
	h := mustRun(t, cfg).History
	if len(h.Terms) != 1 || h.Terms[0].Open || h.Terms[0].Token != 7 ||
		h.Terms[0].Start != time.Second || h.Terms[0].End < 3*time.Second || h.Terms[0].End > 3*time.Second+cfg.WriteInterval {
		t.Fatalf("terms %+v; want one under token 7 from 1s, ended at its stop at 3s", h.Terms)
	}
}
