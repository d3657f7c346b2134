package faults

import (
	"fmt"
	"strconv"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// leaderPoll is how often an event aimed at the leader looks again for one
// while no node leads.
const leaderPoll = 50 * time.Millisecond

// pending is an event with a Role that has not fired yet.
type pending struct {
	e     Event
	fired bool
}

// fits reports whether the event may still fire now: from its At on, and so
// that it is over by the heal.
func (pe *pending) fits(now, heal time.Duration) bool {
	return !pe.fired && now >= pe.e.At.D() && now+pe.e.For.D() <= heal && now < heal
}

// plays reports whether the request r, sent now, puts its node in role.
func plays(w *sim.World, role Role, r sim.Request) bool {
	switch role {
	case RoleRequester:
		return true
	case RoleAcquirer:
		return r.Write && !w.Node(r.Node).Leading()
	case RoleRenewer:
		return r.Write && w.Node(r.Node).Leading()
	}
	return false
}

// roleFault fires the pending events whose role request r plays: answer
// faults become the request's fault; other events act on r's node now, or,
// for the renewer, as the request reaches S3.
func (in *injector) roleFault(w *sim.World, r sim.Request, f *sim.RequestFault) (aimed bool) {
	now := w.Now()
	for _, pe := range in.byRequest {
		if !pe.fits(now, in.heal) || !plays(w, pe.e.Role, r) || !in.ready(w, pe.e, r) {
			continue
		}
		if pe.e.Kind.Aimed() {
			if aimed {
				continue // one answer fault per request; the next request may take it
			}
			pe.fired, aimed = true, true
			in.answerFault(pe.e, f)
			in.fire(w, pe.e, r.Node, "")
			continue
		}
		pe.fired = true
		e, node := pe.e, r.Node
		act := func() { in.act(w, e, node) }
		if e.Role == RoleRenewer {
			prev := f.Landing
			f.Landing = func() {
				if prev != nil {
					prev()
				}
				act()
			}
		} else {
			w.At(now, -1, act)
		}
	}
	return aimed
}

// answerFault sets the fault of an answer-* or refused event.
func (in *injector) answerFault(e Event, f *sim.RequestFault) {
	switch e.Kind {
	case AnswerLost:
		f.Fate = sim.Lost
	case AnswerFailed:
		f.Fate, f.Err = sim.FailedAfter, codes[e.Code]
	case Refused:
		f.Fate, f.Err = sim.RefusedBefore, in.refusal(e.Code)
	case AnswerDelayed:
		f.ExtraResponse, f.Kind = e.By.D(), sim.FaultAnswerDelayed
	case RequestDelayed:
		f.ExtraRequest, f.Kind = e.By.D(), sim.FaultRequestDelayed
	case AnswerPause:
		f.PauseOnAnswer = e.For.D()
	}
}

// fire notes in the trace that an event aimed at a role found its node.
func (in *injector) fire(w *sim.World, e Event, node int, what string) {
	who := "n" + strconv.Itoa(node)
	if node < 0 {
		who = "the lock object"
	}
	if what == "" {
		what = string(e.Kind)
	}
	w.FaultEvent(node, sim.FaultAimed, 0, fmt.Sprintf("%s aimed at the %s: %s", what, e.Role, who))
}

// watchLeader makes the timed event e, aimed at the leader, fire at the
// first moment from At on when a node leads.
func (in *injector) watchLeader(w *sim.World, e Event) {
	var look func()
	look = func() {
		now := w.Now()
		if now >= in.heal || now+e.For.D() > in.heal {
			return
		}
		node := leader(w)
		if node < 0 {
			w.At(now+leaderPoll, -1, look)
			return
		}
		in.act(w, e, node)
	}
	w.At(e.At.D(), -1, look)
}

// leader returns the node whose current term began last, or -1 if no node
// leads.
func leader(w *sim.World) int {
	best, start := -1, time.Duration(-1)
	for i := range w.Nodes() {
		n := w.Node(i)
		if !n.Leading() {
			continue
		}
		if s := n.TermStart(); s > start {
			best, start = i, s
		}
	}
	return best
}

// targets returns the nodes an event hits when it fires, role's node
// being node (-1 if it has none).
func targets(w *sim.World, e Event, node int) []int {
	switch e.Target {
	case TargetAll:
		out := make([]int, w.Nodes())
		for i := range out {
			out[i] = i
		}
		return out
	case TargetFollowers:
		var out []int
		for i := range w.Nodes() {
			if !w.Node(i).Leading() {
				out = append(out, i)
			}
		}
		return out
	}
	if node < 0 {
		node = e.Node
	}
	return []int{node}
}

// identityFor is the identity a node restarted by an event with a role or
// a target takes: its default name with e.Identity as a suffix, or its
// default name if e.Identity is empty.
func identityFor(w *sim.World, e Event, node int) string {
	if e.Identity == "" {
		return ""
	}
	return w.Node(node).DefaultIdentity() + e.Identity
}

// act carries out an event with a role or a target now, role's node being
// node (-1 if none).
func (in *injector) act(w *sim.World, e Event, node int) {
	if e.Kind == RestoreOwn {
		in.restoreOwn(w, e, node)
		return
	}
	now := w.Now()
	if e.Role != "" && !e.Kind.Aimed() {
		switch e.Kind {
		case DeleteLock, Overwrite, Restore:
			in.fire(w, e, -1, "")
		default:
			switch e.Target {
			case "":
				in.fire(w, e, node, "")
			case TargetAll:
				in.fire(w, e, node, string(e.Kind)+" of every node")
			default:
				in.fire(w, e, node, string(e.Kind)+" of the "+string(e.Target))
			}
		}
	}
	switch e.Kind {
	case DeleteLock:
		foreignWrite(w, nil)
		return
	case Overwrite:
		foreignWrite(w, in.bodyOf(e))
		return
	case Restore:
		in.restore(w, e.For.D())
		return
	case PauseBefore:
		n := w.Node(node)
		n.PauseBeforeWrite(n.FencedWrites()+1, e.For.D())
		in.fire(w, e, node, "")
		return
	case WriteDelayed:
		n := w.Node(node)
		n.DelayWrite(n.FencedWrites()+1, e.By.D())
		in.fire(w, e, node, "")
		return
	}
	for _, i := range targets(w, e, node) {
		n := w.Node(i)
		switch e.Kind {
		case Pause:
			n.PauseFor(sim.FaultPause, e.For.D())
		case Partition:
			in.windows = append(in.windows, window{node: i, from: now, to: now + e.For.D(), blackhole: e.Blackhole, denied: e.Denied})
			w.Fault(sim.FaultPartition, sim.FaultSpan{Node: i, From: now, To: now + e.For.D()}, partitionText(e))
		case Crash, Stop, Restart:
			w.RecordFault(sim.FaultSpan{Kind: string(e.Kind), Node: i, From: now, To: now})
			switch e.Kind {
			case Crash:
				n.Crash()
			case Stop:
				n.Stop()
			default:
				n.Restart(identityFor(w, e, i))
				continue
			}
			if e.For > 0 {
				at, i := now+e.For.D(), i
				w.At(at, -1, func() {
					w.RecordFault(sim.FaultSpan{Kind: string(Restart), Node: i, From: at, To: at})
					w.Node(i).Restart(identityFor(w, e, i))
				})
			}
		}
	}
}
