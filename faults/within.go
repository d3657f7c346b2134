package faults

import (
	"strings"
	"time"
)

// Within draws a part of plan p for a run of nodes nodes: each node nodesKept
// or left out (the nodes nodesKept renumbered in order: Keep; node 0 alone if
// none is), then, each nodesKept or left out, every clock setting, node's
// settings, application and event, the names, the content before the run,
// each S3 knob, the SDK's retries and the error pages.
// Each choice that keeps a part is 1, each that leaves it out 0, so that
// Within(Largest(), p, nodes) is p itself and its choices, shrunk, leave
// out what a failure does not need. It is how a plan that no stream drew
// (written by hand, by a story that draws none, or by an earlier shrink)
// is shrunk on a stream like any other.
func Within(src *Source, p *Plan, nodes int) Run {
	ns := src.Sub("nodes")
	var nodesKept []int
	for i := range nodes {
		if ns.Choose(2) == 1 {
			nodesKept = append(nodesKept, i)
		}
	}
	if len(nodesKept) == 0 {
		nodesKept = []int{0}
	}
	q := p.Keep(nodesKept)
	s := src.Sub("parts")
	keep := func() bool { return s.Choose(2) == 1 }
	q.Clocks, q.Settings = kept(q.Clocks, keep), kept(q.Settings, keep)
	q.Apps, q.Events = kept(q.Apps, keep), kept(q.Events, keep)
	if !keep() {
		q.Names = nil
	}
	if !keep() {
		q.Initial = nil
	}
	if o := q.Initial; o != nil && o.Record != nil {
		q.Initial = withinRecord(o, keep)
	}
	k := &q.S3
	for _, v := range []*int64{&k.ConflictOnOverlapPPM, &k.ConflictPPM, &k.InternalBeforePPM, &k.SlowDownPPM, &k.InternalAfterPPM, &k.LostPPM} {
		if !keep() {
			*v = 0
		}
	}
	if !keep() {
		k.SlowPPM, k.SlowMax = 0, 0
	}
	if !keep() {
		q.SDKAttempts = 0
	}
	if !keep() {
		q.ErrorPages = ""
	}
	return Run{Nodes: len(nodesKept), Plan: q}
}

// Run is a plan and the number of nodes it is for.
type Run struct {
	Nodes int
	Plan  *Plan
}

// Largest is the stream whose every choice is the largest in its range.
func Largest() *Source { return FromOrigin(largest{}) }

type largest struct{}

func (largest) Choose(_ string, n uint64) uint64 { return n - 1 }

// WithLargest is src with every choice of its sub-stream name (and of
// that sub-stream's own) the largest in its range, as Largest answers:
// for a Within drawn beside a plan, every part kept unless the choices
// say otherwise.
func WithLargest(src *Source, name string) *Source {
	return FromOrigin(largestUnder{o: src.st.origin, path: "/" + name})
}

type largestUnder struct {
	o    Origin
	path string
}

func (l largestUnder) Choose(path string, n uint64) uint64 {
	if path == l.path || strings.HasPrefix(path, l.path+"/") {
		return n - 1
	}
	return l.o.Choose(path, n)
}

// kept is the elements of xs that keep, asked once for each in order,
// keeps.
func kept[T any](xs []T, keep func() bool) []T {
	var out []T
	for _, x := range xs {
		if keep() {
			out = append(out, x)
		}
	}
	return out
}

// withinRecord is the object o, whose content is a record, with its
// edit, spelling, padding, link and what it publishes beyond the
// watermark it was handed each kept or left out.
func withinRecord(o *Object, keep func() bool) *Object {
	c, r := *o, *o.Record
	if !keep() {
		c.Edit = 0
	}
	if !keep() {
		c.Spelling = 0
	}
	if !keep() {
		c.Size = 0
	}
	if !keep() {
		r.Previous = nil
	}
	if !keep() {
		r.Watermark, r.Updates = time.Time{}, ""
		if r.Previous != nil {
			r.Watermark = r.Previous.Watermark // as handed over
		}
	}
	c.Record = &r
	return &c
}
