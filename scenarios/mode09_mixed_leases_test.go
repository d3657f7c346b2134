package scenarios

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// TestMixedLeasesSettingsValid: every configuration of mixed-leases passes
// protocol.NewElector's validation.
func TestMixedLeasesSettingsValid(t *testing.T) {
	for _, s := range modeAMixedSettings {
		_, err := protocol.NewElector(protocol.Config{
			Store: (*s3.Client)(nil), Bucket: "b", Key: "k", Identity: "n",
			LeaseDuration: s.LeaseDuration, RenewDeadline: s.RenewDeadline, RetryPeriod: s.RetryPeriod,
			RequestTimeout: s.RequestTimeout, ClockDriftPPM: s.ClockDriftPPM, ReleaseOnCancel: s.ReleaseOnCancel,
			Callbacks: protocol.LeaderCallbacks{OnStartedLeading: func(context.Context, protocol.Lease) {}},
		})
		if err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestMixedLeases: leadership passed between nodes of different settings,
// both from a shorter lease to a longer one and back; whenever a leader
// crashed, its successor took over no sooner than the longer of the two
// leases after the crashed leader's last write was applied, so a
// short-lease follower waited out the long lease written in the record.
func TestMixedLeases(t *testing.T) {
	rs := runSeeds(t, MixedLeases, 40)
	lease := func(node int) time.Duration { return modeAMixedSettings[node%len(modeAMixedSettings)].LeaseDuration }
	shorter, longer, timed := 0, 0, 0
	for _, r := range rs {
		r.survives()
		crashes := r.events(sim.EvCrash, anyNode)
		terms := r.Result.History.Terms
		for i := 1; i < len(terms); i++ {
			prev, next := terms[i-1], terms[i]
			if prev.Node == next.Node || prev.Open {
				continue
			}
			switch {
			case lease(next.Node) < lease(prev.Node):
				shorter++
			case lease(next.Node) > lease(prev.Node):
				longer++
			}
			if !slices.ContainsFunc(crashes, func(c sim.Event) bool { return c.Node == prev.Node && c.At == prev.End }) {
				continue // released: taken at once
			}
			lastApplied, wait := r.lastApplied(prev.Node, prev.End), max(lease(prev.Node), lease(next.Node))
			if next.Start < lastApplied+wait {
				r.errorf("n%d (lease %v) took over from crashed n%d (lease %v) at %v, less than %v after its last write at %v",
					next.Node, lease(next.Node), prev.Node, lease(prev.Node), next.Start, wait, lastApplied)
			}
			if lease(next.Node) != lease(prev.Node) {
				timed++
			}
		}
	}
	if shorter == 0 || longer == 0 || timed == 0 {
		t.Errorf("handovers to a shorter lease %d, to a longer lease %d, after a crash between different leases %d; want all",
			shorter, longer, timed)
	}
	t.Logf("handovers to a shorter lease %d, to a longer %d; %d after a crash between different leases", shorter, longer, timed)
}
