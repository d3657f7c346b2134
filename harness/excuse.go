package harness

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Excuse is one way a run left its protocol's assumptions, and the part of
// the run it may therefore account for. A fault on a node (a clock drifting
// or offset beyond its bound, a wall-clock step beyond its bound, a pause
// longer than the bound, a stalled clock, an application that works on
// after its term) excuses overlaps of leaders involving that node, and
// writes it sent under a superseded token, from the fault until the
// node's term can have ended (a term after the fault, on a clock running
// slow, and its application's last action within the pause bound). A
// write to the lock object by someone else excuses, for a lease and a
// term, overlaps of any nodes; reused and decreasing tokens (and what
// follows from them: writes of two nodes under one token, writes under a
// superseded token) between a term whose acquisition read its content,
// directly or through records derived from it, and a term whose
// acquisition did not, until electors re-established the chain; and an
// entry below a predecessor's watermark when the watermark came to one of
// the two terms through records derived from it and not to the other, or
// the entry's term holds a token of the token space it spent (it may
// link to no previous term, and be handed no watermark) (lineage: the
// terms each write can reach). A torn read (S3 answered a
// read with the body of one version and the ETag of another) by a
// protocol that does not tolerate them excuses overlaps involving its
// reader, from the read's send until a lease and a term after its answer,
// and token violations as a foreign write does, by the lineage of what
// the reader was shown. A fault that defeats a node's monotonic clock (a stall, a drift beyond the
// bound) also excuses a term the node began late on a stale grant, after
// one with a higher token: the tokens in the lock object still increase,
// the order in which applications were told them does not; and, when the
// node begins a term while another node's term still runs (it took the
// lock early), overlaps involving that other node until its term ends or
// could have ended; and a term begun before the record in the lock object
// before the run could have run out, when it took over (directly, or
// through the records taken over in turn) that node's early record. A
// pause beyond the bound also excuses a term the node
// began late after one with a higher token: the protocol may begin a term
// in time and its application hear of it only when the process runs
// again.
// A wrong answer of a protocol to its application (AnswerCheck) is
// excused only by a fault on its node whose window covers the answer; a
// foreign write reaches a node so through a torn read of the node's that
// carries its version (written back byte for byte, its ETag comes back, and
// two tears alike look like a store whose ETags are not MD5s).
// Nothing excuses a stale write the fence accepted (its rule), nor an
// overlap once faults and the time they can affect are over.
type Excuse struct {
	// Fault is what happened.
	Fault sim.FaultSpan
	// Node is the node whose violations it excuses, or -1 for every node.
	Node int
	// From and To bound the interval it excuses.
	From, To time.Duration
	// Tokens: a foreign write's excuse of reused and decreasing tokens
	// between terms whose acquisitions read its content and other terms
	// (lineage), from the write (From) until electors re-established the
	// chain (To; the end of the run if they never did), and after that
	// for terms with tokens no elector reaches alone.
	Tokens bool
	// Clock: the fault defeats the node's monotonic clock (a stall, a drift
	// beyond the bound), by which a protocol tells a fresh grant from one
	// that sat in a buffer; so it also excuses a term the node began late,
	// on a stale grant, after a term with a higher token.
	Clock bool
	// Why says how the fault left the assumptions.
	Why string
	// Kind names the kind of fault, as summaries count excuses: the
	// plan's kind ("clock-drift", "delete-lock", "initial", ...),
	// "vm-suspend" for a suspended VM (a stalled clock, with or without
	// other pauses), "pause" for a node that did not run for longer than
	// the pause bound (its pauses merged); an excuse of a term another
	// node's early start cut into has the kind of that node's fault.
	Kind string
}

// String describes the excuse: the fault, why it is outside the
// assumptions, and what it covers.
func (e Excuse) String() string {
	who := "every node"
	if e.Node >= 0 {
		who = fmt.Sprintf("n%d", e.Node)
	}
	if e.Tokens {
		return fmt.Sprintf("%s; excuses token violations of the terms whose acquisitions read its content, from %v until electors re-established the chain at %v", e.Why, e.From, e.To)
	}
	return fmt.Sprintf("%s; excuses overlaps involving %s from %v to %v", e.Why, who, e.From, e.To)
}

// Excused is a violation that faults outside the assumptions account for:
// reported with its excuses (one, or several whose windows together cover
// an overlap), not counted against the protocol.
type Excused struct {
	linearizability.Violation
	Excuses []Excuse
}

