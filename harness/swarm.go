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
// every seed draws its own run with the one generator (faults.Draw;
// package faults' documentation, "What the generator draws", lists the
// families), from its own stream of choices: the plan of a run of five
// nodes (World), sized by p's stated bounds (SwarmSpace). For a protocol that takes settings (Protocol.Configure)
// each node's settings are drawn too, and the faults are then sized by
// the bounds of that mix (its longest lease, its smallest drift bound,
// each node's own pause bound). Everything heals at SwarmHealAt, and a
// stable leader is expected soon after. Runs inside the assumptions must
// show no overlap; runs outside them must still have every stale write
// refused. The Setup's protocol is p itself: RunSetup applies the plan's
// settings (Configured), so that a reproducer file of a swarm seed, or a
// shrunk one, runs the settings its plan holds. Check and Fuzz draw their
// runs through the same scenario (DrawRun).
func Swarm(name string, p Protocol) Scenario {
	return Drawn(Scenario{
		Name:   name,
		Doc:    "5 nodes, 75 s or more; each seed turns fault families on or off and sets how hard (clocks, pauses, crashes, partitions, slow S3, 409/5xx/lost answers, SDK retries, rare stalls and foreign writes), and draws the nodes' settings, the lock object before the run, the applications, whole-cluster events and faults aimed at the leader, the acquirer, a request in flight or a renewal about to land; faults heal at 45 s",
		Expect: Either,
		Draw: func(seed uint64, src *faults.Source) Setup {
			cfg := World(seed)
			plan := faults.Draw(src, SwarmSpace(cfg.Nodes, p))
			pc, err := Configured(p, plan, cfg.Nodes)
			if err != nil {
				pc = p // no settings drawn for a protocol that takes none
			}
			cfg.Duration = max(SwarmDuration, SwarmHealAt+pc.LivenessBound+SwarmSlack)
			return Setup{Config: cfg, Plan: plan, Protocol: p}
		},
	})
}

// SwarmSpace is the space the swarm draws plans of protocol p in: nodes
// nodes, every fault healed at SwarmHealAt, sized by what p states
// (its assumptions, each node's pause bound, its longest identity),
// without the families p leaves out (Protocol.Without), and,
// for a protocol that takes settings, by what p states with the settings
// drawn (Configured; settings p refuses are not drawn).
func SwarmSpace(nodes int, p Protocol) faults.Space {
	sp := faults.Space{Nodes: nodes, HealAt: SwarmHealAt, Bounds: boundsOf(p, nodes), Without: p.Without}
	if p.Configure != nil {
		sp.Configure = func(settings []faults.Settings, n int) (faults.Bounds, bool) {
			q, err := Configured(p, &faults.Plan{Settings: settings}, n)
			return boundsOf(q, n), err == nil
		}
	}
	return sp
}

// boundsOf is what protocol p states of the world, for nodes nodes.
func boundsOf(p Protocol, nodes int) faults.Bounds {
	b := faults.Bounds{Assumptions: p.Assumptions, MaxIdentityLen: p.MaxIdentityLen}
	if len(p.Nodes) > 0 {
		b.PauseBounds = make([]time.Duration, nodes)
		for i := range b.PauseBounds {
			b.PauseBounds[i] = p.PauseBound(i)
		}
	}
	return b
}

// SwarmPlan is the plan of a swarm seed for nodes nodes of protocol p
// (see Swarm).
func SwarmPlan(seed uint64, nodes int, p Protocol) *faults.Plan {
	return faults.Draw(faults.NewSource(seed), SwarmSpace(nodes, p))
}
