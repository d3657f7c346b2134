package faults

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Apply validates the plan against cfg and arranges for the run to suffer
// it: the lock object's initial content, the nodes' applications, clock
// settings, timed events, aimed faults and knobs. It keeps any Setup cfg
// already has, running it first. Records (Plan.Initial, overwrites) are
// written in the generic format of EncodeRecord; ApplyEncoded writes them
// in a protocol's own.
func Apply(p *Plan, cfg *sim.Config) error { return ApplyEncoded(p, cfg, nil) }

// RecordEncoder writes a Record in a protocol's own format. It must be a
// pure function of the record: the same Record, the same bytes.
type RecordEncoder func(Record) []byte

// ApplyEncoded is Apply with the records of the plan written by enc (nil:
// EncodeRecord).
func ApplyEncoded(p *Plan, cfg *sim.Config, enc RecordEncoder) error {
	if err := p.Validate(cfg.Nodes, cfg.Duration); err != nil {
		return err
	}
	if p.SDKAttempts > 0 {
		cfg.S3Attempts = p.SDKAttempts
	}
	if p.ErrorPages != "" {
		cfg.ErrorPages, _ = p.errorPages() // valid: Validate checked it
	}
	cfg.OpaqueETags = cfg.OpaqueETags || p.S3.OpaqueETags
	if p.Names != nil {
		cfg.Identities = slices.Clone(p.Names)
	}
	if enc == nil {
		enc = EncodeRecord
	}
	prev := cfg.Setup
	plan := *p
	reqMax := cfg.S3Request.Max
	cfg.Setup = func(w *sim.World) {
		if prev != nil {
			prev(w)
		}
		install(&plan, w, enc, reqMax)
	}
	return nil
}

// EncodeRecord is the generic form of a record, for a protocol that gives
// no encoder of its own: {"holder", "token", "nonce", "leaseMs",
// "released"}, the nonce derived from the other fields, a lease of 0 left
// out.
func EncodeRecord(r Record) []byte {
	b, err := json.Marshal(struct {
		Holder   string `json:"holder"`
		Token    uint64 `json:"token"`
		Nonce    string `json:"nonce"`
		LeaseMS  int64  `json:"leaseMs,omitempty"`
		Released bool   `json:"released,omitempty"`
	}{r.Holder, r.Token, r.Nonce(), r.Lease.D().Milliseconds(), r.Released})
	if err != nil {
		panic("faults: encode record: " + err.Error()) // plain fields always encode
	}
	return b
}

