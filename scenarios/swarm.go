package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
)

// Swarm is the default campaign: every seed draws its own fault plan with
// faults.Swarm, switching each fault family on or off and choosing how hard
// it hits, then heals everything at 45 s and expects a stable leader soon
// after. Runs that stay inside the elector's assumptions must show no
// overlap; runs that leave them must still have every stale write refused.
var Swarm = register(Scenario{
	Name:   "swarm",
	Doc:    "5 nodes, 75 s; each seed turns fault families on or off and sets how hard (clocks, pauses, crashes, partitions, slow S3, 409/5xx/lost answers, SDK retries, rare stalls and foreign writes); faults heal at 45 s",
	Expect: Either,
	Build: func(seed uint64) Setup {
		s := DefaultElectorSettings
		p := Elector(s)
		cfg := baseConfig(seed, p)
		cfg.Duration = 75 * time.Second
		plan := faults.Swarm(seed, faults.SwarmSpace{
			Nodes: cfg.Nodes, HealAt: 45 * time.Second,
			DriftPPM: s.ClockDriftPPM, MaxPause: p.Assumptions.MaxPause, Lease: s.LeaseDuration,
		})
		return Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
