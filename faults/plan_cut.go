package faults

import (
	"fmt"
	"slices"
	"time"
)

// ForNodes is p for a run of its first n nodes (Keep), a node beyond
// the names given named n<i>.
func (p *Plan) ForNodes(n int) *Plan {
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	c := p.Keep(keep)
	for i := len(p.Names); c.Names != nil && i < n; i++ {
		c.Names = append(c.Names, fmt.Sprintf("n%d", i))
	}
	return c
}

// Keep is p for a run of the nodes keep only, renumbered 0, 1, ... in
// that order: without the clocks, settings, applications, names and
// events of the other nodes; events that act on no node of the plan
// (faults of S3 or the lock object, events aimed at a role or a target)
// are kept, on node 0. p is not modified.
func (p *Plan) Keep(keep []int) *Plan {
	c := *p
	c.Clocks, c.Events, c.Settings, c.Apps, c.Names = nil, nil, nil, nil, nil
	to := map[int]int{}
	for i, n := range keep {
		to[n] = i
		if p.Names != nil {
			if n < len(p.Names) {
				c.Names = append(c.Names, p.Names[n])
			} else {
				c.Names = append(c.Names, fmt.Sprintf("n%d", n))
			}
		}
	}
	for _, cs := range p.Clocks {
		if i, ok := to[cs.Node]; ok {
			cs.Node = i
			c.Clocks = append(c.Clocks, cs)
		}
	}
	for _, s := range p.Settings {
		if i, ok := to[s.Node]; ok {
			s.Node = i
			c.Settings = append(c.Settings, s)
		}
	}
	for _, a := range p.Apps {
		if i, ok := to[a.Node]; ok {
			a.Node = i
			c.Apps = append(c.Apps, a)
		}
	}
	for _, e := range p.Events {
		i, ok := to[e.Node]
		switch {
		case e.nodeless():
			if !ok {
				i = 0
			}
		case !ok:
			continue
		}
		e.Node = i
		c.Events = append(c.Events, e)
	}
	return &c
}

// nodeless reports whether an event acts on no node named in the plan
// (its Node is ignored, but must exist): a fault of S3 or the lock
// object, or one aimed at a role or a target, whose nodes are found when
// it fires.
func (e Event) nodeless() bool {
	switch e.Kind {
	case SlowS3, DeleteLock, Overwrite, Restore, RestoreOwn:
		return true
	}
	return e.Role != "" || e.Target != ""
}

// ends is the instant by which a timed event is over, which Validate
// holds to the heal: its start for a restart or a lingering application,
// its start and length for the others; aimed events have none.
func (e Event) ends() time.Duration {
	switch {
	case e.Kind.Aimed():
		return 0
	case e.Kind == Restart || e.Kind == Linger:
		return e.At.D()
	}
	return e.At.D() + e.For.D()
}

// Cut is p healing at heal at the latest: the events that would then end
// after it left out, and drifts that outlast it ended there. p is not
// modified.
func (p *Plan) Cut(heal time.Duration) *Plan {
	c := *p
	if c.HealAt.D() <= heal {
		return &c
	}
	c.HealAt = Duration(heal)
	c.Events = slices.DeleteFunc(slices.Clone(p.Events), func(e Event) bool { return e.ends() > heal })
	c.Clocks = slices.Clone(p.Clocks)
	for i := range c.Clocks {
		if c.Clocks[i].DriftUntil > c.HealAt {
			c.Clocks[i].DriftUntil = c.HealAt
		}
	}
	return &c
}