// String renders the violation and its excuses.
func (x Excused) String() string {
	return x.Violation.String() + " [excused: " + x.Why() + "]"
}

// Why lists the excuses, separated by semicolons.
func (x Excused) Why() string {
	var b strings.Builder
	for i, e := range x.Excuses {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// RuleOutside is the rule of an overlap of leaders that a fault outside
// the assumptions accounts for, counted because the run was judged with
// Setup.FailOutside.
const RuleOutside = "outside-assumptions"

// FaultKinds names the kinds of fault of x's excuses (Excuse.Kind, or
// the fault's own kind where an excuse names none): one, or several
// sorted and joined by "+".
func (x Excused) FaultKinds() string {
	var kinds []string
	for _, e := range x.Excuses {
		kinds = append(kinds, cmp.Or(e.Kind, e.Fault.Kind))
	}
	slices.Sort(kinds)
	return strings.Join(slices.Compact(kinds), "+")
}

// longPauseKind is the kind of an excuse of a node that did not run for
// longer than the pause bound (Excuse.Kind).
const longPauseKind = "pause"

// pausedKind is the kind of a node's pauses merged into one
// (mergedPauses).
const pausedKind = "paused"

// pauseKinds are the faults during which a node's process does not run.
var pauseKinds = map[string]bool{
	string(faults.Pause): true, string(faults.AnswerPause): true,
	string(faults.PauseBefore): true, string(faults.ClockStall): true,
	// Not a pause of the process, but as long between the application's
	// check that it leads and its write: held against the same bound.
	"slow-work": true,
}

// excuses lists how run h of protocol p under plan left p's assumptions,
// from the faults as they happened, and traces the lineage of its terms
// from the foreign writes among them (nil if none).
func excuses(p Protocol, plan *faults.Plan, h *sim.History) ([]Excuse, *lineage) {
	a := p.Assumptions
	term := p.reach()
	var out []Excuse
	var foreign, torn []foreignWrite
	var spans []sim.FaultSpan
	add := func(f sim.FaultSpan, node int, from, to time.Duration, tokens bool, why string) {
		out = append(out, Excuse{Fault: f, Node: node, From: from, To: to, Tokens: tokens, Why: why, Kind: f.Kind})
	}
	kind := func(k string) { out[len(out)-1].Kind = k }
	clock := func() { out[len(out)-1].Clock = true }
	// A foreign write: its token excuse (To set once the lineage is
	// traced), and overlaps for a lease and a term.
	foreignWrote := func(f sim.FaultSpan, why string) {
		foreign = append(foreign, foreignWrite{excuse: len(out), at: f.From})
		spans = append(spans, f)
		add(f, -1, f.From, h.End, true, why)
		add(f, -1, f.From, f.From+a.Lease+term, false, why)
		for _, op := range tornWithForeign(h, f) {
			// The write's version in a tear: written back byte for byte,
			// it may make two tears alike, which a reader takes for an
			// object whose ETag is not its MD5, and believes. Its node's
			// answers too are then the write's doing.
			add(f, op.Node, op.Return, op.Return+a.Lease+term, false, fmt.Sprintf("S3 answered n%d's read sent at %v torn with the version someone else wrote at %v (%s)", op.Node, op.Call, f.From, f.Kind))
		}
	}
	for _, c := range plan.Clocks {
		until := c.DriftUntil.D()
		if until <= 0 {
			until = h.End
		}
		if abs(c.DriftPPM) > a.MaxDriftPPM {
			f := sim.FaultSpan{Kind: "clock-drift", Node: c.Node, From: 0, To: until, By: c.DriftPPM}
			add(f, c.Node, 0, until+term, false, fmt.Sprintf("n%d's clock drifts %d ppm until %v, beyond the assumed %d", c.Node, c.DriftPPM, until, a.MaxDriftPPM))
			clock()
		}
		if a.MaxOffset > 0 && abs(int64(c.Offset)) > int64(a.MaxOffset) {
			f := sim.FaultSpan{Kind: "clock-offset", Node: c.Node, From: 0, To: h.End, By: int64(c.Offset)}
			add(f, c.Node, 0, h.End, false, fmt.Sprintf("n%d's wall clock is %v off true time, beyond the assumed %v", c.Node, c.Offset, a.MaxOffset))
		}
	}
	for _, f := range h.Faults {
		switch f.Kind {
		case string(faults.ClockJump):
			if a.MaxWallStep > 0 && abs(f.By) > int64(a.MaxWallStep) {
				add(f, f.Node, f.From, f.From+a.Lease+term, false, fmt.Sprintf("n%d's wall clock steps by %v at %v, beyond the assumed %v", f.Node, time.Duration(f.By), f.From, a.MaxWallStep))
			}
		case string(faults.Linger):
			if !a.Linger {
				add(f, f.Node, f.From, f.To+term, false, fmt.Sprintf("n%d's application works on from %v to %v after its term", f.Node, f.From, f.To))
			}
		case faults.KindInitial:
			if !a.ForeignWrites && plan.Initial.Foreign() {
				foreignWrote(f, "someone else wrote the lock object before the run (initial)")
			}
		case string(faults.DeleteLock), string(faults.Overwrite), string(faults.Restore), string(faults.RestoreOwn):
			if !a.ForeignWrites {
				foreignWrote(f, fmt.Sprintf("someone else writes the lock object at %v (%s)", f.From, f.Kind))
			}
		case tornKind:
			if !a.TornReads {
				// What the reader acts on is content no version had: its
				// token excuse goes with the lineage, as a foreign
				// write's, and its overlaps for a lease and a term from
				// the answer, as it acts at once.
				why := fmt.Sprintf("S3 answered n%d's read sent at %v torn (the body of one version, the ETag of another)", f.Node, f.From)
				torn = append(torn, foreignWrite{excuse: len(out), op: tornOp(h, f), at: f.To, torn: true})
				add(f, f.Node, f.From, h.End, true, why)
				add(f, f.Node, f.From, f.To+a.Lease+term, false, why)
			}
		}
	}
	for _, m := range mergedPauses(h.Faults) {
		causes := m.Kind // "pause + answer-pause"
		m.Kind = pausedKind
		switch {
		case strings.Contains(causes, string(faults.ClockStall)) && !a.Stalls:
			add(m, m.Node, m.From, m.To+term, false, fmt.Sprintf("n%d's VM is suspended (its monotonic clock stalls) from %v to %v", m.Node, m.From, m.To))
			clock()
			kind("vm-suspend")
		case m.To-m.From > p.PauseBound(m.Node):
			add(m, m.Node, m.From, m.To+term, false, fmt.Sprintf("n%d does not run from %v to %v (%v, %s), beyond the assumed pause of %v",
				m.Node, m.From, m.To, m.To-m.From, causes, p.PauseBound(m.Node)))
			kind(longPauseKind)
		}
	}
	out = append(out, preempted(out, h, term)...)
	for k, op := range foreignOps(h, spans) {
		foreign[k].op = op
	}
	foreign = append(foreign, torn...)
	var initial uint64
	if o := plan.Initial; o != nil && o.Record != nil && !o.Foreign() && p.EncodeRecord != nil {
		initial = o.Record.Token
	}
	l := newLineage(h, foreign, initial)
	if l != nil {
		for _, f := range l.foreign {
			if f.reestablished >= 0 {
				out[f.excuse].To = f.reestablished
			}
		}
	}
	return out, l
}

// tornKind is the kind of a torn read's fault span.
var tornKind = sim.FaultTornRead.String()

// tornOp returns the index in h.S3 of the torn read f records: its node's
// GetObject sent at f.From and answered torn; -1 if none.
// tornWithForeign returns the torn reads of h (by the nodes, from f on)
// that carry the body or the ETag of the version that f, a write from
// outside the nodes, wrote.
func tornWithForeign(h *sim.History, f sim.FaultSpan) []*sim.S3Op {
	var etag string
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node < 0 && op.Op == "PutObject" && op.Call == f.From && op.BodyETag != "" {
			etag = op.BodyETag
		}
	}
	if etag == "" {
		return nil
	}
	var out []*sim.S3Op
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node >= 0 && op.TornBodyETag != "" && op.Return >= f.From &&
			(op.ETag == etag || op.TornBodyETag == etag) {
			out = append(out, op)
		}
	}
	return out
}

