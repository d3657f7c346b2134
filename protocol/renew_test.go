package protocol_test

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// TestTightRenewalKeepsItsTerm: an elector whose RetryPeriod leaves less
// than a round trip before its RenewDeadline (here 324 ms of 393 ms, with
// round trips of up to 80 ms and a RequestTimeout of 196.5 ms) renews
// early enough that a renewal answered within RequestTimeout lands before
// the term ends: with no faults, the first leader keeps one term to the
// end of the run, every renewal sent a term length less RequestTimeout
// after the last one. (It used to renew a RetryPeriod after, and lost its
// term whenever a renewal took over 69 ms: a leader every few seconds,
// under a new token.)
func TestTightRenewalKeepsItsTerm(t *testing.T) {
	s := elector.DefaultSettings
	s.LeaseDuration, s.RenewDeadline, s.RetryPeriod, s.RequestTimeout = 1119*time.Millisecond, 393*time.Millisecond, 324*time.Millisecond, 196500*time.Microsecond
	s.ClockDriftPPM = 18
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := harness.World(seed)
		cfg.Duration = 30 * time.Second
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Protocol: elector.Protocol(s)}, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass || len(o.Result.History.Terms) != 1 || !o.Result.History.Terms[0].Open {
			t.Fatalf("seed %d: %v, %d terms; want one term, open at the end: %v", seed, o.Verdict, len(o.Result.History.Terms), o.Violations)
		}
		var sends []time.Duration
		for _, op := range o.Result.History.S3 {
			if op.Op == "PutObject" && op.Node == o.Result.History.Terms[0].Node {
				sends = append(sends, op.Call)
			}
		}
		for i := 2; i < len(sends); i++ {
			if gap := sends[i] - sends[i-1]; gap > 197*time.Millisecond || gap < 196*time.Millisecond {
				t.Fatalf("seed %d: renewal %d sent %v after the one before; want 196.5 ms (the term length less RequestTimeout)", seed, i, gap)
			}
		}
	}
}
