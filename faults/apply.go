package faults

import (
	"fmt"
	"sort"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// Apply validates the plan against cfg and arranges for the run to suffer
// it: clock settings, timed events, aimed faults and knobs. It keeps any
// Setup cfg already has, running it first.
func Apply(p *Plan, cfg *sim.Config) error {
	if err := p.Validate(cfg.Nodes, cfg.Duration); err != nil {
		return err
	}
	if p.SDKAttempts > 0 {
		cfg.S3Attempts = p.SDKAttempts
	}
	prev := cfg.Setup
	plan := *p
	cfg.Setup = func(w *sim.World) {
		if prev != nil {
			prev(w)
		}
		install(&plan, w)
	}
	return nil
}

// install schedules the plan on a world that has not started.
func install(p *Plan, w *sim.World) {
	clocks := make([]sim.ClockModel, w.Nodes())
	touched := make([]bool, w.Nodes())
	for i := range clocks {
		clocks[i] = w.Node(i).ClockModel()
	}
	for _, c := range p.Clocks {
		clocks[c.Node].Offset, clocks[c.Node].DriftPPM, clocks[c.Node].DriftUntil = c.Offset.D(), c.DriftPPM, c.DriftUntil.D()
		touched[c.Node] = true
	}
	events := append([]Event(nil), p.Events...)
	sort.SliceStable(events, func(i, j int) bool { return events[i].At < events[j].At })
	in := newInjector(p)
	for _, e := range events {
		n := w.Node(e.Node)
		at := e.At.D()
		switch e.Kind {
		case Pause:
			w.At(at, -1, func() { n.PauseFor(string(Pause), e.For.D()) })
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
				w.Fault(sim.FaultSpan{Kind: string(ClockJump), Node: e.Node, From: at, To: at, By: int64(e.By)}, fmt.Sprintf("wall clock steps by %v", e.By))
			})
		case ClockStall:
			// A suspended VM: the process does not run, the monotonic clock
			// stands still, and on resume the wall clock is set right, jumping
			// forward by the time lost.
			clocks[e.Node].Stalls = append(clocks[e.Node].Stalls, sim.ClockStall{At: at, For: e.For.D()})
			clocks[e.Node].Jumps = append(clocks[e.Node].Jumps, sim.ClockJump{At: at + e.For.D(), By: e.For.D()})
			touched[e.Node] = true
			w.At(at, -1, func() {
				w.FaultEvent(e.Node, string(ClockStall), e.For.D(), fmt.Sprintf("VM suspended for %v: monotonic clock stops", e.For))
				n.PauseFor(string(ClockStall), e.For.D())
			})
		case Partition:
			in.windows = append(in.windows, window{node: e.Node, from: at, to: at + e.For.D(), blackhole: e.Blackhole})
			w.At(at, -1, func() {
				w.Fault(sim.FaultSpan{Kind: string(Partition), Node: e.Node, From: at, To: at + e.For.D()}, fmt.Sprintf("cannot reach S3 for %v", e.For))
			})
		case SlowS3:
			in.windows = append(in.windows, window{node: -1, from: at, to: at + e.For.D(), extra: e.By.D()})
			w.At(at, -1, func() {
				w.Fault(sim.FaultSpan{Kind: string(SlowS3), Node: -1, From: at, To: at + e.For.D(), By: int64(e.By)}, fmt.Sprintf("S3 answers %v slower on each leg for %v", e.By, e.For))
			})
		case DeleteLock:
			w.At(at, -1, func() { foreignWrite(w, nil) })
		case Overwrite:
			body := []byte(e.Body)
			w.At(at, -1, func() { foreignWrite(w, body) })
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
	w.SetFaults(in)
}

// foreignWrite is someone other than the electors writing the lock object:
// a delete if body is nil, else an unconditional overwrite.
func foreignWrite(w *sim.World, body []byte) {
	err := w.OutsideWrite(body)
	now := w.Now()
	if body == nil {
		w.Fault(sim.FaultSpan{Kind: string(DeleteLock), Node: -1, From: now, To: now}, fmt.Sprintf("someone else deletes the lock object (%v)", errText(err)))
		return
	}
	w.Fault(sim.FaultSpan{Kind: string(Overwrite), Node: -1, From: now, To: now}, fmt.Sprintf("someone else overwrites the lock object with %q (%v)", body, errText(err)))
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
	extra     time.Duration
}
