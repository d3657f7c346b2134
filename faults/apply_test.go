package faults

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/sim"
)

// poller reads the lock object forever, each read with a short timeout.
func poller(ctx context.Context, env sim.Env) error {
	for ctx.Err() == nil {
		rctx, cancel := env.Clock.WithTimeout(ctx, 200*time.Millisecond)
		_, _ = env.Store.GetObject(rctx, &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
		cancel()
		_ = env.Clock.Sleep(ctx, 100*time.Millisecond)
	}
	return nil
}

func runPlan(t *testing.T, p *Plan) *sim.Result {
	t.Helper()
	cfg := sim.Config{Seed: 3, Nodes: 2, Duration: 20 * time.Second, Candidate: poller, Bucket: "bkt", Key: "k",
		WriteInterval: time.Second, S3Request: sim.Latency{Min: time.Millisecond, Max: 9 * time.Millisecond},
		S3Response: sim.Latency{Min: time.Millisecond, Max: 9 * time.Millisecond}, KeepTrace: true}
	if err := Apply(p, &cfg); err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg)
	if err != nil || res.Failure != nil {
		t.Fatalf("%v %v", err, res.Failure)
	}
	return res
}

// TestKnobsActOnlyBeforeTheHeal: with every answer lost in the safety phase,
// every request before the heal is lost and none after it.
func TestKnobsActOnlyBeforeTheHeal(t *testing.T) {
	res := runPlan(t, &Plan{HealAt: Duration(10 * time.Second), S3: Knobs{LostPPM: 1_000_000}})
	before, after := 0, 0
	for _, e := range res.Trace.Events {
		if e.Kind != sim.EvS3Send {
			continue
		}
		lost := e.Fault == sim.FaultLost
		switch {
		case e.At < 10*time.Second && !lost, e.At >= 10*time.Second && lost:
			t.Fatalf("%v", e)
		case lost:
			before++
		default:
			after++
		}
	}
	if before < 20 || after < 20 {
		t.Fatalf("%d lost before the heal, %d delivered after", before, after)
	}
}

// TestPartitionCutsOneNode: a partitioned node's requests fail as
// connection errors during the window; the other node's go through.
func TestPartitionCutsOneNode(t *testing.T) {
	res := runPlan(t, &Plan{HealAt: Duration(10 * time.Second),
		Events: []Event{{Kind: Partition, Node: 1, At: Duration(2 * time.Second), For: Duration(3 * time.Second)}}})
	cut := 0
	for _, e := range res.Trace.Events {
		if e.Kind != sim.EvS3Send {
			continue
		}
		in := e.At >= 2*time.Second && e.At < 5*time.Second && e.Node == 1
		if in != (e.Fault == sim.FaultUnreachable) {
			t.Fatalf("partition misapplied: %v", e)
		}
		if in {
			cut++
		}
	}
	if cut < 10 {
		t.Fatalf("only %d requests cut", cut)
	}
}

// TestAimedFaultHitsTheNthRequest: an aimed lost answer hits exactly the
// planned request of the planned node.
func TestAimedFaultHitsTheNthRequest(t *testing.T) {
	res := runPlan(t, &Plan{HealAt: Duration(10 * time.Second),
		Events: []Event{{Kind: AnswerLost, Node: 0, Op: "GetObject", Nth: 7}}})
	nth := 0
	for _, e := range res.Trace.Events {
		if e.Kind != sim.EvS3Send || e.Node != 0 {
			continue
		}
		nth++
		if (nth == 7) != (e.Fault == sim.FaultLost) {
			t.Fatalf("request %d of n0: %v", nth, e)
		}
	}
}

// TestKindsNameTheirTraceFaults: a plan's kind of fault and the kind the
// trace and the history record it by have one name, by which the checkers
// match a fault span to the plan's kinds.
func TestKindsNameTheirTraceFaults(t *testing.T) {
	for _, c := range []struct {
		plan  string
		trace sim.FaultKind
	}{
		{string(Pause), sim.FaultPause}, {string(AnswerPause), sim.FaultAnswerPause}, {string(PauseBefore), sim.FaultPauseBeforeWrite},
		{string(ClockStall), sim.FaultClockStall}, {string(ClockJump), sim.FaultClockJump}, {string(Partition), sim.FaultPartition},
		{string(SlowS3), sim.FaultSlowS3}, {string(AnswerDelayed), sim.FaultAnswerDelayed}, {string(RequestDelayed), sim.FaultRequestDelayed},
		{KindInitial, sim.FaultInitial}, {string(DeleteLock), sim.FaultDeleteLock}, {string(Overwrite), sim.FaultOverwrite},
		{string(Restore), sim.FaultRestore}, {string(RestoreOwn), sim.FaultRestoreOwn}, {string(Linger), sim.FaultLinger},
		{string(WriteDelayed), sim.FaultWriteDelayed},
	} {
		if c.plan != c.trace.String() {
			t.Errorf("the plan's %q is recorded as %q", c.plan, c.trace)
		}
	}
}
