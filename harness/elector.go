package scenarios

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// ElectorSettings are the production elector's knobs that a scenario sets.
type ElectorSettings struct {
	LeaseDuration, RenewDeadline, RetryPeriod, RequestTimeout time.Duration
	ClockDriftPPM                                             int64
	ReleaseOnCancel                                           bool
}

// DefaultElectorSettings are the settings of the reference scenario: a
// lease short enough that a minute of simulated time sees several terms.
var DefaultElectorSettings = ElectorSettings{
	LeaseDuration:   6 * time.Second,
	RenewDeadline:   4 * time.Second,
	RetryPeriod:     1 * time.Second,
	RequestTimeout:  1500 * time.Millisecond,
	ClockDriftPPM:   1000,
	ReleaseOnCancel: true,
}

// ProductionElector is the candidate that runs protocol.Elector, the code
// users ship, with the node's simulated clock, S3 client and entropy. The
// application it leads is the simulator's (Env.Lead).
func ProductionElector(s ElectorSettings) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		e, err := protocol.NewElector(protocol.Config{
			Store:           env.Store,
			Clock:           env.Clock,
			Entropy:         env.Entropy,
			Bucket:          env.Bucket,
			Key:             env.Key,
			Identity:        env.Identity,
			LeaseDuration:   s.LeaseDuration,
			RenewDeadline:   s.RenewDeadline,
			RetryPeriod:     s.RetryPeriod,
			RequestTimeout:  s.RequestTimeout,
			ClockDriftPPM:   s.ClockDriftPPM,
			ReleaseOnCancel: s.ReleaseOnCancel,
			Callbacks: protocol.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context, lease protocol.Lease) {
					env.Lead(ctx, lease.Token)
				},
			},
		})
		if err != nil {
			return err
		}
		return e.Run(ctx)
	}
}
