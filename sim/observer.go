package sim

import (
	"strconv"
	"strings"
	"time"
)

// Observer is what a protocol tells its application and its operators
// when they ask who leads: protocol.Elector's IsLeader, Lease, Leader and
// Healthy. A candidate hands it to the simulator with Env.ReportObserver;
// a question whose function is nil is not asked.
type Observer struct {
	IsLeader func() bool
	// Lease is the current term's token, if the node leads.
	Lease   func() (token uint64, ok bool)
	Leader  func() LeaderView
	Healthy func(tolerance time.Duration) error
}

// LeaderView is who leads as a node last observed it
// (protocol.LeaderInfo): the holder and token of the record it observed
// ("" and 0: no live holder), whether it leads itself, whether it observed
// anything yet, and how long ago on its monotonic clock.
type LeaderView struct {
	Identity string
	Token    uint64
	Self     bool
	Observed bool
	Age      time.Duration
}

// Ask is a question an application or an operator asks a node's protocol
// (Observer), or, AskNewLeader, what the protocol told the application
// unasked (its OnNewLeader callback).
type Ask string

// The questions.
const (
	AskIsLeader  Ask = "is-leader"
	AskLease     Ask = "lease"
	AskLeader    Ask = "leader"
	AskHealthy   Ask = "healthy"
	AskNewLeader Ask = "new-leader"
)

// Valid reports whether a is a question a Caller can ask (every Ask but
// AskNewLeader, which no one asks).
func (a Ask) Valid() bool {
	return a == AskIsLeader || a == AskLease || a == AskLeader || a == AskHealthy
}

// Caller is an application or an operator that asks a node's protocol
// one question (Ask): every Every of true time from From on, until the
// run ends, and, if Aim is positive, also Aim after the send of each of
// the node's PutObject requests that S3 answered with success, on the
// node's monotonic clock (from the first attempt's send, if the SDK
// retried it). With Aim the term length of a protocol whose term lasts
// that long after its last successful write, these calls come at the
// instant a term that no renewal extends ends: the answer there must be
// no, whether or not the protocol's own timer fired first. Tolerance is
// Healthy's.
type Caller struct {
	Ask       Ask
	From      time.Duration
	Every     time.Duration
	Aim       time.Duration
	Tolerance time.Duration
}

// AddCaller has c ask the node's protocol, over every incarnation; each
// answer is recorded in the history (History.Answers) and the trace. It
// may be called before the run starts only. A node that is down, or whose
// protocol reported no Observer (or none for c.Ask), is not asked.
func (n *Node) AddCaller(c Caller) {
	if c.Every > 0 {
		var next func()
		at := max(c.From, 0)
		next = func() {
			n.ask(c, false)
			at += c.Every
			n.w.At(at, n.Index, next)
		}
		n.w.At(at, n.Index, next)
	}
	if c.Aim > 0 {
		n.aimed = append(n.aimed, c)
	}
}

// reportObserver is Env.ReportObserver for incarnation inc.
func (n *Node) reportObserver(inc int) func(Observer) {
	return func(o Observer) {
		if n.incarnation == inc {
			n.observer = o
		}
	}
}

// newLeader is Env.NewLeader for incarnation inc.
func (n *Node) newLeader(inc int) func(string) {
	return func(identity string) {
		if n.incarnation == inc && n.up {
			n.answer(Answer{Ask: AskNewLeader, Holder: identity}, []byte(identity))
		}
	}
}

// aimAt schedules the aimed callers' questions after the node's PutObject
// op (an index in the history) was answered with success.
func (n *Node) aimAt(op int) {
	if len(n.aimed) == 0 {
		return
	}
	w := n.w
	ops := w.history.S3
	sent := ops[op].Call
	for i := op - 1; i >= 0 && ops[op].BodyETag != ""; i-- {
		if o := &ops[i]; o.Node == n.Index && o.Op == ops[op].Op && o.BodyETag == ops[op].BodyETag {
			sent = o.Call // an earlier attempt of the same write
		}
	}
	elapsed := n.clock.mono(w.now) - n.clock.mono(sent)
	for _, c := range n.aimed {
		at := n.clock.after(w.now, c.Aim-elapsed)
		w.At(at, n.Index, func() { n.ask(c, true) })
	}
}

// ask has the node's protocol answer c's question now, if it can.
func (n *Node) ask(c Caller, aimed bool) {
	o := n.observer
	if !n.up {
		return
	}
	a := Answer{Ask: c.Ask, Aimed: aimed}
	var buf [96]byte
	text := buf[:0]
	switch c.Ask {
	case AskIsLeader:
		if o.IsLeader == nil {
			return
		}
		a.Yes = o.IsLeader()
		text = append(text, yesNo(a.Yes)...)
	case AskLease:
		if o.Lease == nil {
			return
		}
		a.Token, a.Yes = o.Lease()
		if !a.Yes {
			a.Token = 0
		}
		text = append(text, yesNo(a.Yes)...)
	case AskLeader:
		if o.Leader == nil {
			return
		}
		v := o.Leader()
		a.Holder, a.Token, a.Yes, a.Observed, a.Age = v.Identity, v.Token, v.Self, v.Observed, v.Age
		if !v.Observed {
			text = append(text, "nothing observed"...)
			break
		}
		text = strconv.AppendQuote(text, v.Identity)
		text = append(text, ", self "...)
		text = strconv.AppendBool(text, v.Self)
		text = append(text, ", observed "...)
		text = append(text, v.Age.String()...)
		text = append(text, " ago"...)
	case AskHealthy:
		if o.Healthy == nil {
			return
		}
		a.Tolerance = c.Tolerance
		err := o.Healthy(c.Tolerance)
		a.Yes = err == nil
		if err != nil {
			a.Problem = err.Error()
			text = append(text, a.Problem...)
			break
		}
		text = append(text, "healthy within "...)
		text = append(text, c.Tolerance.String()...)
	default:
		return
	}
	n.answer(a, text)
}

// answer records a, the node's answer now, in the history and the trace.
func (n *Node) answer(a Answer, text []byte) {
	w := n.w
	a.Node, a.Incarnation, a.At, a.Local = n.Index, n.incarnation, w.now, n.clock.mono(w.now)
	w.history.Answers = append(w.history.Answers, a)
	e := n.event(EvAnswer)
	var d strings.Builder // the detail in one allocation
	d.Grow(len(a.Ask) + 2 + len(text) + len(" (aimed)"))
	d.WriteString(string(a.Ask))
	d.WriteString(": ")
	d.Write(text)
	if a.Aimed {
		d.WriteString(" (aimed)")
	}
	e.Token, e.Detail = a.Token, d.String()
	w.trace.add(e)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
