package sim

import (
	"context"
	"time"
)

// Fence is the judge inside the fenced resource: it admits a write carrying
// token, or refuses it as stale. protocol.Fence is the implementation users
// ship; broken variants plug in here.
type Fence interface {
	Admit(token uint64) error
}

// fenceSide is the fenced resource that leaders write to: a remote service
// with its own latency that judges each write with a Fence at the instant it
// arrives.
type fenceSide struct {
	request, response Latency
	calls             uint64
	judge             Fence
}

// lead is the application every node runs while its protocol says it leads:
// it records the term and writes to the fenced resource under the token,
// every WriteInterval, until ctx is done.
func (w *World) lead(ctx context.Context, n *Node, token uint64) {
	t := w.mustCurrent("Lead")
	idx := len(w.history.Terms)
	w.history.Terms = append(w.history.Terms, Term{
		Node: n.Index, Identity: n.identity, Incarnation: n.incarnation,
		Token: token, Start: w.now, Open: true,
	})
	e := n.event(EvLead)
	e.Token, e.Detail = token, n.identity
	w.trace.add(e)
	defer func() {
		w.endTerm(n, idx)
		w.live.beat()
	}()
	mode := n.appMode
	if n.leaseCheck == nil {
		mode = AppContext
	}
	switch mode {
	case AppPolls:
		w.leadChecking(ctx, t, n, token, idx, true)
		return
	case AppChecks:
		w.leadChecking(ctx, t, n, token, idx, false)
	default:
		for ctx.Err() == nil {
			w.guardedWrite(ctx, t, n, token, appCheck{at: w.now})
			if err := t.wait(ctx, n.clock.after(w.now, w.cfg.WriteInterval)); err != nil {
				break
			}
		}
	}
	if n.linger > 0 {
		// An application that does not stop when told: it goes on writing
		// under its old token for a while.
		until := n.clock.after(w.now, n.linger)
		if w.healAt > 0 && w.now < w.healAt {
			until = min(until, w.healAt) // lingering ends at the heal, like every fault
		}
		fi := len(w.history.Faults)
		w.RecordFault(FaultSpan{Kind: FaultLinger.String(), Node: n.Index, From: w.now, To: until, By: int64(n.linger)})
		e := n.event(EvFault)
		e.Token, e.Detail, e.Fault, e.For = token, "application ignores the end of its term for "+n.linger.String(), FaultLinger, until-w.now
		w.trace.add(e)
		// It waits for nothing, not even the end of a write it sent (which
		// a delay may hold up), except the heal: then it stops.
		lctx := context.Background()
		if w.healAt > 0 && w.now < w.healAt {
			c, stop := context.WithCancel(lctx)
			defer stop()
			w.At(w.healAt, -1, stop)
			lctx = c
		}
		for w.now < until && lctx.Err() == nil {
			w.guardedWrite(lctx, t, n, token, appCheck{at: w.now})
			_ = t.wait(lctx, n.clock.after(w.now, w.cfg.WriteInterval))
		}
		w.history.Faults[fi].To = w.now // as long as it really worked on
	}
}

// guardedWrite is one step of the application's work: it has just checked
// that it leads (its context was not done, and the lease check said yes if
// c.checked); it works (SetApp) and writes under token. A pause planned for
// this write falls between the check and the write, and the write is sent
// after the work and the pause whatever happened meanwhile, as a real
// process would send it: the check was already made. It returns the
// instant the write was sent.
func (w *World) guardedWrite(ctx context.Context, t *task, n *Node, token uint64, c appCheck) time.Duration {
	n.writes++
	// How stale the check is when the write leaves, for an application
	// whose work is slow: judged with the node's pauses against the pause
	// bound. Recorded from the check, and ended as the write leaves or, if
	// a crash or the end of the run cuts the work short, there.
	work, left := -1, false
	if n.appWork > 0 {
		work = len(w.history.Faults)
		w.RecordFault(FaultSpan{Kind: "slow-work", Node: n.Index, From: c.at, To: c.at, By: int64(n.appWork)})
		defer func() {
			if !left {
				w.history.Faults[work].To = w.now
			}
		}()
		w.appWorkFor(t, n, n.appWork)
	}
	if d := n.pauseBeforeWrite[n.writes]; d > 0 {
		d = w.untilHeal(d)
		e := n.event(EvFault)
		e.Token, e.Detail, e.Fault, e.For = token, "pause between lease check and guarded write", FaultPauseBeforeWrite, d
		w.trace.add(e)
		n.PauseFor(FaultPauseBeforeWrite, d)
		_ = t.wait(context.Background(), w.now)
	}
	sent := w.now
	if work >= 0 {
		w.history.Faults[work].To, left = sent, true
	}
	if c.polls {
		n.acted[c.term] = sent
	}
	w.fenceWrite(ctx, t, n, token, n.delayWrite[n.writes], c)
	return sent
}

