package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// waitsOnBareChannel is a user's protocol with a classic mistake for code
// under simulation: once it has read the lock object it waits for its
// context on the channel itself, which only the simulator's own wait can
// observe.
func waitsOnBareChannel(ctx context.Context, env sim.Env) error {
	_, _ = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &env.Bucket, Key: &env.Key})
	<-ctx.Done()
	return nil
}

// TestBlockedProtocolIsReported: a protocol that blocks on a bare channel
// is judged Blocked, with exit status 6 and the stuck goroutine's stack
// naming the protocol's own function, within a few seconds of real time
// instead of hanging; the test's own guard fails it after 20 s rather
// than let it hang.
func TestBlockedProtocolIsReported(t *testing.T) {
	p := harness.Protocol{Name: "blocks", Candidate: waitsOnBareChannel,
		Assumptions: protocol.Assumptions{Lease: 6 * time.Second, MaxDriftPPM: 1000, MaxPause: time.Second}}
	cfg := harness.World(1)
	cfg.Nodes = 2
	done := make(chan *harness.Outcome, 1)
	start := time.Now()
	go func() {
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: &faults.Plan{HealAt: faults.Duration(10 * time.Second)}, Protocol: p}, false)
		if err != nil {
			t.Error(err)
		}
		done <- o
	}()
	var o *harness.Outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a protocol blocked on a bare channel hangs the harness")
	}
	took := time.Since(start)
	t.Logf("reported in %v", took.Round(time.Millisecond))
	if o == nil {
		t.Fatal("no outcome")
	}
	if o.Verdict != harness.Blocked || o.Verdict.ExitCode() != 6 {
		t.Fatalf("verdict %s (exit %d), want blocked (exit 6)", o.Verdict, o.Verdict.ExitCode())
	}
	f := o.Result.Failure
	if f == nil || f.Kind != sim.FailureBlocked || !strings.Contains(f.Stack, "waitsOnBareChannel") {
		t.Fatalf("failure %+v; want a blocked failure with a stack naming waitsOnBareChannel", f)
	}
	if took > 10*time.Second {
		t.Errorf("reported after %v; want under 10 s", took)
	}
	if sig := harness.SignatureOf(o); sig.String() != "blocked: blocked" {
		t.Errorf("signature %s", sig)
	}
}
