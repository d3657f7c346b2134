package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Configure is a protocol's constructor for other settings of the same
// code: a plan's faults.Settings for one node. It returns the protocol
// with those settings (its candidate, assumptions and liveness bound), or
// an error if it does not accept them.
type Configure func(faults.Settings) (Protocol, error)

// withSettings is p with the plan's settings: node i runs the protocol
// that p.Configure makes of its settings, or p.Node(i) if it has none.
// The assumptions follow each node's:
//
//   - The drift bound is the smallest of the nodes': any node may lead,
//     and a leader's margin holds only if every clock, the followers'
//     included, stays within its own bound.
//   - The pause bound is each node's own (Protocol.PauseBound): a pause
//     matters in a leader, whose term and lease are its own settings;
//     followers wait at least the lease the leader's record states.
//     MaxPause is the smallest, for plans drawn to stay inside.
//   - The request rate is each node's own (Protocol.RequestRateOf): how
//     often a node may ask S3 follows from its own waits.
//   - Lease and Term are the longest: they bound how long a fault can
//     affect a node.
//   - The liveness bound is the longest lease plus the largest of each
//     node's bound beyond its own lease: a follower may have to wait out
//     the longest lease a leader wrote, then read and write at its own
//     pace.
//   - Offsets, steps, stalls, foreign writes, lingering, torn reads and
//     opaque ETags: the strictest.
//   - Each node's pace is judged, and what it writes audited, by its own
//     protocol (Nodes, Node).
func (p Protocol) withSettings(settings []faults.Settings, nodes int) (Protocol, error) {
	if len(settings) == 0 {
		return p, nil
	}
	if p.Configure == nil {
		return p, fmt.Errorf("%w: the plan gives nodes settings, but protocol %q takes none (Protocol.Configure)", ErrBadPlan, p.Name)
	}
	per := make([]Protocol, nodes)
	for i := range per {
		per[i] = p.Node(i)
	}
	for k, s := range settings {
		if s.Node < 0 || s.Node >= nodes {
			return p, fmt.Errorf("%w: settings[%d] are for node %d of %d", ErrBadPlan, k, s.Node, nodes)
		}
		q, err := p.Configure(s)
		if err != nil {
			return p, fmt.Errorf("%w: settings[%d] (node %d): protocol %q refuses them: %w", ErrBadPlan, k, s.Node, p.Name, err)
		}
		per[s.Node] = q
	}
	out := p
	out.Candidate = func(ctx context.Context, env sim.Env) error {
		return per[env.Node].Candidate(ctx, env)
	}
	out.Pace = func(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation {
		if f := per[node].Pace; f != nil {
			return f(h, node, clock)
		}
		return nil
	}
	out.Answers = func(h *sim.History, node int, clock sim.ClockModel) (wrong, slow []linearizability.Violation) {
		if f := per[node].Answers; f != nil {
			return f(h, node, clock)
		}
		return nil, nil
	}
	a := p.Assumptions
	out.Nodes = per
	maxLease, beyond := time.Duration(0), time.Duration(0)
	for _, q := range per {
		qa := q.Assumptions
		a.MaxPause = min(a.MaxPause, qa.MaxPause)
		a.MaxDriftPPM = min(a.MaxDriftPPM, qa.MaxDriftPPM)
		a.Lease = max(a.Lease, qa.Lease)
		a.Term = max(a.Term, qa.Term)
		a.MaxOffset = minPositive(a.MaxOffset, qa.MaxOffset)
		a.MaxWallStep = minPositive(a.MaxWallStep, qa.MaxWallStep)
		a.Stalls = a.Stalls && qa.Stalls
		a.ForeignWrites = a.ForeignWrites && qa.ForeignWrites
		a.Linger = a.Linger && qa.Linger
		a.TornReads = a.TornReads && qa.TornReads
		a.OpaqueETags = a.OpaqueETags && qa.OpaqueETags
		maxLease = max(maxLease, qa.Lease)
		if q.LivenessBound > 0 {
			beyond = max(beyond, q.LivenessBound-qa.Lease)
		}
	}
	out.Assumptions = a
	if enc := p.EncodeRecord; enc != nil {
		// A record that states no lease of its own states the longest
		// the nodes use, which the liveness bound allows for.
		out.EncodeRecord = func(r faults.Record) []byte {
			if r.Lease <= 0 {
				r.Lease = faults.Duration(maxLease)
			}
			return enc(r)
		}
	}
	if p.LivenessBound > 0 {
		out.LivenessBound = maxLease + beyond
	}
	return out, nil
}

func minPositive(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// PauseBound is the longest pause node may take inside the protocol's
// assumptions: its own protocol's bound (Node), which is the node's own
// settings' under a plan that gives nodes settings of their own, else
// Assumptions.MaxPause.
func (p Protocol) PauseBound(node int) time.Duration {
	return p.Node(node).Assumptions.MaxPause
}

// RequestRateOf is node's bound on its S3 request rate: its own
// protocol's RequestRate (Node).
func (p Protocol) RequestRateOf(node int) linearizability.RequestRate {
	return p.Node(node).RequestRate
}

// StatedLease is the lease a plan's record that states none is written
// with (faults.Record.Lease 0): the longest lease of the nodes' own
// protocols when they differ (Nodes), else Assumptions.Lease.
func (p Protocol) StatedLease() time.Duration {
	var lease time.Duration
	for _, q := range p.Nodes {
		lease = max(lease, q.Assumptions.Lease)
	}
	if lease > 0 {
		return lease
	}
	return p.Assumptions.Lease
}

// Configured returns the protocol a plan runs: p with the plan's settings
// (withSettings), or p if the plan gives none. Settings that p's Configure
// refuses make a bad plan (ErrBadPlan).
func Configured(p Protocol, plan *faults.Plan, nodes int) (Protocol, error) {
	if plan == nil {
		return p, nil
	}
	return p.withSettings(plan.Settings, nodes)
}
