package faults

import (
	"strings"
	"time"
)

// Run is a plan and the number of nodes it is for.
type Run struct {
	Nodes int
	Plan  *Plan
}

// Within draws a part of plan p for a run of nodes nodes: each node kept
// or left out (those kept renumbered in order: Keep; node 0 alone if none
// is), then, each kept or left out, every clock setting, node's settings,
// application and event, the names, the content before the run (and of
// its record the edit, the spelling, the padding, the link and what it
// publishes beyond what it was handed), each S3 knob, the SDK's retries
// and the error pages. A choice that keeps a part is 1, one that leaves it
// out 0: with every choice the largest (WithLargest) Within is p itself,
// and its choices, shrunk, leave out what a failure does not need. So a
// plan that no stream drew (written by hand, by an earlier shrink) is
// shrunk on a stream like any other, and a drawn one part by part.
func Within(src *Source, p *Plan, nodes int) Run {
	var kept []int
	for i, ns := 0, src.Sub("nodes"); i < nodes; i++ {
		if ns.Choose(2) == 1 {
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 {
		kept = []int{0}
	}
	q, s := p.Keep(kept), src.Sub("parts")
	keep := func() bool { return s.Choose(2) == 1 }
	q.Clocks, q.Settings = keepEach(q.Clocks, keep), keepEach(q.Settings, keep)
	q.Apps, q.Events = keepEach(q.Apps, keep), keepEach(q.Events, keep)
	k := &q.S3
	leave := []func(){func() { q.Names = nil }, func() { q.Initial = nil },
		func() { k.ConflictOnOverlapPPM = 0 }, func() { k.ConflictPPM = 0 }, func() { k.InternalBeforePPM = 0 },
		func() { k.SlowDownPPM = 0 }, func() { k.InternalAfterPPM = 0 }, func() { k.LostPPM = 0 },
		func() { k.SlowPPM, k.SlowMax = 0, 0 }, func() { q.SDKAttempts = 0 }, func() { q.ErrorPages = "" },
		func() { k.TornPPM = 0 }, func() { k.OpaqueETags = false }}
	if o := q.Initial; o != nil && o.Record != nil {
		c, r := *o, *o.Record
		q.Initial, c.Record = &c, &r
		leave = append(leave, func() { c.Edit = 0 }, func() { c.Spelling = 0 }, func() { c.Size = 0 },
			func() { r.Previous = nil }, func() {
				r.Watermark, r.Updates = time.Time{}, ""
				if r.Previous != nil {
					r.Watermark = r.Previous.Watermark // as handed over
				}
			})
	}
	for _, f := range leave {
		if !keep() {
			f()
		}
	}
	return Run{Nodes: len(kept), Plan: q}
}

// keepEach is the elements of xs that keep, asked once for each in order,
// keeps.
func keepEach[T any](xs []T, keep func() bool) []T {
	var out []T
	for _, x := range xs {
		if keep() {
			out = append(out, x)
		}
	}
	return out
}

// WithLargest is src with every choice of its sub-stream name (and of
// that sub-stream's own) the largest in its range: for a Within drawn
// there, every part kept unless recorded choices say otherwise.
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
