package scenarios

import (
	"context"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is an election protocol as the harness runs it: the candidate
// every node runs, the assumptions under which it promises that two leaders
// never overlap in true time, and the bound within which it promises a
// leader once faults heal.
type Protocol struct {
	Name          string
	Candidate     sim.Candidate
	Assumptions   faults.Assumptions
	LivenessBound time.Duration
	_             struct{}
}

// Elector is the production elector with settings s, with the assumptions
// its package documentation states.
func Elector(s ElectorSettings) Protocol {
	return Protocol{
		Name:          "elector",
		Candidate:     ProductionElector(s),
		Assumptions:   s.Assumptions(),
		LivenessBound: s.LivenessBound(),
	}
}

// Assumptions are the elector's: clock rates within ClockDriftPPM, no
// stalled monotonic clocks, no foreign writes of the lock object,
// applications that stop when their context ends, and pauses no longer than
// the slack between the end of a leader's term (RenewDeadline after its
// last write was sent, on its own clock) and the earliest instant a follower
// can take over (a full lease after it first saw that write, on its own
// clock), less what drift can eat of it.
func (s ElectorSettings) Assumptions() faults.Assumptions {
	drift := s.LeaseDuration * time.Duration(4*s.ClockDriftPPM) / 1_000_000
	return faults.Assumptions{
		MaxDriftPPM: s.ClockDriftPPM,
		MaxPause:    s.LeaseDuration - s.RenewDeadline - drift,
	}
}

// LivenessBound is how long after faults heal a leader must be in place: a
// follower must read the abandoned record (a retry period with jitter and a
// request), wait a full lease, and write (another request), with a retry
// period to spare for a conflict.
func (s ElectorSettings) LivenessBound() time.Duration {
	return s.LeaseDuration + 3*s.RetryPeriod + 3*s.RequestTimeout
}

// ElectorNodes is the production elector with different settings per node:
// node i runs settings[i%len(settings)]. Its assumptions are the strictest
// of the settings', its liveness bound the loosest.
func ElectorNodes(settings ...ElectorSettings) Protocol {
	p := Elector(settings[0])
	p.Candidate = func(ctx context.Context, env sim.Env) error {
		return ProductionElector(settings[env.Node%len(settings)])(ctx, env)
	}
	for _, s := range settings[1:] {
		a := s.Assumptions()
		p.Assumptions.MaxDriftPPM = min(p.Assumptions.MaxDriftPPM, a.MaxDriftPPM)
		p.Assumptions.MaxPause = min(p.Assumptions.MaxPause, a.MaxPause)
		p.LivenessBound = max(p.LivenessBound, s.LivenessBound())
	}
	return p
}
