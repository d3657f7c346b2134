package faults

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Settings are one node's protocol settings, for a protocol that takes
// them (harness.Protocol.Configure): the knobs of the production elector
// (protocol.Config) and of the zoo's careful lock. A plan that gives them
// runs a mix of configurations; the protocol's assumptions then follow
// each node's (see harness.Protocol.Configure).
type Settings struct {
	Node int `json:"node"`
	// Lease, RenewDeadline, RetryPeriod and RequestTimeout are
	// protocol.Config's LeaseDuration, RenewDeadline, RetryPeriod and
	// RequestTimeout (0: RetryPeriod).
	Lease          Duration `json:"lease"`
	RenewDeadline  Duration `json:"renewDeadline"`
	RetryPeriod    Duration `json:"retryPeriod"`
	RequestTimeout Duration `json:"requestTimeout,omitempty"`
	// DriftPPM is the clock-drift bound the node assumes (0: 1000).
	DriftPPM int64 `json:"driftPPM,omitempty"`
	// ReleaseOnCancel: the node releases its lease when it is stopped.
	ReleaseOnCancel bool `json:"releaseOnCancel,omitempty"`
}

// App is how a node's application uses its terms (sim.AppMode) and how
// long each unit of its work takes between its check that it leads and its
// guarded write (sim.Node.SetApp).
type App struct {
	Node int         `json:"node"`
	Mode sim.AppMode `json:"mode,omitempty"`
	Work Duration    `json:"work,omitempty"`
	// Callers ask the node's protocol who leads (sim.Node.AddCaller).
	Callers []Caller `json:"callers,omitempty"`
}

// Caller is an application or an operator that asks a node's protocol
// one question (sim.Caller): every Every from From on, and Aim after the
// send of each of the node's successful PutObject requests on its clock.
type Caller struct {
	Ask       sim.Ask  `json:"ask"`
	From      Duration `json:"from,omitempty"`
	Every     Duration `json:"every,omitempty"`
	Aim       Duration `json:"aim,omitempty"`
	Tolerance Duration `json:"tolerance,omitempty"`
}

// minCallerEvery is the shortest interval between a caller's questions a
// plan may give: shorter ones would flood the run with questions.
const minCallerEvery = 10 * time.Millisecond

// validate checks c, a caller of node's.
func (c Caller) validate(node int) error {
	switch {
	case !c.Ask.Valid():
		return fmt.Errorf("node %d's caller asks %q (is-leader, lease, leader or healthy)", node, c.Ask)
	case c.From < 0 || c.Every < 0 || c.Aim < 0 || c.Tolerance < 0:
		return fmt.Errorf("node %d's %s caller has a negative duration", node, c.Ask)
	case c.Every == 0 && c.Aim == 0:
		return fmt.Errorf("node %d's %s caller asks at no instant (neither every nor aim)", node, c.Ask)
	case c.Every > 0 && c.Every.D() < minCallerEvery:
		return fmt.Errorf("node %d's %s caller asks every %v, more often than every %v", node, c.Ask, c.Every, minCallerEvery)
	}
	return nil
}

// sim is the caller as the simulator takes it.
func (c Caller) sim() sim.Caller {
	return sim.Caller{Ask: c.Ask, From: c.From.D(), Every: c.Every.D(), Aim: c.Aim.D(), Tolerance: c.Tolerance.D()}
}

// validateWorld checks the plan's settings, initial object and
// applications.
func (p *Plan) validateWorld(nodes int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidPlan, fmt.Sprintf(format, args...))
	}
	seen := map[int]bool{}
	for _, s := range p.Settings {
		switch {
		case s.Node < 0 || s.Node >= nodes:
			return bad("settings for node %d of %d", s.Node, nodes)
		case seen[s.Node]:
			return bad("two settings for node %d", s.Node)
		case s.Lease <= 0 || s.RenewDeadline <= 0 || s.RetryPeriod <= 0 || s.RequestTimeout < 0 || s.DriftPPM < 0:
			return bad("node %d's settings have a duration or drift that is not positive", s.Node)
		}
		seen[s.Node] = true
	}
	if o := p.Initial; o != nil && o.Record != nil && o.Record.Lease < 0 {
		return bad("initial record with a negative lease")
	}
	if o := p.Initial; o != nil && o.Record == nil && (o.Spelling != 0 || o.Edit != 0 || o.Size != 0) {
		return bad("initial body with a spelling, an edit or a size, which apply to a record only")
	}
	if o := p.Initial; o != nil {
		if err := o.validate(); err != nil {
			return bad("initial object: %v", err)
		}
	}
	clear(seen)
	for _, a := range p.Apps {
		switch {
		case a.Node < 0 || a.Node >= nodes:
			return bad("application of node %d of %d", a.Node, nodes)
		case seen[a.Node]:
			return bad("two applications for node %d", a.Node)
		case !a.Mode.Valid():
			return bad("node %d's application mode %q (context, checks or polls)", a.Node, a.Mode)
		case a.Work < 0:
			return bad("node %d's application work is negative", a.Node)
		}
		for _, c := range a.Callers {
			if err := c.validate(a.Node); err != nil {
				return bad("%v", err)
			}
		}
		seen[a.Node] = true
	}
	return nil
}
