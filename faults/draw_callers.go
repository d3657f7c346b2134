package faults

import (
	"cmp"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// asks are the questions a caller may ask.
var asks = []sim.Ask{sim.AskIsLeader, sim.AskLease, sim.AskLeader, sim.AskHealthy}

// drawCallers draws the applications and operators that ask the nodes'
// protocols who leads (App.Callers), on two draws in three: each node
// one in two gets one to four callers, each asking one question (IsLeader,
// Lease, Leader, or Healthy with a tolerance of up to two leases) every
// 50 ms to 2 s from an instant within the first two seconds; and one in
// two of those also asks IsLeader or Lease aimed at the instant a term
// that no renewal extends ends: the node's term length after each of its
// successful writes (termLength).
func drawCallers(d *drawing, s stream) {
	if s.Pick(3) == 0 {
		return
	}
	for i := range d.nodes {
		if !s.OneIn(2) {
			continue
		}
		var cs []Caller
		s.Repeat(1, 4, func(int) {
			c := Caller{Ask: asks[s.Pick(len(asks))], From: ms(s.Between(0, 2*time.Second)),
				Every: ms(s.Between(50*time.Millisecond, 2*time.Second))}
			if c.Ask == sim.AskHealthy {
				c.Tolerance = ms(s.Between(0, 2*d.b.Lease))
			}
			cs = append(cs, c)
		})
		if s.OneIn(2) {
			cs = append(cs, Caller{Ask: asks[s.Pick(2)], Aim: Duration(d.termLength(i))})
		}
		d.app(i).Callers = cs
	}
}

// termLength is how long node's term lasts after the send of its last
// successful write: its settings' (protocol.TermLength), else the
// protocol's (Bounds.Term, or its lease).
func (d *drawing) termLength(node int) time.Duration {
	for _, st := range d.plan.Settings {
		if st.Node == node {
			return protocol.TermLength(st.Lease.D(), st.RenewDeadline.D(), cmp.Or(st.DriftPPM, protocol.DefaultClockDriftPPM))
		}
	}
	if d.b.Term > 0 {
		return d.b.Term
	}
	return d.b.Lease
}

// app is node's application in the plan, added if it has none.
func (d *drawing) app(node int) *App {
	for i := range d.plan.Apps {
		if d.plan.Apps[i].Node == node {
			return &d.plan.Apps[i]
		}
	}
	d.plan.Apps = append(d.plan.Apps, App{Node: node})
	return &d.plan.Apps[len(d.plan.Apps)-1]
}
