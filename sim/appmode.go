package sim

import (
	"context"
	"time"
)

// AppMode is how a node's application decides that it may still act as
// leader before each guarded write.
type AppMode string

// The application modes.
const (
	// AppContext (the default, also ""): the application writes while the
	// context the protocol gave it is not done, and never asks the
	// protocol whether it still leads.
	AppContext AppMode = "context"
	// AppChecks: the application also asks the protocol (the lease check
	// the candidate reported with Env.ReportLease, protocol.Elector.Lease
	// for the elector) before each guarded write, and ends its term as
	// soon as the answer is no, or names another term.
	AppChecks AppMode = "checks"
	// AppPolls: the application relies on the lease check alone, as a
	// request handler that asks IsLeader before acting does: it ignores
	// the context and writes while the check says it leads, under the
	// term's token. Its term, as recorded, ends at the last instant it
	// acted on a yes (its last guarded write), since between writes it
	// does nothing.
	AppPolls AppMode = "polls"
)

// Valid reports whether m is a known mode ("" is AppContext).
func (m AppMode) Valid() bool { return m == "" || m == AppContext || m == AppChecks || m == AppPolls }

// LeaseCheck is a protocol's answer to "do I lead, and under which
// token?", as protocol.Elector.Lease gives it.
type LeaseCheck func() (token uint64, ok bool)

// SetApp sets how the node's application behaves from its next term on:
// its mode and how long each unit of work takes between its check that it
// leads and its guarded write, measured on the node's monotonic clock and
// not interrupted by the end of the term (work that is slow). Work counts
// against a protocol's pause bound: the check is stale by that much when
// the write leaves. A mode that needs a lease check falls back to
// AppContext when the candidate reported none.
func (n *Node) SetApp(mode AppMode, work time.Duration) {
	n.appMode, n.appWork = mode, work
}

// reportLease is Env.ReportLease for incarnation inc.
func (n *Node) reportLease(inc int) func(LeaseCheck) {
	return func(c LeaseCheck) {
		if n.incarnation == inc {
			n.leaseCheck = c
		}
	}
}

// Leading reports whether the node's application is in a term.
func (n *Node) Leading() bool {
	ts := n.w.history.Terms
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Open && ts[i].Node == n.Index {
			return true
		}
	}
	return false
}

// TermStart returns when the node's current term began, or -1 if it does
// not lead.
func (n *Node) TermStart() time.Duration {
	ts := n.w.history.Terms
	for i := len(ts) - 1; i >= 0; i-- {
		if ts[i].Open && ts[i].Node == n.Index {
			return ts[i].Start
		}
	}
	return -1
}

// FencedWrites returns how many fenced writes the node's applications have
// begun, over every incarnation: the next one is number FencedWrites()+1
// (PauseBeforeWrite, DelayWrite).
func (n *Node) FencedWrites() int { return n.writes }

// appCheck is what the application knew when it decided to write: the
// instant of its decision and, if it asked the lease check, that it did.
type appCheck struct {
	at      time.Duration
	checked bool
	// polls marks the write of an application that polls, in term (an
	// index in the history): its send is the term's last act so far.
	polls bool
	term  int
}

// askLease asks the node's lease check whether the term with token is
// still the node's, now.
func (n *Node) askLease(token uint64) bool {
	got, ok := n.leaseCheck()
	return ok && got == token
}

// leadChecking is the application of AppChecks and AppPolls, in term idx:
// before each guarded write it asks the lease check, and ends its term at
// the first no. With polls it ignores ctx, and the term, as recorded, ends
// at its last act (actedUntil).
func (w *World) leadChecking(ctx context.Context, t *task, n *Node, token uint64, idx int, polls bool) {
	wctx := ctx
	if polls {
		wctx = context.Background()
		if n.acted == nil {
			n.acted = map[int]time.Duration{}
		}
		n.acted[idx] = w.now
	}
	for polls || ctx.Err() == nil {
		if !n.askLease(token) {
			break
		}
		w.guardedWrite(wctx, t, n, token, appCheck{at: w.now, checked: true, polls: polls, term: idx})
		if err := t.wait(wctx, n.clock.after(w.now, w.cfg.WriteInterval)); err != nil {
			break
		}
	}
}

// actedUntil is when term idx of n ended as its application saw it, were
// it to end at end: for an application that polls, its last act (it does
// nothing between acts, waiting for a slow write included), else end.
func (w *World) actedUntil(n *Node, idx int, end time.Duration) time.Duration {
	a, ok := n.acted[idx]
	if !ok {
		return end
	}
	return max(min(a, end), w.history.Terms[idx].Start)
}

// appWorkFor is the application's work between its check and its write: d on the
// node's monotonic clock, which the end of the term does not interrupt.
func (w *World) appWorkFor(t *task, n *Node, d time.Duration) {
	if d > 0 {
		_ = t.wait(context.Background(), n.clock.after(w.now, d))
	}
}