func tornOp(h *sim.History, f sim.FaultSpan) int {
	for i := range h.S3 {
		if op := &h.S3[i]; op.Node == f.Node && op.Call == f.From && op.TornBodyETag != "" {
			return i
		}
	}
	return -1
}

// reach is how long after a fault ends the node it struck may still lead:
// the rest of its term, at most Assumptions.Term (0: the lease) on a clock
// that runs slow by the drift bound (a stalled clock resumes where it
// stopped), and then its application's last action, which may come up to
// the pause bound (the longest of the nodes') after it checked, just
// before the deadline, that it leads.
func (p Protocol) reach() time.Duration {
	a := p.Assumptions
	term := a.Term
	if term <= 0 {
		term = a.Lease
	}
	if ppm := a.MaxDriftPPM; ppm > 0 && ppm < 1_000_000 {
		// term/(1-rho) = term + term*ppm/(1e6-ppm), rounded up.
		hi, lo := bits.Mul64(uint64(term), uint64(ppm))
		if d := uint64(1_000_000 - ppm); hi < d {
			q, r := bits.Div64(hi, lo, d)
			term += time.Duration(q + min(r, 1))
		}
	}
	pause := a.MaxPause
	for _, n := range p.Nodes {
		pause = max(pause, n.Assumptions.MaxPause)
	}
	return term + max(pause, 0)
}

