package harness_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestProtocolWorld: a protocol's Key is where its runs keep the lock
// object (Env.Key, and the plan's record before the run is there), and
// its S3ClientTimeout is its nodes' client timeout.
func TestProtocolWorld(t *testing.T) {
	var key string
	var callErr error
	p := harness.Protocol{
		Name: "world-test", Key: "locks/orders.json", S3ClientTimeout: time.Nanosecond,
		Assumptions: protocol.Assumptions{Lease: time.Second},
		Candidate: func(ctx context.Context, env sim.Env) error {
			if env.Node != 0 {
				return nil
			}
			key = env.Key
			_, callErr = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &env.Bucket, Key: &env.Key})
			return nil
		},
	}
	plan := &faults.Plan{HealAt: faults.Duration(time.Second), Initial: &faults.Object{Body: "not a record"}}
	var w *sim.World
	cfg := harness.World(1)
	cfg.Nodes, cfg.Duration = 1, 2*time.Second
	cfg.Setup = func(world *sim.World) { w = world }
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: p}, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Failure != nil {
		t.Fatal(o.Result.Failure)
	}
	if key != p.Key {
		t.Errorf("the candidate's Env.Key is %q, want the protocol's %q", key, p.Key)
	}
	if b, _, ok := w.Store().Object(cfg.Bucket, p.Key); !ok || string(b) != plan.Initial.Body {
		t.Errorf("the plan's lock object is not at the protocol's key: %q, %v", b, ok)
	}
	if _, _, ok := w.Store().Object(cfg.Bucket, cfg.Key); ok {
		t.Errorf("the world's own key %q holds an object too", cfg.Key)
	}
	if callErr == nil || !strings.Contains(callErr.Error(), "Client.Timeout") {
		t.Errorf("a GetObject under a 1ns client timeout returned %v, want the SDK's client timeout", callErr)
	}
}

// TestProtocolWithout: families a protocol leaves out draw nothing in its
// swarm, and every other family draws what it would anyway.
func TestProtocolWithout(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	q := p
	q.Without = []string{"pages", "initial"}
	for seed := uint64(1); seed <= 200; seed++ {
		full := harness.DrawRun(faults.NewSource(seed), seed, p)
		less := harness.DrawRun(faults.NewSource(seed), seed, q)
		if less.Plan.ErrorPages != "" || less.Plan.Initial != nil {
			t.Fatalf("seed %d: drawn without pages and initial, the plan has pages %q, initial %+v", seed, less.Plan.ErrorPages, less.Plan.Initial)
		}
		want := *full.Plan
		want.ErrorPages, want.Initial = "", nil
		if less.Nodes != full.Nodes || less.Duration != full.Duration || !reflect.DeepEqual(*less.Plan, want) {
			t.Fatalf("seed %d: leaving two families out moved the others' draws:\n%+v\n%+v", seed, *less.Plan, want)
		}
	}
}

// TestValidateWorld: Validate refuses a family the generator does not
// have, naming those it has, and a negative client timeout.
func TestValidateWorld(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	p.Without = []string{"pages", "proxy"}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), `"proxy"`) || !strings.Contains(err.Error(), strings.Join(faults.Families(), ", ")) {
		t.Errorf("Validate with an unknown family: %v; want the name and the families", err)
	}
	p.Without = faults.Families()
	if err := p.Validate(); err != nil {
		t.Errorf("Validate leaving every family out: %v", err)
	}
	p.S3ClientTimeout = -time.Second
	if err := p.Validate(); err == nil {
		t.Error("Validate accepted a negative client timeout")
	}
}
