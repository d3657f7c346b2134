package elector

import (
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// Vary draws the production elector's settings (DrawSettings): a
// harness.Vary, for harness.DrawRun and harness.WithVary.
func Vary(src harness.Source) (harness.Protocol, any) {
	s := DrawSettings(src)
	return Protocol(s), s
}

// DrawSettings draws elector settings that protocol.NewElector accepts:
// a lease of 2 to 20 s; a drift bound of 1 to 5000 ppm; a renew deadline
// between a third of the lease and the lease less the drift margin; a retry
// period whose 1.2 times fits in the renew deadline; a request timeout of
// at most half the renew deadline.
func DrawSettings(src harness.Source) Settings {
	lease := src.Int(2_000, 20_000, "lease ms")
	ppm := src.Int(1, 5_000, "drift bound ppm")
	// protocol.DriftMargin, rounded up to a millisecond.
	marginMs := int64((protocol.DriftMargin(ms(lease), ppm) + time.Millisecond - 1) / time.Millisecond)
	renew := src.Int(lease/3, lease-marginMs, "renew deadline ms")
	retry := src.Int(100, renew*5/6-1, "retry period ms")
	timeout := src.Int(100, renew/2, "request timeout ms")
	return Settings{
		LeaseDuration:   ms(lease),
		RenewDeadline:   ms(renew),
		RetryPeriod:     ms(retry),
		RequestTimeout:  ms(timeout),
		ClockDriftPPM:   ppm,
		ReleaseOnCancel: src.Bool("release on cancel"),
	}
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