// preempted returns the excuses of terms that a node whose clock left the
// assumptions (a drift beyond the bound, a stall: Excuse.Clock) cut into:
// when such a node begins a term while another node's term is still
// running, it took the lock early, as a clock within the bound would not
// have let it; what follows from that involves the other node too, whose
// term the lock object no longer holds (the early taker releases it, say,
// and a third node takes it at once). Each such term's node is excused,
// from the early term's start until its own term ended, or could have
// ended (a term after the early one began: the cut term's last renewal
// came before it), for overlaps with any node.
func preempted(xs []Excuse, h *sim.History, term time.Duration) []Excuse {
	var out []Excuse
	for _, e := range xs {
		if !e.Clock || e.Node < 0 {
			continue
		}
		for _, early := range h.Terms {
			if early.Node != e.Node || early.Start < e.From || early.Start >= e.To {
				continue
			}
			for _, cut := range h.Terms {
				if cut.Node == e.Node || cut.Start >= early.Start || cut.End <= early.Start {
					continue
				}
				to := min(cut.End, early.Start+term)
				out = append(out, Excuse{Fault: e.Fault, Node: cut.Node, From: early.Start, To: to, Kind: e.Kind,
					Why: fmt.Sprintf("n%d, its clock outside the assumptions, took the lock at %v while n%d's term (token %d) ran",
						e.Node, early.Start, cut.Node, cut.Token)})
			}
		}
	}
	return out
}

// mergedPauses joins each node's pauses (whatever caused them) that
// overlap or touch into one: the simulator runs them as one, and the pause
// bound is a bound on how long a node does not run.
func mergedPauses(fs []sim.FaultSpan) []sim.FaultSpan {
	var ps []sim.FaultSpan
	for _, f := range fs {
		if pauseKinds[f.Kind] {
			ps = append(ps, f)
		}
	}
	return sim.MergeSpans(ps)
}

// healedAt is when the run's faults really ended: the plan's heal, or the
// end of the last fault that outlasted it (an aimed pause that began just
// before the heal, a lingering application), or the answer of the last S3
// request that was in flight at the heal (sent into a slow S3 before it,
// answered after it): until its answer came, its node could not act on it.
func healedAt(plan *faults.Plan, h *sim.History) time.Duration {
	heal := plan.HealAt.D()
	at := heal
	for _, f := range h.Faults {
		at = max(at, f.To)
	}
	for _, op := range h.S3 {
		if op.Call < heal && op.Return > heal {
			at = max(at, op.Return)
		}
	}
	return at
}

