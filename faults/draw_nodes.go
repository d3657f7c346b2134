package faults

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// appModes are the applications' modes, the default first.
var appModes = []sim.AppMode{sim.AppContext, sim.AppChecks, sim.AppPolls}

// drawPauses draws process pauses, on one draw in 2: one to five, each
// within its node's pause bound (at least 10 ms where the bound allows);
// on one in 6 of those draws every pause is of the node outside the
// assumptions and past its bound, up to three leases.
func drawPauses(d *drawing, s stream) {
	if !s.OneIn(2) {
		return
	}
	long := s.OneIn(6)
	s.Repeat(1, 5, func(int) {
		n := s.node()
		if long {
			n = d.outside
		}
		bound := max(d.b.pauseBound(n), 0)
		var p time.Duration
		if long {
			p = s.timed(bound, 3*d.b.Lease)
		} else {
			p = s.Between(min(10*time.Millisecond, bound), bound)
		}
		if p > 0 { // a node whose settings promise to survive no pause takes none
			d.add(Event{Kind: Pause, At: s.at(p), Node: n, For: Duration(p)})
		}
	})
}

// drawCrashes draws crashes or stops, on one draw in 3: one or two, each
// followed 100 ms to 5 s later by a restart, under the same identity or,
// one in 2, a new one.
func drawCrashes(d *drawing, s stream) {
	if !s.OneIn(3) {
		return
	}
	s.Repeat(1, 2, func(i int) {
		down := s.Between(100*time.Millisecond, 5*time.Second)
		at, n := s.at(down), s.node()
		id := ""
		if s.OneIn(2) {
			id = fmt.Sprintf("n%d-r%d", n, i)
		}
		kind := Crash
		if s.OneIn(2) {
			kind = Stop
		}
		d.add(Event{Kind: kind, At: at, Node: n}, Event{Kind: Restart, At: at + Duration(down), Node: n, Identity: id})
	})
}

// drawPartitions draws partitions between a node and S3, on one draw in
// 3: one or two, each of a second to two leases, failing or (one in 2)
// hanging.
func drawPartitions(d *drawing, s stream) {
	if !s.OneIn(3) {
		return
	}
	s.Repeat(1, 2, func(int) {
		p := s.timed(time.Second, 2*d.b.Lease)
		d.add(Event{Kind: Partition, At: s.at(p), Node: s.node(), For: Duration(p), Blackhole: s.OneIn(2)})
	})
}

// drawApps draws the nodes' applications: on a third of the draws none
// (every application ignores the lease check: sim.AppContext); otherwise
// each node's mode at random, and, for two in three, slow work between the
// check and the write: within the node's pause bound, or on the node
// outside the assumptions (one in ten) beyond it, up to two leases.
func drawApps(d *drawing, s stream) {
	if s.Pick(3) == 0 {
		return
	}
	for i := range d.nodes {
		a := App{Node: i, Mode: appModes[s.Pick(len(appModes))]}
		if bound := d.b.pauseBound(i); s.Pick(3) > 0 {
			switch {
			case s.OneIn(10) && i == d.outside:
				a.Work = ms(s.Between(max(bound, 0)+time.Millisecond, 2*d.b.Lease))
			case bound >= 10*time.Millisecond:
				a.Work = ms(s.Between(bound/10, bound*9/10))
			}
		}
		if a.Mode != appModes[0] || a.Work != 0 {
			d.plan.Apps = append(d.plan.Apps, a)
		}
	}
}
