package protocol_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// slowestWorld is the reference world (harness.World) with every S3
// request and answer as slow as it ever draws them, and its round trip.
func slowestWorld(seed uint64, nodes int, d time.Duration) (sim.Config, time.Duration) {
	w := harness.World(seed)
	w.Nodes, w.Duration = nodes, d
	w.S3Request.Min, w.S3Response.Min = w.S3Request.Max, w.S3Response.Max
	// The application writes to the fenced resource as often in a run of
	// days as in a minute.
	w.WriteInterval = max(w.WriteInterval, d/120)
	return w, w.S3Request.Max + w.S3Response.Max
}

// keepsItsTerm runs nodes electors with settings s in the slowest world,
// with no fault, their clocks drifting by drift ppm (inside the settings'
// bound), and reports what is wrong if the run does not pass or the first
// leader does not keep its term to the end.
func keepsItsTerm(s elector.Settings, seed uint64, drift []int64, d time.Duration) error {
	w, _ := slowestWorld(seed, len(drift), d)
	plan := &faults.Plan{}
	for i, ppm := range drift {
		plan.Clocks = append(plan.Clocks, faults.ClockSetting{Node: i, DriftPPM: ppm})
	}
	o, err := harness.RunSetup(harness.Setup{Config: w, Plan: plan, Protocol: elector.Protocol(s)}, false)
	if err != nil {
		return err
	}
	h := o.Result.History
	if o.Verdict != harness.Pass || len(h.Terms) != 1 || !h.Terms[0].Open {
		return fmt.Errorf("verdict %v %v; %d terms, the first %+v; want one term, open at the end of the run", o.Verdict, o.Violations, len(h.Terms), h.Terms)
	}
	return nil
}

// The settings of swarm seed 123000174883's node 4: a RetryPeriod of 300 ms
// against a RenewDeadline of 367 ms left each renewal 67 ms, less than a
// slow round trip, and the leader lost its term again and again with no
// fault. It renews RequestTimeout (159 ms) before the deadline instead, and
// keeps its term in the slowest world.
func TestTightSettingsKeepTheirTerm(t *testing.T) {
	s := elector.Settings{LeaseDuration: 1011 * time.Millisecond, RenewDeadline: 367 * time.Millisecond,
		RetryPeriod: 300 * time.Millisecond, RequestTimeout: 159 * time.Millisecond, ClockDriftPPM: 1117}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := s.Config(sim.Env{}).RenewInterval(); got != 208*time.Millisecond {
		t.Errorf("RenewInterval %v; want RenewDeadline - RequestTimeout, 208ms", got)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if err := keepsItsTerm(s, seed, []int64{1117, -1117, 0}, time.Minute); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
}

// acceptedSettings draws settings protocol.NewElector accepts, across its
// whole range up to a lease of maxLease (leases from a fifth of a second to
// maxLease, at most MaxLeaseDuration; drift
// bounds up to MaxClockDriftPPM, a renew deadline up to its drift-margin
// limit, any retry period it takes), whose RequestTimeout (drawn, or the
// default RetryPeriod) lets S3 answer within it in the slowest world on
// the fastest clock the settings allow: the liveness assumption.
func acceptedSettings(t *rapid.T, roundTrip, maxLease time.Duration) elector.Settings {
	ms := func(lo, hi time.Duration) *rapid.Generator[int64] {
		return rapid.Int64Range(int64(min(lo, maxLease)), int64(min(hi, maxLease)))
	}
	lease := time.Duration(rapid.OneOf(ms(200*time.Millisecond, 2*time.Second), ms(2*time.Second, time.Minute), ms(time.Minute, maxLease)).Draw(t, "lease"))
	ppm := rapid.OneOf(rapid.Int64Range(0, 5_000), rapid.Int64Range(0, protocol.MaxClockDriftPPM)).Draw(t, "ppm")
	bound := ppm
	if bound == 0 {
		bound = protocol.DefaultClockDriftPPM
	}
	// The longest an answer takes on the node's clock, at the fastest rate.
	slowest := roundTrip + roundTrip*time.Duration(bound)/1_000_000 + time.Microsecond
	limit := lease - protocol.DriftMargin(lease, bound)
	if limit < 2*slowest {
		t.Skip("no renew deadline leaves room for a request timeout above the round trip")
	}
	renew := time.Duration(rapid.OneOf(rapid.Int64Range(int64(2*slowest), int64(limit)), rapid.Just(int64(limit))).Draw(t, "renew"))
	retry := time.Duration(rapid.OneOf(rapid.Int64Range(1, (5*int64(renew)-1)/6), rapid.Int64Range((4*int64(renew))/6, (5*int64(renew)-1)/6)).Draw(t, "retry"))
	var timeout time.Duration
	if retry < slowest || retry > renew/2 || rapid.Bool().Draw(t, "explicit timeout") {
		timeout = time.Duration(rapid.OneOf(rapid.Int64Range(int64(slowest), int64(renew/2)), rapid.Just(int64(renew/2))).Draw(t, "timeout"))
	}
	s := elector.Settings{LeaseDuration: lease, RenewDeadline: renew, RetryPeriod: retry, RequestTimeout: timeout,
		ClockDriftPPM: ppm, ReleaseOnCancel: rapid.Bool().Draw(t, "release")}
	if err := s.Validate(); err != nil {
		t.Fatalf("drew settings NewElector refuses: %v", err)
	}
	return s
}

// TestAcceptedSettingsKeepTheirTerm: with any settings NewElector accepts
// whose RequestTimeout the slowest S3 answers within, three electors in
// the slowest world the simulator draws (every request and answer at its
// longest), with no fault and their clocks at the edges of the settings'
// drift bound, elect one leader, and it keeps its term for the whole run:
// a minute, or a dozen renewals if those take longer.
func TestAcceptedSettingsKeepTheirTerm(t *testing.T) {
	_, roundTrip := slowestWorld(1, 1, time.Minute)
	rapid.Check(t, func(t *rapid.T) {
		s := acceptedSettings(t, roundTrip, protocol.MaxLeaseDuration)
		bound := s.Assumptions().MaxDriftPPM
		drift := []int64{bound, -bound, rapid.Int64Range(-bound, bound).Draw(t, "third clock's drift")}
		d := max(12*s.Config(sim.Env{}).RenewInterval(), time.Minute)
		if err := keepsItsTerm(s, rapid.Uint64().Draw(t, "seed"), drift, d); err != nil {
			t.Fatalf("settings %+v (renew interval %v): %v", s, s.Config(sim.Env{}).RenewInterval(), err)
		}
	})
}
