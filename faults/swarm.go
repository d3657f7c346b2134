package faults

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// SwarmSpace bounds what Swarm may choose for a run.
type SwarmSpace struct {
	// Nodes and HealAt describe the run; every fault ends before HealAt.
	Nodes  int
	HealAt time.Duration
	// DriftPPM is the drift a well-kept clock may show; Swarm sometimes
	// exceeds it. MaxPause is the pause a protocol tolerates; Swarm mostly
	// stays below it and sometimes goes beyond.
	DriftPPM int64
	MaxPause time.Duration
	// Lease is the protocol's lease, the scale of long faults (the longest
	// of the nodes', when they run different settings).
	Lease time.Duration
	// PauseBounds, if set, is each node's own pause bound (nodes that run
	// different settings); MaxPause is then the smallest.
	PauseBounds []time.Duration
	// Term is the protocol's longest term after a last successful write
	// (0: Lease): with Lease, how long the effects of a foreign write are
	// excused.
	Term time.Duration
	// Settings are the nodes' settings drawn for the run (SwarmSettings),
	// which the plan carries.
	Settings []Settings
}

// pauseBound is node's pause bound.
func (sp SwarmSpace) pauseBound(node int) time.Duration {
	if node >= 0 && node < len(sp.PauseBounds) {
		return sp.PauseBounds[node]
	}
	return sp.MaxPause
}

