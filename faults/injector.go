package faults

import (
	"time"

	"github.com/s3lease/s3lease/sim"
)

type aimKey struct {
	node int
	op   string
	nth  int
}

// injector decides each S3 request's fault from the plan: aimed faults
// first, then windows (partitions, slow S3), then the knobs; aimed faults
// and knobs act only during the safety phase, and windows end before it
// does. It draws from the world's chooser only for knobs that are set,
// so a plan without knobs does not change the run's other choices.
type injector struct {
	heal  time.Duration
	knobs Knobs
	// throttle is the answer to a request Knobs.SlowDownPPM throttles:
	// S3's 503 SlowDown, or a throttling proxy's 429.
	throttle func(op, requestID string) error
	aims     map[aimKey]Event
	windows  []window
	// byRequest are the events aimed at a role that a request reveals.
	byRequest []*pending
	// enc writes the plan's records.
	enc RecordEncoder
	// lateFrom is the earliest send of a write that can reach S3 after
	// the heal; such writes are recorded (KindLandedAfterHeal).
	lateFrom time.Duration
	// own keeps the nodes' writes that restore-own events write back
	// (nil: the plan has none).
	own *ownWrites
}

// latest bounds how long after its send a request can reach S3 under the
// plan: the request leg's longest latency, a delay aimed at the request,
// the slowest slow-S3 window and the slow tail.
func (in *injector) latest(p *Plan, reqMax time.Duration) time.Duration {
	late := reqMax + p.S3.SlowMax.D()
	var slow time.Duration
	for _, e := range p.Events {
		switch e.Kind {
		case SlowS3:
			slow = max(slow, e.By.D())
		case RequestDelayed:
			late = max(late, reqMax+e.By.D()+p.S3.SlowMax.D())
		}
	}
	return late + slow
}

// landedAfterHeal records, for a write sent before the heal, its landing
// if that comes after the heal.
func (in *injector) landedAfterHeal(w *sim.World, r sim.Request, f *sim.RequestFault) {
	if f.Fate == sim.Unreachable || f.Fate == sim.Dropped {
		return // it never reaches S3
	}
	sent, node, prev := w.Now(), r.Node, f.Landing
	f.Landing = func() {
		if prev != nil {
			prev()
		}
		if now := w.Now(); now > in.heal {
			w.RecordFault(sim.FaultSpan{Kind: KindLandedAfterHeal, Node: node, From: sent, To: now})
		}
	}
}

func newInjector(p *Plan) *injector {
	throttle := sim.SlowDown
	if p.ErrorPages == sim.ErrorPagesHTML.String() {
		throttle = sim.TooManyRequests
	}
	return &injector{heal: p.HealAt.D(), knobs: p.S3, throttle: throttle, aims: map[aimKey]Event{}, own: newOwnWrites(p)}
}

// refusal is the answer of a request refused with code: the throttle
// for SlowDown (a throttling proxy's 429 behind HTML pages), else code's.
func (in *injector) refusal(code string) func(op, requestID string) error {
	if code == "SlowDown" {
		return in.throttle
	}
	return codes[code]
}

func (in *injector) aim(e Event) { in.aims[aimKey{e.Node, e.Op, e.Nth}] = e }

func (in *injector) chance(w *sim.World, ppm int64) bool {
	return ppm > 0 && w.Chooser().Choose(sim.ChooseFault, 1_000_000) < uint64(ppm)
}

// RequestFault implements sim.FaultInjector.
func (in *injector) RequestFault(w *sim.World, r sim.Request) sim.RequestFault {
	if in.own != nil {
		in.own.note(w, r)
	}
	f := in.requestFault(w, r)
	if now := w.Now(); r.Write && now < in.heal && now >= in.lateFrom {
		in.landedAfterHeal(w, r, &f)
	}
	return f
}

func (in *injector) requestFault(w *sim.World, r sim.Request) sim.RequestFault {
	var f sim.RequestFault
	now := w.Now()
	if len(in.byRequest) > 0 && in.roleFault(w, r, &f) {
		return f
	}
	if e, ok := in.aims[aimKey{r.Node, r.Op, r.Nth}]; ok && now < in.heal {
		in.answerFault(e, &f)
		return f
	}
	for _, win := range in.windows {
		if now < win.from || now >= win.to || (win.node >= 0 && win.node != r.Node) {
			continue
		}
		if win.node >= 0 {
			switch {
			case win.denied:
				f.Fate, f.Err = sim.RefusedBefore, sim.AccessDenied
			case win.blackhole:
				f.Fate = sim.Dropped
			default:
				f.Fate = sim.Unreachable
			}
			return f
		}
		f.ExtraRequest += win.extra
		f.ExtraResponse += win.extra
	}
	if now >= in.heal {
		return f
	}
	k := in.knobs
	if r.Op == sim.OpGetObject {
		f.TornPPM = k.TornPPM
	}
	switch {
	case r.Conditional && r.Write && r.InFlight > 0 && in.chance(w, k.ConflictOnOverlapPPM):
		f.Fate, f.Err = sim.RefusedBefore, sim.ConditionalRequestConflict
	case r.Conditional && r.Write && in.chance(w, k.ConflictPPM):
		f.Fate, f.Err = sim.RefusedBefore, sim.ConditionalRequestConflict
	case in.chance(w, k.InternalBeforePPM):
		f.Fate, f.Err = sim.RefusedBefore, sim.InternalError
	case in.chance(w, k.SlowDownPPM):
		f.Fate, f.Err = sim.RefusedBefore, in.throttle
	case in.chance(w, k.InternalAfterPPM):
		f.Fate, f.Err = sim.FailedAfter, sim.InternalError
	case in.chance(w, k.LostPPM):
		f.Fate = sim.Lost
	}
	if k.SlowMax > 0 && in.chance(w, k.SlowPPM) {
		d := time.Duration(w.Chooser().Choose(sim.ChooseFault, uint64(k.SlowMax))) + 1
		if w.Chooser().Choose(sim.ChooseFault, 2) == 0 {
			f.ExtraRequest += d
		} else {
			f.ExtraResponse += d
		}
	}
	return f
}