// Nonce is 16 lowercase hex digits derived from the record's fields, so
// that a record written twice is the same bytes, and two records differ.
// (A record without a watermark, updates or link has the nonce it had
// before records carried them.)
func (r Record) Nonce() string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%t", r.Holder, r.Token, r.Lease, r.Released)
	if !r.Watermark.IsZero() || r.Updates != "" || r.Previous != nil {
		fmt.Fprintf(h, "\x00%d\x00%s", r.Watermark.UnixNano(), r.Updates)
		if p := r.Previous; p != nil {
			fmt.Fprintf(h, "\x00%s", p.Nonce())
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// ClockModels returns the nodes' clock models with the plan's clock
// settings (offset, drift) over base, one per node of base: the clocks a
// run of the plan has, for the simulator and for the checkers that convert
// a node's waits to true time.
func (p *Plan) ClockModels(base []sim.ClockModel) []sim.ClockModel {
	out := slices.Clone(base)
	for _, c := range p.Clocks {
		if c.Node >= 0 && c.Node < len(out) {
			out[c.Node].Offset, out[c.Node].DriftPPM, out[c.Node].DriftUntil = c.Offset.D(), c.DriftPPM, c.DriftUntil.D()
		}
	}
	return out
}

// install schedules the plan on a world that has not started.
func install(p *Plan, w *sim.World, enc RecordEncoder, reqMax time.Duration) {
	clocks := make([]sim.ClockModel, w.Nodes())
	touched := make([]bool, w.Nodes())
	for i := range clocks {
		clocks[i] = w.Node(i).ClockModel()
	}
	clocks = p.ClockModels(clocks)
	for _, c := range p.Clocks {
		touched[c.Node] = true
	}
	in := newInjector(p)
	in.enc = enc
	in.lateFrom = p.HealAt.D() - in.latest(p, reqMax)
	if o := p.Initial; o != nil {
		in.writeInitial(w, o)
	}
	for _, a := range p.Apps {
		w.Node(a.Node).SetApp(a.Mode, a.Work.D())
		for _, c := range a.Callers {
			w.Node(a.Node).AddCaller(c.sim())
		}
	}
	events := append([]Event(nil), p.Events...)
	sort.SliceStable(events, func(i, j int) bool { return events[i].At < events[j].At })
	for _, e := range events {
		n := w.Node(e.Node)
		at := e.At.D()
		switch {
		case e.Role.byRequest():
			in.byRequest = append(in.byRequest, &pending{e: e})
			continue
		case e.Role == RoleLeader:
			in.watchLeader(w, e)
			continue
		case e.Target != "" || e.Kind == Crash && e.For > 0 || e.Kind == Stop && e.For > 0:
			w.At(at, -1, func() { in.act(w, e, -1) })
			continue
		}
		switch e.Kind {
		case Pause:
			w.At(at, -1, func() { n.PauseFor(sim.FaultPause, e.For.D()) })
		case Crash, Restart, Stop:
			w.At(at, -1, func() {
				w.RecordFault(sim.FaultSpan{Kind: string(e.Kind), Node: e.Node, From: at, To: at})
				switch e.Kind {
				case Crash:
					n.Crash()
				case Restart:
					n.Restart(e.Identity)
				default:
					n.Stop()
				}
			})
		case ClockJump:
			clocks[e.Node].Jumps = append(clocks[e.Node].Jumps, sim.ClockJump{At: at, By: e.By.D()})
			touched[e.Node] = true
			w.At(at, -1, func() {
				w.Fault(sim.FaultClockJump, sim.FaultSpan{Node: e.Node, From: at, To: at, By: int64(e.By)}, fmt.Sprintf("wall clock steps by %v", e.By))
			})
		case ClockStall:
			// A suspended VM: the process does not run, the monotonic clock
			// stands still, and on resume the wall clock is set right, jumping
			// forward by the time lost.
			clocks[e.Node].Stalls = append(clocks[e.Node].Stalls, sim.ClockStall{At: at, For: e.For.D()})
			clocks[e.Node].Jumps = append(clocks[e.Node].Jumps, sim.ClockJump{At: at + e.For.D(), By: e.For.D()})
			touched[e.Node] = true
			w.At(at, -1, func() {
				w.FaultEvent(e.Node, sim.FaultClockStall, e.For.D(), fmt.Sprintf("VM suspended for %v: monotonic clock stops", e.For))
				n.PauseFor(sim.FaultClockStall, e.For.D())
			})
		case Partition:
			in.windows = append(in.windows, window{node: e.Node, from: at, to: at + e.For.D(), blackhole: e.Blackhole, denied: e.Denied})
			w.At(at, -1, func() {
				w.Fault(sim.FaultPartition, sim.FaultSpan{Node: e.Node, From: at, To: at + e.For.D()}, partitionText(e))
			})
		case SlowS3:
			in.windows = append(in.windows, window{node: -1, from: at, to: at + e.For.D(), extra: e.By.D()})
			w.At(at, -1, func() {
				w.Fault(sim.FaultSlowS3, sim.FaultSpan{Node: -1, From: at, To: at + e.For.D(), By: int64(e.By)}, fmt.Sprintf("S3 answers %v slower on each leg for %v", e.By, e.For))
			})
		case DeleteLock:
			w.At(at, -1, func() { foreignWrite(w, nil) })
		case Overwrite:
			body := in.bodyOf(e)
			w.At(at, -1, func() { foreignWrite(w, body) })
		case Restore:
			w.At(at, -1, func() { in.restore(w, e.For.D()) })
		case Linger:
			w.At(at, -1, func() { n.SetLinger(e.By.D()) })
			w.At(p.HealAt.D(), -1, func() { n.SetLinger(0) })
		case PauseBefore:
			n.PauseBeforeWrite(e.Nth, e.For.D())
		case WriteDelayed:
			n.DelayWrite(e.Nth, e.By.D())
		default: // the other aimed kinds act through the injector
			in.aim(e)
		}
	}
	// At the heal, aimed faults on fenced writes that have not fired are
	// called off, like every other fault, and aimed pauses that are under
	// way when it comes end there.
	w.SetHealAt(p.HealAt.D())
	w.At(p.HealAt.D(), -1, func() {
		for i := range w.Nodes() {
			w.Node(i).ClearWriteFaults()
		}
	})
	for i, m := range clocks {
		if touched[i] {
			_ = w.Node(i).SetClock(m)
		}
	}
	recordClocks(w, p.Clocks)
	w.SetFaults(in)
}

// writeInitial writes the object o describes before any node starts: the
// first of the S3 history's requests.
func (in *injector) writeInitial(w *sim.World, o *Object) {
	body := in.objectBody(o)
	_ = w.OutsideWrite(body)
	how := "holds " + quoteBody(body)
	if o.Foreign() {
		how += ", which no elector wrote"
	}
	w.Fault(sim.FaultInitial, sim.FaultSpan{Node: -1}, "before the run, the lock object "+how)
}

// recordClocks notes in the trace, before the nodes start, each clock the
// plan sets off true time: its offset, and its drift for how long it lasts
// (For 0: the whole run).
func recordClocks(w *sim.World, cs []ClockSetting) {
	for _, c := range cs {
		if c.Offset != 0 {
			w.FaultEvent(c.Node, sim.FaultClockOffset, c.Offset.D(), fmt.Sprintf("wall clock starts %v off true time", c.Offset))
		}
		if c.DriftPPM != 0 {
			until := "to the end"
			if c.DriftUntil > 0 {
				until = "until " + c.DriftUntil.String()
			}
			w.FaultEvent(c.Node, sim.FaultClockDrift, c.DriftUntil.D(), fmt.Sprintf("clocks run %+d ppm off true time %s", c.DriftPPM, until))
		}
	}
}

// foreignWrite is someone other than the electors writing the lock object:
// a delete if body is nil, else an unconditional overwrite.
func foreignWrite(w *sim.World, body []byte) {
	foreignWriteAs(w, body, sim.FaultOverwrite, "overwrites")
}

// foreignWriteAs is foreignWrite recorded as a fault of kind (an overwrite
// or a restore).
func foreignWriteAs(w *sim.World, body []byte, kind sim.FaultKind, verb string) {
	err := w.OutsideWrite(body)
	now := w.Now()
	if body == nil {
		w.Fault(sim.FaultDeleteLock, sim.FaultSpan{Node: -1, From: now, To: now}, fmt.Sprintf("someone else deletes the lock object (%v)", errText(err)))
		return
	}
	w.Fault(kind, sim.FaultSpan{Node: -1, From: now, To: now}, fmt.Sprintf("someone else %s the lock object with %q (%v)", verb, body, errText(err)))
}

// KindInitial is the kind of the fault span that records the lock object's
// content before the run (Plan.Initial), at time 0.
const KindInitial = "initial"

// KindLandedAfterHeal is the kind of the fault span that records a write
// sent before the heal that reached S3 after it (From its send, To its
// landing): until it landed, the faults that delayed it were not over.
const KindLandedAfterHeal = "landed-after-heal"

// objectBody is the bytes of an object of the plan.
func (in *injector) objectBody(o *Object) []byte {
	if o.Record != nil {
		body := Edit(Respell(in.enc(*o.Record), o.Spelling), o.Edit)
		if o.Size != 0 {
			body, _ = Pad(body, o.Size) // a body that cannot be padded is written as it is
		}
		return body
	}
	return []byte(o.Body)
}

// quoteBody quotes body for the trace: whole, or if it is long its head
// and tail and its length (a padded record takes 64 KiB).
func quoteBody(body []byte) string {
	const most = 4 << 10
	if len(body) <= most {
		return strconv.Quote(string(body))
	}
	return fmt.Sprintf("%s...%s (%d bytes)", strconv.Quote(string(body[:most/2])), strconv.Quote(string(body[len(body)-256:])), len(body))
}

// bodyOf is what an overwrite writes.
func (in *injector) bodyOf(e Event) []byte {
	if e.Record != nil {
		return in.enc(*e.Record)
	}
	return []byte(e.Body)
}

// restore copies the lock object now and writes the copy back, byte for
// byte, after kept (a delete if there was none).
func (in *injector) restore(w *sim.World, kept time.Duration) {
	body, etag, ok := w.Store().Object(w.Bucket(), w.Key())
	if !ok {
		body = nil
	} else if body == nil {
		body = []byte{}
	}
	what := "no lock object"
	if ok {
		what = "the lock object (ETag " + etag + ")"
	}
	w.FaultEvent(-1, sim.FaultRestoreCopy, kept, fmt.Sprintf("someone copies %s, to write it back in %v", what, kept))
	w.At(w.Now()+kept, -1, func() { foreignWriteAs(w, body, sim.FaultRestore, "restores") })
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// windowed faults and their end, for the injector.
type window struct {
	node      int // -1: everyone
	from, to  time.Duration
	blackhole bool
	denied    bool // requests answered 403 AccessDenied
	extra     time.Duration
}

// partitionText describes a partition in the trace.
func partitionText(e Event) string {
	if e.Denied {
		return fmt.Sprintf("S3 refuses its requests (403 AccessDenied) for %v", e.For)
	}
	return fmt.Sprintf("cannot reach S3 for %v", e.For)
}
