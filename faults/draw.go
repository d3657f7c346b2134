package faults

import (
	"slices"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Space is what the generator (Draw) draws a plan in: the world's size,
// the instant every fault heals, and what the protocol states of the
// world (Bounds), which sizes the faults and keeps most of them inside
// its assumptions.
type Space struct {
	// Nodes is the number of nodes of the run.
	Nodes int
	// HealAt is the instant every fault ends.
	HealAt time.Duration
	// Bounds are the protocol's, as given.
	Bounds Bounds
	// Without names families the generator leaves out (Families): a
	// family left out draws nothing, and the others draw what they would
	// with it, each from its own sub-stream. Unknown names are ignored
	// (harness.Protocol.Validate refuses them).
	Without []string
	// Configure, if set, says that the protocol takes settings (Settings):
	// the generator then draws them, and sizes the rest of the run by the
	// bounds Configure gives for them; false if the protocol refuses them,
	// and the run keeps the protocol as given.
	Configure func([]Settings, int) (Bounds, bool)
}

// Bounds are what a protocol states of the world, as the generator sizes
// a run by them: its assumptions (lease, term, drift, pause, clock
// offset and wall-clock step), each node's own pause bound where nodes
// run different settings, and the longest identity it accepts (0: the
// generator draws no names).
type Bounds struct {
	protocol.Assumptions
	PauseBounds    []time.Duration
	MaxIdentityLen int
}

// pauseBound is node's pause bound.
func (b Bounds) pauseBound(node int) time.Duration {
	if node >= 0 && node < len(b.PauseBounds) {
		return b.PauseBounds[node]
	}
	return b.MaxPause
}

// Draw is the generator: it draws a run's whole plan from src in the manner of
// swarm testing, each family of faults switched on or off and, if on,
// given an intensity, so that across draws every combination is tried,
// some gently and some hard. Each family draws from a sub-stream of its
// own (the package documentation, "What the generator draws", lists them
// and how often each is drawn). Every plan it draws is valid for the run
// (Plan.Validate): timed faults end before sp.HealAt.
func Draw(src *Source, sp Space) *Plan {
	d := &drawing{sp: sp, b: sp.Bounds, wild: -1, nodes: sp.Nodes}
	d.plan = &Plan{HealAt: Duration(sp.HealAt)}
	if sp.Configure != nil {
		s := d.stream(src.Sub("settings"))
		if settings := s.settings(d.nodes); settings != nil {
			if b, ok := sp.Configure(settings, d.nodes); ok {
				d.plan.Settings, d.b = settings, b
			}
		}
	}
	// Decided first, as every family may depend on them: the node whose
	// clock drifts beyond its bound, if any; the one node that the faults
	// beyond the assumptions hit (that one, or one drawn); the instant
	// that faults which only matter together share; and whether foreign
	// writes hit the lock object during the run.
	if c := src.Sub("clocks"); c.OneIn(12) && !sp.leavesOut("clocks") {
		d.wild = c.Pick(d.nodes)
	}
	d.outside = d.wild
	if d.outside < 0 {
		d.outside = src.Sub("outside").Pick(d.nodes)
	}
	d.hot = d.stream(src.Sub("hot")).at(0)
	d.foreign = src.Sub("foreign").OneIn(6) && !sp.leavesOut("foreign")
	for _, f := range families {
		if !sp.leavesOut(f.name) {
			f.draw(d, d.stream(src.Sub(f.name)))
		}
	}
	return d.plan
}

// leavesOut reports whether the space leaves family name out.
func (sp Space) leavesOut(name string) bool { return slices.Contains(sp.Without, name) }

// Families returns the names of the generator's families, in the order
// they are drawn: what Space.Without may name.
func Families() []string {
	names := make([]string, len(families))
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// A family draws one kind of fault, or one part of the world, from its
// own sub-stream of the run's choices, into d.plan. To add a family, write
// its draw and add it to families, at the end (or before the families
// whose draws depend on it): every entry point (the CLI's swarm,
// harness.Check and harness.Fuzz, campaigns and guided campaigns) draws
// through Draw, and shrinking and guided mutation work on every
// sub-stream alike.
type family struct {
	name string
	draw func(d *drawing, s stream)
}

// families are the generator's, in the order they are drawn.
var families = []family{
	{"clocks", drawClocks},
	{"steps", drawSteps},
	{"pauses", drawPauses},
	{"crashes", drawCrashes},
	{"partitions", drawPartitions},
	{"slow-s3", drawSlowS3},
	{"requests", drawRequests},
	{"knobs", drawKnobs},
	{"beyond", drawBeyond},
	{"initial", drawInitial},
	{"apps", drawApps},
	{"foreign", drawForeign},
	{"cluster", drawCluster},
	{"roles", drawRoles},
	{"denials", drawDenials},
	{"ends", drawEnds},
	{"pages", drawPages},
	{"restore-own", drawRestoreOwn},
	{"torn-reads", drawTornReads},
	{"etags", drawETags}, // after torn-reads: it draws no opaque ETags with them
	{"callers", drawCallers},
	{"names", drawNames}, // last: it fits the names to the identities restarts give
}

// drawing is a run being drawn: its space, the bounds of the protocol
// with the settings drawn, its nodes and plan so far, and what every
// family shares.
type drawing struct {
	sp      Space
	b       Bounds
	nodes   int
	plan    *Plan
	wild    int      // the node whose clock drifts beyond the bound, or -1
	outside int      // the node the faults beyond the assumptions hit
	hot     Duration // the instant faults that matter together share
	foreign bool     // foreign writes hit the lock object during the run
}

func (d *drawing) add(e ...Event) { d.plan.Events = append(d.plan.Events, e...) }

func (d *drawing) stream(s *Source) stream { return stream{Source: s, d: d} }

// stream is one family's sub-stream, with draws sized by the run.
type stream struct {
	*Source
	d *drawing
}

// node draws a node.
func (s stream) node() int { return s.Pick(s.d.nodes) }

// timed draws the length of a timed fault in [lo, hi], at most what fits
// between a second into the run and the heal.
func (s stream) timed(lo, hi time.Duration) time.Duration {
	most := s.d.sp.HealAt - time.Second - time.Millisecond
	return min(s.Between(min(lo, most), min(hi, most)), most)
}

// at draws a start for a fault lasting d, so that it ends before the heal.
func (s stream) at(d time.Duration) Duration {
	last := max(s.d.sp.HealAt-d-time.Millisecond, time.Second)
	return Duration(s.Between(time.Second, last))
}

// when draws the start of a fault lasting d: the run's hot instant (if
// the fault fits before the heal from there) two times in three, or any
// instant.
func (s stream) when(d time.Duration) Duration { return s.whenOneIn(d, 3, 2) }

// whenOneIn is when with the hot instant chosen k times in n.
func (s stream) whenOneIn(d time.Duration, n, k int) Duration {
	if s.Pick(n) < k && s.d.hot.D()+d < s.d.sp.HealAt {
		return s.d.hot
	}
	return s.at(d)
}

// role draws one of roles.
func (s stream) role(roles ...Role) Role { return roles[s.Pick(len(roles))] }

// ms truncates d to a whole millisecond, as plans print more readably.
func ms(d time.Duration) Duration { return Duration(d.Truncate(time.Millisecond)) }
