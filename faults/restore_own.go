package faults

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// RestoreOwn is someone else writing back, byte for byte, one of the
// leader's own earlier writes of the lock object: the write Back writes
// back among those its current incarnation sent, counting the renewal
// about to land as 1 (Back 2 is the write before it, and so on). It is
// aimed at the renewer, and happens at the instant that renewal reaches
// S3, just before S3 applies it, so that the renewal's If-Match finds the
// restored body and is answered 412, and the read that checks the renewal
// shows the leader one of its own writes. It waits for a renewal by a
// leader that has sent at least Back writes in its current incarnation.
//
// S3 stores the bytes as any other write and gives them the ETag it gives
// those bytes: the MD5 of the body, the same ETag the original write got
// (or would have got, had S3 applied it). A write of the same bytes as
// the one before it counts once: it is the SDK trying one write again.
//
// An elector that remembers its last n writes (the production elector's
// maxWrites) recognises a restore of Back ≤ n as its own and keeps its
// term on it; Back n+1 shows it a record it no longer knows, which it must
// take for someone else's. Either way the write is a foreign one, outside
// the assumptions of a protocol that does not tolerate foreign writes.
const RestoreOwn Kind = "restore-own"

// maxBack bounds Event.Back: how many of each node's writes a run with
// restore-own events keeps.
const maxBack = 1000

// validateRestoreOwn checks an event's Back: a restore-own's, from 1 to
// maxBack, aimed at the renewer; no other kind has one.
func (e Event) validateRestoreOwn() error {
	switch {
	case e.Kind != RestoreOwn:
		if e.Back != 0 {
			return fmt.Errorf("back %d: only a restore-own reaches back", e.Back)
		}
	case e.Back < 1 || e.Back > maxBack:
		return fmt.Errorf("back %d outside [1, %d]: a restore-own writes back the renewal about to land (1) or a write before it", e.Back, maxBack)
	case e.Role != RoleRenewer:
		return fmt.Errorf("a restore-own is aimed at the renewer, whose own write it restores (role %q)", e.Role)
	case e.Target != "":
		return errors.New("a write of the lock object hits no node: no target")
	}
	return nil
}

// ownWrites keeps, for each node, the bodies of the writes of the lock
// object that its current incarnation sent, newest last, as many as the
// plan's restore-own events reach back.
type ownWrites struct {
	keep  int
	nodes map[int]*nodeWrites
}

// nodeWrites are one node's writes in its incarnation inc.
type nodeWrites struct {
	inc    int
	bodies [][]byte
}

// newOwnWrites returns the keeper of the writes the plan's restore-own
// events reach back to, or nil if it has none.
func newOwnWrites(p *Plan) *ownWrites {
	keep := 0
	for _, e := range p.Events {
		if e.Kind == RestoreOwn {
			keep = max(keep, e.Back)
		}
	}
	if keep == 0 {
		return nil
	}
	return &ownWrites{keep: keep, nodes: map[int]*nodeWrites{}}
}

// of returns node's writes in its current incarnation.
func (o *ownWrites) of(w *sim.World, node int) *nodeWrites {
	inc := w.Node(node).Incarnation()
	nw := o.nodes[node]
	if nw == nil {
		nw = &nodeWrites{inc: inc}
		o.nodes[node] = nw
	}
	if nw.inc != inc {
		nw.inc, nw.bodies = inc, nw.bodies[:0]
	}
	return nw
}

// note keeps the body of r if it is a node's write of the lock object.
func (o *ownWrites) note(w *sim.World, r sim.Request) {
	if r.Op != sim.OpPutObject || r.Key != w.Key() || r.Node < 0 {
		return
	}
	nw := o.of(w, r.Node)
	if n := len(nw.bodies); n > 0 && bytes.Equal(nw.bodies[n-1], r.Body) {
		return // the SDK's retry of the same write
	}
	if len(nw.bodies) == o.keep {
		copy(nw.bodies, nw.bodies[1:])
		nw.bodies = nw.bodies[:o.keep-1]
	}
	nw.bodies = append(nw.bodies, bytes.Clone(r.Body))
}

// back returns the body of node's write k back in its current
// incarnation (1: the newest), if it has sent that many.
func (o *ownWrites) back(w *sim.World, node, k int) ([]byte, bool) {
	nw := o.of(w, node)
	if k < 1 || k > len(nw.bodies) {
		return nil, false
	}
	return nw.bodies[len(nw.bodies)-k], true
}

// ready reports whether the pending event e may fire on request r: a
// restore-own only once r's node has sent e.Back writes in its current
// incarnation, r among them; any other event at once.
func (in *injector) ready(w *sim.World, e Event, r sim.Request) bool {
	if e.Kind != RestoreOwn {
		return true
	}
	_, ok := in.own.back(w, r.Node, e.Back)
	return ok
}

// restoreOwn writes back, now, node's write e.Back writes back in its
// current incarnation, and records it: a fault of kind restore-own on the
// lock object, By the number of writes back.
func (in *injector) restoreOwn(w *sim.World, e Event, node int) {
	body, ok := in.own.back(w, node, e.Back)
	if !ok {
		// The node restarted between its renewal's send and its landing.
		w.FaultEvent(-1, sim.FaultAimed, 0, fmt.Sprintf("restore-own aimed at the renewer: n%d has not sent %d writes in its incarnation; nothing written", node, e.Back))
		return
	}
	err := w.OutsideWrite(body)
	now := w.Now()
	w.RecordFault(sim.FaultSpan{Kind: sim.FaultRestoreOwn.String(), Node: -1, From: now, To: now, By: int64(e.Back)})
	w.FaultEvent(-1, sim.FaultRestoreOwn, 0, fmt.Sprintf("as n%d's renewal lands, someone else restores its write %d back in its incarnation, %s (%v)",
		node, e.Back, quoteBody(body), errText(err)))
}
