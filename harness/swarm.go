package harness

import (
	"time"

	"github.com/s3lease/s3lease/faults"
)

// SwarmHealAt and SwarmDuration shape every swarm run: faults of the safety
// phase end at SwarmHealAt, and the run goes on to SwarmDuration, or longer
// when the settings drawn for the run promise a leader only later
// (SwarmHealAt, the liveness bound and SwarmSlack), so that liveness is
// judged.
const (
	SwarmHealAt   = 45 * time.Second
	SwarmDuration = 75 * time.Second
	SwarmSlack    = 10 * time.Second
)

// Swarm is the swarm campaign for protocol p, as a scenario called name:
// every seed draws its own plan (faults.Swarm; package faults'
// documentation, "What the swarm draws", lists the families). For a
// protocol that takes settings (Protocol.Configure) each node's settings
// are drawn too, and the faults are then sized by the assumptions of that
// mix (its longest lease, its smallest drift bound, each node's own pause
// bound). Everything heals at SwarmHealAt, and a stable leader is
// expected soon after. Runs inside the assumptions must show no overlap;
// runs outside them must still have every stale write refused. The
// Setup's protocol is p itself: RunSetup applies the plan's settings
// (Configured), so that a reproducer file of a swarm seed, or a shrunk
// one, runs the settings its plan holds.
func Swarm(name string, p Protocol) Scenario {
	return Scenario{
		Name:   name,
		Doc:    "5 nodes, 75 s or more; each seed turns fault families on or off and sets how hard (clocks, pauses, crashes, partitions, slow S3, 409/5xx/lost answers, SDK retries, rare stalls and foreign writes), and draws the nodes' settings, the lock object before the run, the applications, whole-cluster events and faults aimed at the leader, the acquirer, a request in flight or a renewal about to land; faults heal at 45 s",
		Expect: Either,
		Build: func(seed uint64) Setup {
			cfg := World(seed)
			plan := SwarmPlan(seed, cfg.Nodes, p)
			pc, err := Configured(p, plan, cfg.Nodes)
			if err != nil {
				pc = p // no settings drawn for a protocol that takes none
			}
			cfg.Duration = max(SwarmDuration, SwarmHealAt+pc.LivenessBound+SwarmSlack)
			return Setup{Config: cfg, Plan: plan, Protocol: p}
		},
	}
}

// SwarmPlan is the plan of a swarm seed for nodes nodes of protocol p (see
// Swarm).
func SwarmPlan(seed uint64, nodes int, p Protocol) *faults.Plan {
	var settings []faults.Settings
	pc := p
	if p.Configure != nil {
		settings = faults.SwarmSettings(seed, nodes)
		if q, err := Configured(p, &faults.Plan{Settings: settings}, nodes); err == nil {
			pc = q
		} else {
			settings = nil // a draw the protocol refuses: run it as given
		}
	}
	a := pc.Assumptions
	var bounds []time.Duration
	if len(pc.Nodes) > 0 {
		bounds = make([]time.Duration, nodes)
		for i := range bounds {
			bounds[i] = pc.PauseBound(i)
		}
	}
	plan := faults.Swarm(seed, faults.SwarmSpace{
		Nodes: nodes, HealAt: SwarmHealAt,
		DriftPPM: a.MaxDriftPPM, MaxPause: a.MaxPause, Lease: a.Lease, Term: a.Term,
		PauseBounds: bounds, Settings: settings,
	})
	plan.Names = faults.SwarmNames(seed, nodes, pc.MaxIdentityLen)
	faults.FitNames(plan, pc.MaxIdentityLen)
	return plan
}