// excusesFor returns the excuses that account for violation v, if any.
// An overlap is matched on its whole interval, which the excuses' windows
// must cover between them (a foreign write and then a pause of the same
// node, say): an overlap that lasts beyond the time its faults can affect
// is counted whole, and so is every overlap once faults and their effects
// are over (the healed phase). Writes under a superseded token are matched
// at their send. Token violations are matched by the lineage of the
// lock object's content (l, nil if the run had no foreign write): the
// foreign writes whose lineage separates the terms involved.
//
// staleGrant says that v, a monotonic-tokens violation, is a term begun
// with a token below one an earlier term had (not a token handed out
// twice): a fault on the late node's clock can account for that one.
func excusesFor(v linearizability.Violation, ov *linearizability.Overlap, staleGrant bool, xs []Excuse, l *lineage, h *sim.History) []Excuse {
	involves := func(e Excuse) bool {
		return e.Node < 0 || slices.Contains(v.Nodes, e.Node)
	}
	window := func() []Excuse {
		for _, e := range xs {
			if !e.Tokens && involves(e) && e.From <= v.At && v.At <= e.To {
				return []Excuse{e}
			}
		}
		return nil
	}
	byForeign := func(fs []int) []Excuse {
		var out []Excuse
		for _, f := range fs {
			out = append(out, xs[l.foreign[f].excuse])
		}
		return out
	}
	lineage := func(how int) []Excuse { return byForeign(l.excused(h, v, how)) }
	switch {
	case v.Checker == "overlap" && ov != nil:
		var ws []Excuse
		for _, e := range xs {
			if !e.Tokens && involves(e) && e.To > ov.From && e.From < ov.To {
				ws = append(ws, e)
			}
		}
		return covering(ws, ov.From, ov.To)
	case v.Checker == InitialRecordCheck && v.Rule == RuleInitialToken:
		return lineage(byTerm)
	case v.Checker == "fencing" && v.Rule == linearizability.RuleSuperseded,
		v.Checker == linearizability.LeaseCheckName:
		if es := window(); es != nil {
			return es
		}
		return lineage(byPair)
	case v.Checker == InitialRecordCheck:
		if es := window(); es != nil {
			return es
		}
		return takenFromEarly(v, xs, h)
	case v.Checker == AnswerCheck:
		// A protocol's answer, judged on its node's own clock against the
		// history's records: only a fault on that node can reach it.
		for _, e := range xs {
			if !e.Tokens && e.Node >= 0 && slices.Contains(v.Nodes, e.Node) && e.From <= v.At && v.At <= e.To {
				return []Excuse{e}
			}
		}
	case v.Checker == linearizability.WatermarkChecker:
		return byForeign(l.watermarkExcused(h, v))
	case v.Checker == "unique-holder" || v.Checker == "monotonic-tokens" ||
		v.Checker == "fencing" && v.Rule == linearizability.RuleSharedEpoch:
		if es := lineage(byPair); es != nil {
			return es
		}
		if v.Checker == "monotonic-tokens" && staleGrant {
			for _, e := range xs {
				if (e.Clock || e.Kind == longPauseKind) && involves(e) && e.From <= v.At && v.At <= e.To {
					return []Excuse{e}
				}
			}
		}
	}
	return nil
}

// covering returns excuses from ws whose windows together cover [from,
// to], in order, or nil if they leave a gap.
func covering(ws []Excuse, from, to time.Duration) []Excuse {
	slices.SortStableFunc(ws, func(a, b Excuse) int { return cmp.Compare(a.From, b.From) })
	var out []Excuse
	at := from
	for at < to {
		best := -1
		for i, e := range ws {
			if e.From <= at && e.To > at && (best < 0 || e.To > ws[best].To) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		out = append(out, ws[best])
		at = ws[best].To
	}
	return out
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// staleGrant reports whether a monotonic-tokens violation at v.At is a term
// begun with a token below one that an earlier term had, rather than a
// token handed out twice.
func staleGrant(v linearizability.Violation, h *sim.History) bool {
	if v.Checker != "monotonic-tokens" {
		return false
	}
	for _, t := range h.Terms {
		if t.Start < v.At && t.Token > v.Token {
			return true
		}
	}
	return false
}

// takenFromEarly returns the excuse of a clock fault (Excuse.Clock) on a
// node whose write the term of v, a violation of the record before the
// run, took over, directly or through the records taken over in turn: a
// node whose clock ran beyond its bound took the record early, and those
// after it began early too. Nil if there is none.
func takenFromEarly(v linearizability.Violation, xs []Excuse, h *sim.History) []Excuse {
	if len(v.Nodes) == 0 {
		return nil
	}
	// The acquisition of v's term: the node's last successful conditional
	// write sent by v.At.
	at := -1
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node == v.Nodes[0] && op.Op == "PutObject" && op.Status == 200 && op.Call <= v.At && op.IfMatch != "" {
			at = i
		}
	}
	for steps := 0; at >= 0 && steps < 16; steps++ {
		etag, before := h.S3[at].IfMatch, h.S3[at].Call
		at = -1
		for i := range h.S3 {
			if op := &h.S3[i]; op.Op == "PutObject" && op.Status == 200 && op.BodyETag == etag && op.Call < before {
				at = i
			}
		}
		if at < 0 || h.S3[at].Node < 0 {
			return nil
		}
		w := &h.S3[at]
		for _, e := range xs {
			if e.Clock && e.Node == w.Node && e.From <= w.Call && w.Call <= e.To {
				return []Excuse{e}
			}
		}
	}
	return nil
}
