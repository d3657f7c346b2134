package faults

import (
	"errors"
	"fmt"
)

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
