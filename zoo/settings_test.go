package zoo

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/protocol"
	"pgregory.net/rapid"
)

// TestConfiguredMargins: the careful lock takes every setting
// protocol.NewElector accepts, over leases up to protocol.MaxLeaseDuration
// and drift bounds up to protocol.MaxClockDriftPPM, and then runs the
// elector's term: the renew deadline, at least the drift margin (there at
// every accepted drift bound, 0 meaning 1000 ppm) short of the lease, with
// the pause bound protocol.PauseBound documents (negative only where the
// renew deadline is within four times the drift of the lease).
func TestConfiguredMargins(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lease := time.Duration(rapid.OneOf(rapid.Int64Range(3, int64(protocol.MaxLeaseDuration)),
			rapid.Int64Range(int64(time.Second), int64(time.Minute)), rapid.Just(int64(protocol.MaxLeaseDuration))).Draw(t, "lease"))
		ppm := rapid.OneOf(rapid.Int64Range(0, protocol.MaxClockDriftPPM), rapid.Just[int64](protocol.MaxClockDriftPPM)).Draw(t, "ppm")
		assumed := ppm
		if ppm == 0 {
			assumed = protocol.DefaultClockDriftPPM
		}
		margin := protocol.DriftMargin(lease, assumed)
		if lease-margin < 2 {
			t.Skip("lease too short for its drift margin")
		}
		renew := time.Duration(rapid.OneOf(rapid.Int64Range(2, int64(lease-margin)), rapid.Just(int64(lease-margin))).Draw(t, "renew deadline"))
		retry := time.Duration(rapid.Int64Range(1, (5*int64(renew)-1)/6).Draw(t, "retry"))
		timeout := time.Duration(rapid.Int64Range(1, int64(renew/2)).Draw(t, "request timeout"))
		p, err := Careful().configure(faults.Settings{Lease: faults.Duration(lease), RenewDeadline: faults.Duration(renew),
			RetryPeriod: faults.Duration(retry), RequestTimeout: faults.Duration(timeout), DriftPPM: ppm})
		if err != nil {
			t.Fatalf("refused settings the elector accepts: %v", err)
		}
		a := p.Assumptions
		if a.Lease != lease || a.MaxDriftPPM != assumed || a.Term != renew || margin <= 0 || lease-a.Term < margin ||
			a.MaxPause != protocol.PauseBound(lease, renew, assumed) {
			t.Fatalf("assumptions %+v (margin %v)", a, margin)
		}
	})
}
