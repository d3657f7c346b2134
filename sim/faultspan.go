package sim

import (
	"fmt"
	"sort"
	"time"
)

// FaultSpan is one fault as it happened in a run: its kind (a FaultKind's
// name, such as "pause", "clock-stall", "linger", "partition", or one the
// trace records as an event of its own: "crash", "stop", "restart"),
// the node it hit (-1 for the world outside the nodes: S3, the lock
// object), and the interval of true time it lasted, [From, To) (To == From
// for an instant). The checkers judge a run against the faults that really
// happened, not the ones a plan asked for: an aimed fault fires when its
// request does, and overlapping pauses of a node run as one.
type FaultSpan struct {
	Kind     string
	Node     int
	From, To time.Duration
	// By is the size of a fault that has one: a wall-clock step, a drift
	// in parts per million, the lingering of an application.
	By int64
}

// String describes the fault in a few words.
func (f FaultSpan) String() string {
	who := "the lock object"
	if f.Node >= 0 {
		who = fmt.Sprintf("n%d", f.Node)
	}
	if f.To == f.From {
		return fmt.Sprintf("%s on %s at %v", f.Kind, who, f.From)
	}
	return fmt.Sprintf("%s on %s from %v to %v (%v)", f.Kind, who, f.From, f.To, f.To-f.From)
}

// Fault records a fault of kind that begins now: in the history (f, its
// Kind set to kind's name), for the checkers, and in the trace as an event
// of its kind, with text saying what happened. Faults from outside the
// simulator (package faults) call it.
func (w *World) Fault(kind FaultKind, f FaultSpan, text string) {
	f.Kind = kind.String()
	w.RecordFault(f)
	d := f.To - f.From
	if d == 0 {
		d = time.Duration(f.By) // an instant fault's size: a wall-clock step
	}
	w.FaultEvent(f.Node, kind, d, text)
}

// RecordFault records a fault in the history only (its trace event is
// another, such as a crash's).
func (w *World) RecordFault(f FaultSpan) {
	w.history.Faults = append(w.history.Faults, f)
}

// FaultEvent adds a trace event of fault kind on node (-1: the world) now,
// lasting d (or of size d), with text.
func (w *World) FaultEvent(node int, kind FaultKind, d time.Duration, text string) {
	e := Event{At: w.now, Node: node, Local: w.now + w.s3.clock, Kind: EvFault, Fault: kind, For: d, Detail: text}
	if node >= 0 {
		e.Local = w.nodes[node].localWall(w.now)
	}
	w.trace.add(e)
	w.live.beat()
}

// SetHealAt tells the world when its faults heal: a pause aimed at a
// protocol instant (an answer, a guarded write) that begins before then is
// cut short there, and a lingering application stops there, so that
// nothing the assumptions forbid happens after the heal.
func (w *World) SetHealAt(at time.Duration) { w.healAt = at }

// untilHeal cuts a fault of length d that begins now at the heal.
func (w *World) untilHeal(d time.Duration) time.Duration {
	if w.healAt > 0 && w.now < w.healAt {
		return min(d, w.healAt-w.now)
	}
	return d
}

// MergeSpans joins the spans of each node that overlap or touch into one,
// as the simulator runs overlapping pauses: the result is sorted by node
// and start, a joined span's Kind lists its parts' kinds ("pause +
// answer-pause"), and spans of no length are dropped. fs is not modified.
func MergeSpans(fs []FaultSpan) []FaultSpan {
	var ps []FaultSpan
	for _, f := range fs {
		if f.To > f.From {
			ps = append(ps, f)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Node != ps[j].Node {
			return ps[i].Node < ps[j].Node
		}
		return ps[i].From < ps[j].From
	})
	var out []FaultSpan
	for _, f := range ps {
		if n := len(out); n > 0 && out[n-1].Node == f.Node && f.From <= out[n-1].To {
			m := &out[n-1]
			m.To = max(m.To, f.To)
			m.Kind += " + " + f.Kind
			continue
		}
		f.By = 0
		out = append(out, f)
	}
	return out
}
