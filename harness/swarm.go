package harness

import (
	"time"

	"github.com/s3lease/s3lease/faults"
)

// SwarmHealAt and SwarmDuration shape every swarm run: faults of the safety
// phase end at SwarmHealAt, and the run goes on to SwarmDuration so that
// liveness is judged.
const (
	SwarmHealAt   = 45 * time.Second
	SwarmDuration = 75 * time.Second
)

// Swarm is the swarm campaign for protocol p, as a scenario called name:
// every seed draws its own fault plan with faults.Swarm, switching each
// fault family on or off and choosing how hard it hits, sized by p's
// assumptions (its lease, drift bound and pause bound), then heals
// everything at SwarmHealAt and expects a stable leader soon after. Runs
// inside p's assumptions must show no overlap; runs outside them must
// still have every stale write refused.
func Swarm(name string, p Protocol) Scenario {
	return Scenario{
		Name:   name,
		Doc:    "5 nodes, 75 s; each seed turns fault families on or off and sets how hard (clocks, pauses, crashes, partitions, slow S3, 409/5xx/lost answers, SDK retries, rare stalls and foreign writes); faults heal at 45 s",
		Expect: Either,
		Build: func(seed uint64) Setup {
			cfg := World(seed)
			cfg.Duration = SwarmDuration
			a := p.Assumptions
			plan := faults.Swarm(seed, faults.SwarmSpace{
				Nodes: cfg.Nodes, HealAt: SwarmHealAt,
				DriftPPM: a.MaxDriftPPM, MaxPause: a.MaxPause, Lease: a.Lease,
			})
			return Setup{Config: cfg, Plan: plan, Protocol: p}
		},
	}
}