// endTerm closes term idx at the current instant, unless it was closed
// already (by a crash) or the run is over (open terms stay open).
func (w *World) endTerm(n *Node, idx int) {
	w.live.check()
	term := &w.history.Terms[idx]
	if !term.Open || w.stopping {
		return
	}
	term.Open = false
	term.End, term.Returned = w.actedUntil(n, idx, w.now), w.now
	e := n.event(EvUnlead)
	e.Token = term.Token
	w.trace.add(e)
}

// closeTerms ends every open term of node n at the current instant: the
// node's process died.
func (w *World) closeTerms(n *Node) {
	for i := range w.history.Terms {
		if term := &w.history.Terms[i]; term.Open && term.Node == n.Index {
			w.endTerm(n, i)
		}
	}
}

// fenceWrite sends one write under token to the fenced resource and waits
// for the answer or for ctx to end. The write is judged when it arrives,
// whatever the sender does meanwhile.
func (w *World) fenceWrite(ctx context.Context, t *task, n *Node, token uint64, delay time.Duration, c appCheck) {
	w.fence.calls++
	id := w.fence.calls
	e := n.event(EvFenceSend)
	e.Call, e.Token = id, token
	if delay > 0 {
		e.Detail, e.Fault, e.For = "delayed by "+delay.String(), FaultWriteDelayed, delay
	}
	w.trace.add(e)
	sent := w.now
	applyAt := w.now + w.fence.request.Sample(w.chooser) + delay
	respond := w.fence.response.Sample(w.chooser)
	ev := w.newEvent()
	ev.at, ev.kind, ev.node = max(applyAt, w.now), evFence, -1
	ev.fence = fenceLanding{node: n.Index, token: token, id: id, sent: sent, check: c}
	w.schedule(ev)
	_ = t.wait(ctx, applyAt+respond)
}

// fenceLanding is a fenced write on its way to the resource.
type fenceLanding struct {
	node  int
	token uint64
	id    uint64
	sent  time.Duration
	check appCheck // what the application asked before it wrote
}

// fenceApply is the resource judging write f at the current instant.
func (w *World) fenceApply(f fenceLanding) {
	if w.por != nil {
		w.por.por.touch(access{kind: accFence, write: true})
	}
	accepted := w.fence.judge.Admit(f.token) == nil
	a := Event{At: w.now, Node: -1, Local: w.now + w.s3.clock, Kind: EvFenceApply, Call: f.id, Token: f.token, Status: 200, Code: "accepted"}
	if !accepted {
		a.Status, a.Code = 409, "stale"
	}
	// The trace first: it refuses the event if the judge blocked and the
	// run was abandoned meanwhile.
	w.trace.add(a)
	if cap(w.history.Writes) == 0 {
		// A leader writes every WriteInterval: a good first guess saves
		// the slice's growth.
		w.history.Writes = make([]FencedWrite, 0, 16+int(w.cfg.Duration/w.cfg.WriteInterval))
	}
	fw := FencedWrite{Node: f.node, Token: f.token, Sent: f.sent, Applied: w.now, Accepted: accepted}
	if f.check.checked {
		fw.Checked, fw.CheckedAt = true, f.check.at
	}
	w.history.Writes = append(w.history.Writes, fw)
}
