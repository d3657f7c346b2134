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
// Besides the timed and aimed faults of the first families (clocks,
// jumps, pauses, crashes and stops, partitions, slow S3, faults aimed at
// the Nth request, knobs, the SDK's retries, rare stalls, lingering
// applications, pauses before fenced writes), each from its own stream of
// the seed so that one family's draws do not move another's:
//
//   - the nodes' settings (SwarmSpace.Settings, drawn by SwarmSettings);
//   - the lock object before the run (SwarmInitial): none, a released
//     record, the live record of a node that is gone, a record with a
//     token of 2^40 or at the very top of the token space, bytes that are
//     no record; records that publish a watermark and updates, that link
//     to a previous term, whose holder is the longest an elector has; and
//     on seeds with foreign writes records that link in a way no elector
//     writes, whose holder is longer than an elector's identity may be,
//     or padded to just under or just over the largest body read as a
//     record;
//   - the applications (SwarmApps): ignoring the lease check, asking it
//     before every write, relying on it alone; slow work between the
//     check and the write, within the pause bound and, on one node,
//     beyond it;
//   - foreign writes: deletes, overwrites with raw bytes or with records
//     of a lower, higher or topmost token or released, and restores of an
//     earlier content byte for byte, at an instant, while a node leads,
//     or just before a leader's renewal lands;
//   - whole-cluster events: every node crashed, stopped or restarted at
//     once, with the same or new identities, at an instant, while a node
//     leads, or while one acquires (in the middle of a hand-over);
//   - S3 refusing nodes with 403 AccessDenied (denials): a node, the
//     leader or every follower shut out for a while, one request refused,
//     a hand-over whose release and the read that checks it are refused;
//   - terms that end for a reason of their own while their node is stopped
//     (ends): the first leader paused from the start of its term, or from
//     a renewal's answer, past its deadline and stopped during the pause;
//     a foreign write just before a renewal lands, and the leader stopped
//     while its application is still at work;
//   - faults aimed at roles, resolved when they fire: the leader, the
//     node that acquires, a node with a request in flight, the leader
//     whose renewal is about to land; pauses, crashes, stops and
//     partitions of that node, a partition of every follower, a fault on
//     that request's answer or a delay on its way to S3, and pauses at
//     protocol instants: between an answer and acting on it, between the
//     lease check and the guarded write;
//   - a proxy between the nodes and S3 that answers every error with a
//     page of its own (SwarmErrorPages): the nodes see the status, and
//     the code the SDK derives from it (plain pages) or none (HTML it
//     cannot read), not S3's.
//
// Faults of the last three families often share one of two instants drawn
// for the run, so that faults that only matter together (a delete while
// the followers cannot reach S3, a stopped leader whose release is slow to
// land) meet on a fair share of seeds.
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