// Swarm derives a fault plan from a seed in the manner of swarm testing:
// each fault family is switched on or off, and if on given an intensity, by
// the seed, so that across seeds every combination of faults is tried, some
// gently and some hard. Most plans stay inside the usual assumptions (drift
// within DriftPPM, pauses within each node's bound, no stalls, no foreign
// writes); a minority leave them on purpose, and then on one node only
// (foreign writes aside, which hit the lock object): the faults that leave
// the assumptions excuse only what happens to that node, so most of every
// run is still judged in full.
//
// The package documentation, under "What the swarm draws", lists the
// families and how often a seed draws each.
func Swarm(seed uint64, sp SwarmSpace) *Plan {
	c := sim.NewRandomChooser(seed ^ 0x73776172_6d706c6e)
	g := gen{c: c, sp: sp}
	p := &Plan{HealAt: Duration(sp.HealAt), Settings: sp.Settings}
	on := func(oneIn uint64) bool { return c.Choose(sim.ChooseSetup, oneIn) == 0 }

	wild := -1 // the node whose clock drifts beyond the bound, if any
	if on(12) {
		wild = g.node()
	}
	// outside is the one node that faults beyond the assumptions hit: the
	// wild node if there is one, else one drawn from a stream of its own,
	// so that the rest of the plan is drawn as it always was.
	outside := wild
	if outside < 0 {
		outside = int(sim.NewRandomChooser(seed^0x6f757473_69646521).Choose(sim.ChooseSetup, uint64(sp.Nodes)))
	}
	for i := range sp.Nodes {
		cs := ClockSetting{Node: i, Offset: Duration(g.between(-5*time.Minute, 5*time.Minute))}
		if i == wild {
			cs.DriftPPM = g.int(min(2*sp.DriftPPM, 400_000), min(50*sp.DriftPPM, 500_000))
			if on(2) {
				cs.DriftPPM = -cs.DriftPPM
			}
			// Like every fault, the wild drift heals.
			cs.DriftUntil = Duration(sp.HealAt)
		} else {
			cs.DriftPPM = g.int(-sp.DriftPPM, sp.DriftPPM)
			if on(3) {
				// At the very edge of the bound, fast or slow: where a
				// margin that is a little short shows.
				cs.DriftPPM = sp.DriftPPM * []int64{-1, 1}[c.Choose(sim.ChooseSetup, 2)]
			}
		}
		p.Clocks = append(p.Clocks, cs)
	}
	if on(2) {
		for range g.count(3) {
			p.Events = append(p.Events, Event{Kind: ClockJump, At: g.at(0), Node: g.node(), By: Duration(g.between(-time.Hour, time.Hour))})
		}
	}
	if on(2) {
		long := on(6)
		for range g.count(5) {
			n := g.node()
			if long {
				n = outside
			}
			bound := max(sp.pauseBound(n), 0)
			d := g.between(min(10*time.Millisecond, bound), bound)
			if long {
				d = g.timed(bound, 3*sp.Lease)
			}
			if d <= 0 {
				continue // a node whose settings promise to survive no pause
			}
			p.Events = append(p.Events, Event{Kind: Pause, At: g.at(d), Node: n, For: Duration(d)})
		}
	}
	if on(3) {
		for range g.count(2) {
			down := g.between(100*time.Millisecond, 5*time.Second)
			at := g.at(down)
			n := g.node()
			id := ""
			if on(2) {
				id = fmt.Sprintf("n%d-r%d", n, len(p.Events))
			}
			kind := Crash
			if on(2) {
				kind = Stop
			}
			p.Events = append(p.Events, Event{Kind: kind, At: at, Node: n},
				Event{Kind: Restart, At: at + Duration(down), Node: n, Identity: id})
		}
	}
	if on(3) {
		for range g.count(2) {
			d := g.timed(time.Second, 2*sp.Lease)
			p.Events = append(p.Events, Event{Kind: Partition, At: g.at(d), Node: g.node(), For: Duration(d), Blackhole: on(2)})
		}
	}
	if on(3) {
		for range g.count(2) {
			d := g.timed(time.Second, 2*sp.Lease)
			p.Events = append(p.Events, Event{Kind: SlowS3, At: g.at(d), For: Duration(d), By: Duration(g.between(50*time.Millisecond, sp.Lease/2))})
		}
	}
	if on(3) {
		ops := []string{"PutObject", "GetObject"}
		kinds := []Kind{AnswerLost, AnswerFailed, Refused, AnswerDelayed, AnswerPause}
		late := on(2) // some aim at the run's first requests, some later
		for range g.count(4) {
			e := Event{Kind: kinds[c.Choose(sim.ChooseSetup, uint64(len(kinds)))], Node: g.node(),
				Op: ops[c.Choose(sim.ChooseSetup, 2)], Nth: int(g.int(1, 8))}
			if late {
				e.Nth = int(g.int(1, 50))
			}
			switch e.Kind {
			case AnswerFailed:
				e.Code = []string{"InternalError", "SlowDown"}[c.Choose(sim.ChooseSetup, 2)]
			case Refused:
				e.Code = []string{"InternalError", "SlowDown", "ConditionalRequestConflict"}[c.Choose(sim.ChooseSetup, 3)]
			case AnswerDelayed:
				e.By = Duration(g.between(100*time.Millisecond, 2*sp.Lease))
			case AnswerPause:
				e.For = Duration(g.between(0, max(sp.pauseBound(e.Node), 0)))
			}
			p.Events = append(p.Events, e)
		}
	}
	knob := func() int64 {
		if on(3) {
			return g.int(1_000, 100_000)
		}
		return 0
	}
	p.S3 = Knobs{ConflictOnOverlapPPM: knob(), ConflictPPM: knob(), InternalBeforePPM: knob(),
		SlowDownPPM: knob(), InternalAfterPPM: knob(), LostPPM: knob()}
	if on(2) {
		p.SDKAttempts = 3
	}
	if on(3) {
		p.S3.SlowPPM, p.S3.SlowMax = g.int(1_000, 50_000), Duration(g.between(100*time.Millisecond, sp.Lease))
	}
	// Rarely, leave the assumptions in ways other than drift and pauses.
	if on(20) {
		d := g.timed(sp.Lease, 3*sp.Lease)
		at := g.at(d)
		g.node()
		p.Events = append(p.Events, Event{Kind: ClockStall, At: at, Node: outside, For: Duration(d)})
	}
	if on(20) {
		for i := range sp.Nodes {
			e := Event{Kind: PauseBefore, Node: i, Nth: int(g.int(2, 20)), For: Duration(g.between(sp.Lease, 3*sp.Lease))}
			if i == outside {
				p.Events = append(p.Events, e)
			}
		}
	}
	if on(30) {
		p.Events = append(p.Events, Event{Kind: DeleteLock, At: g.at(0)})
	}
	if on(30) {
		at := g.at(0)
		g.node()
		p.Events = append(p.Events, Event{Kind: Linger, At: at, Node: outside, By: Duration(g.between(time.Second, sp.Lease))})
	}
	p.Initial = SwarmInitial(seed, sp)
	p.Apps = SwarmApps(seed, sp, outside)
	s := newStreams(seed, sp)
	p.Events = append(p.Events, s.foreign(p.Initial != nil)...)
	p.Events = append(p.Events, s.cluster()...)
	p.Events = append(p.Events, s.roles()...)
	p.Events = append(p.Events, s.denials()...)
	p.Events = append(p.Events, s.ends()...)
	p.ErrorPages = SwarmErrorPages(seed, sp)
	p.Events = append(p.Events, SwarmRestoreOwn(seed, sp)...)
	return p
}

// gen draws plan parameters.
type gen struct {
	c  sim.Chooser
	sp SwarmSpace
}

func (g gen) int(lo, hi int64) int64 {
	return lo + int64(g.c.Choose(sim.ChooseSetup, uint64(hi-lo+1)))
}

func (g gen) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(g.c.Choose(sim.ChooseSetup, uint64(hi-lo)))
}

func (g gen) count(most int64) int64 { return g.int(1, most) }

func (g gen) node() int { return int(g.c.Choose(sim.ChooseSetup, uint64(g.sp.Nodes))) }

// timed draws the length of a timed fault in [lo, hi], at most what fits
// between a second into the run and the heal.
func (g gen) timed(lo, hi time.Duration) time.Duration {
	most := g.sp.HealAt - time.Second - time.Millisecond
	return min(g.between(min(lo, most), min(hi, most)), most)
}

// at picks a start for a fault lasting d, so that it ends before the heal.
func (g gen) at(d time.Duration) Duration {
	last := g.sp.HealAt - d - time.Millisecond
	if last < time.Second {
		return Duration(time.Second)
	}
	return Duration(g.between(time.Second, last))
}
