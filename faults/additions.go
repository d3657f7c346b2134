package faults

import (
	"errors"
	"fmt"
	"math"
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

// Record is a lock record written by someone other than the run's nodes,
// before the run (Plan.Initial) or during it (an overwrite): the protocol
// encodes it in its own format (harness.Protocol.EncodeRecord), with a
// nonce derived from its fields, so that the same Record is the same
// bytes.
type Record struct {
	Holder string `json:"holder"`
	Token  uint64 `json:"token"`
	// Lease is the lease the record states; 0: the protocol's own.
	Lease    Duration `json:"lease,omitempty"`
	Released bool     `json:"released,omitempty"`
	// Watermark and Updates are what the record publishes, for a protocol
	// whose records carry them (the production elector's watermark
	// hand-off); zero: nothing. A protocol without them leaves them out.
	Watermark time.Time `json:"watermark,omitzero"`
	Updates   string    `json:"updates,omitempty"`
	// Previous is the term the record links to, for a protocol whose
	// records link terms (the production elector's audit link); nil: none,
	// the first term of the object. A protocol without links leaves it
	// out.
	Previous *Previous `json:"previous,omitempty"`
}

// MaxNativeToken is the largest token a record may hold and still be one
// that electors could have written: beyond it the token space is nearly
// spent (2^63 acquisitions), and the elector refuses the largest token
// outright. A record with a larger token is a foreign write.
const MaxNativeToken = math.MaxUint64 / 2

// Native reports whether electors could have written r: a holder of at
// most MaxIdentityLen bytes, a token from 1 to MaxNativeToken, a lease of
// at most MaxLease (0: the protocol's own), updates of
// at most MaxUpdatesLen bytes, and a link, if any, that an elector writes
// (validLink). A record that is not native is a foreign write.
func (r Record) Native() bool {
	return r.Holder != "" && len(r.Holder) <= MaxIdentityLen && r.Token >= 1 && r.Token <= MaxNativeToken && r.Lease >= 0 && r.Lease.D() <= MaxLease &&
		len(r.Updates) <= MaxUpdatesLen && (r.Previous == nil || r.validLink())
}

// Object is the content of the lock object: a lock record in the
// protocol's format, or else raw bytes (Body, possibly empty).
type Object struct {
	Record *Record `json:"record,omitempty"`
	Body   string  `json:"body,omitempty"`
	// Spelling, if not zero, writes the record in another spelling of the
	// same JSON (Respell): keys in another order, whitespace, escapes.
	Spelling uint64 `json:"spelling,omitempty"`
	// Edit, if not zero, rewrites the record (after its spelling) as
	// another tool or an operator might leave it (Edit): a field's value
	// replaced or left out, a field twice, a name in other case, a field
	// added or removed, a string escaped throughout, every number
	// zero-padded, a link to a term before added. An edited record is
	// foreign.
	Edit uint64 `json:"edit,omitempty"`
	// Size, if not zero, brings the record's body (after its spelling and
	// its edit) to Size bytes with an unknown field (Pad): near the
	// largest body a protocol reads, or beyond it. No elector writes an
	// unknown field, so a padded record is foreign.
	Size int `json:"size,omitempty"`
}

// Foreign reports whether the object is one the electors could not have
// written: raw bytes, a record that is not Native, an edited or a padded
// one.
func (o *Object) Foreign() bool {
	return o != nil && (o.Record == nil || !o.Record.Native() || o.Edit != 0 || o.Size != 0)
}

// App is how a node's application uses its terms (sim.AppMode) and how
// long each unit of its work takes between its check that it leads and its
// guarded write (sim.Node.SetApp).
type App struct {
	Node int         `json:"node"`
	Mode sim.AppMode `json:"mode,omitempty"`
	Work Duration    `json:"work,omitempty"`
}

// Role is the part a node plays at an instant, at which an event with that
// Role is aimed. The role is resolved when the event fires, not when the
// plan is drawn: the event waits, from At, for the first moment at which a
// node plays the role, and does not happen if none does before the heal
// (less the event's length).
type Role string

// The roles.
const (
	// RoleLeader: a node whose application is in a term. A timed event
	// hits the leader at At, or the next node to lead after it; an aimed
	// fenced-write fault hits the leader's next fenced write.
	RoleLeader Role = "leader"
	// RoleAcquirer: a node that writes the lock object while it does not
	// lead (it acquires it, or releases it after its term); the event
	// happens as the request leaves.
	RoleAcquirer Role = "acquirer"
	// RoleRequester: a node that sends any S3 request; the event happens
	// as the request leaves, so the node has a request in flight.
	RoleRequester Role = "requester"
	// RoleRenewer: a leader whose write of the lock object (its renewal)
	// is about to reach S3; an answer fault hits that write, any other
	// event happens at the instant S3 applies it, just before.
	RoleRenewer Role = "renewer"
)

// byRequest reports whether the role is resolved by a request.
func (r Role) byRequest() bool { return r == RoleAcquirer || r == RoleRequester || r == RoleRenewer }

// Target widens an event beyond one node.
type Target string

// The targets.
const (
	// TargetAll: every node at once (the whole cluster).
	TargetAll Target = "all"
	// TargetFollowers: every node that does not lead when the event
	// happens.
	TargetFollowers Target = "followers"
)

// validateAim checks an event's Role, Target and the fields they bring.
func (e Event) validateAim() error {
	if err := e.validateRestoreOwn(); err != nil {
		return err
	}
	switch e.Role {
	case "", RoleLeader, RoleAcquirer, RoleRequester, RoleRenewer:
	default:
		return fmt.Errorf("unknown role %q (leader, acquirer, requester or renewer)", e.Role)
	}
	switch e.Target {
	case "", TargetAll, TargetFollowers:
	default:
		return fmt.Errorf("unknown target %q (all or followers)", e.Target)
	}
	if e.Record != nil && e.Kind != Overwrite {
		return errors.New("a record is written by an overwrite only")
	}
	switch e.Kind {
	case AnswerLost, AnswerFailed, Refused, AnswerDelayed, RequestDelayed, AnswerPause:
		if e.Role != "" && (!e.Role.byRequest() || e.Op != "" || e.Nth != 0) {
			return fmt.Errorf("an answer fault is aimed at a request by op and nth, or by the role acquirer, requester or renewer (role %q, op %q, nth %d)", e.Role, e.Op, e.Nth)
		}
	case PauseBefore, WriteDelayed:
		if e.Role != "" && (e.Role != RoleLeader || e.Nth != 0) {
			return fmt.Errorf("a fenced-write fault is aimed by nth or at the leader (role %q, nth %d)", e.Role, e.Nth)
		}
	case Pause, Partition:
	case Crash, Stop:
		if (e.Role != "" || e.Target != "") && e.For <= 0 {
			return errors.New("a crash or stop aimed at a role or a target needs for: how long until its restart")
		}
	case Restart:
		if e.Role != "" && e.Target == "" {
			return errors.New("a restart aimed at a role restarts the role's node: use a crash with for")
		}
	case DeleteLock, Overwrite, Restore, RestoreOwn:
		if e.Target != "" {
			return errors.New("a write of the lock object hits no node: no target")
		}
	default:
		if e.Role != "" || e.Target != "" {
			return errors.New("takes no role or target")
		}
	}
	if e.Target != "" && e.Kind.Aimed() {
		return errors.New("an aimed fault hits one node: no target")
	}
	return nil
}

// validateAdditions checks the plan's settings, initial object and
// applications.
func (p *Plan) validateAdditions(nodes int) error {
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
		seen[a.Node] = true
	}
	return nil
}
