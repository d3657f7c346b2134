package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestInitialRecordIsATerm: a protocol whose node 0 leads at once, with
// token 5, is judged against the record the lock object held before the
// run: a live record of token 7 is violated twice (a token not above it,
// a term begun inside its lease), a released one once (the token), a
// record of a higher lease only after the lease; a foreign body, or a
// record at the top of the token space (which no elector writes), is not
// judged.
func TestInitialRecordIsATerm(t *testing.T) {
	lead := func(ctx context.Context, env sim.Env) error {
		if env.Node == 0 {
			if env.Clock.Sleep(ctx, 2*time.Second) != nil {
				return nil
			}
			env.Lead(ctx, 5)
		}
		_ = env.Clock.Sleep(ctx, time.Hour)
		return nil
	}
	p := harness.Protocol{Name: "leads-at-once", Candidate: lead, EncodeRecord: faults.EncodeRecord,
		Assumptions: protocol.Assumptions{Lease: 3 * time.Second, MaxDriftPPM: 1000, MaxPause: time.Second}}
	for _, c := range []struct {
		initial *faults.Object
		rules   []string
	}{
		{&faults.Object{Record: &faults.Record{Holder: "gone", Token: 7}}, []string{harness.RuleInitialToken, harness.RuleInitialLease}},
		{&faults.Object{Record: &faults.Record{Holder: "gone", Token: 7, Released: true}}, []string{harness.RuleInitialToken}},
		{&faults.Object{Record: &faults.Record{Holder: "gone", Token: 3, Lease: faults.Duration(time.Second)}}, nil},
		{&faults.Object{Record: &faults.Record{Holder: "gone", Token: 3, Lease: faults.Duration(5 * time.Second)}, Spelling: 7}, []string{harness.RuleInitialLease}},
		{&faults.Object{Body: "no record"}, nil},
		{&faults.Object{Record: &faults.Record{Holder: "gone", Token: 1<<64 - 1}}, nil},
	} {
		cfg := harness.World(1)
		cfg.Nodes, cfg.Duration = 2, 10*time.Second
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: &faults.Plan{HealAt: faults.Duration(time.Second), Initial: c.initial}, Protocol: p}, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range o.Violations {
			if v.Checker == harness.InitialRecordCheck {
				got = append(got, v.Rule)
			}
		}
		if len(got) != len(c.rules) || len(got) > 0 && (got[0] != c.rules[0] || got[len(got)-1] != c.rules[len(c.rules)-1]) {
			t.Errorf("initial %+v: initial-record violations %v, want %v", c.initial, got, c.rules)
		}
	}
}
