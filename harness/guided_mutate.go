package harness

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// The mutations of a guided campaign: each derives a plan from a plan of
// its corpus, the way a coverage-guided fuzzer mutates its inputs. They
// work on units of a plan's events: a crash or stop of a node and the
// restart of that node that follows it are one unit (removing or moving one
// without the other would leave a node down for good), every other event a
// unit of its own. A mutated plan is checked (faults.Plan.Validate, and the
// protocol's acceptance of its settings) before it runs; one that fails is
// thrown away and another drawn.

// maxGuidedEvents bounds the events of a derived plan.
const maxGuidedEvents = 64

// mutator derives plans: rng draws every choice, nodes and heal are the
// run's, donor returns the plan the scenario draws for a seed (events,
// applications, settings and content to graft).
type mutator struct {
	rng   *rand.Rand
	nodes int
	heal  time.Duration
	donor func(seed uint64) *faults.Plan
}

// units groups the plan's events: a node's crash or stop (aimed at no role
// or target) with the first restart of that node after it, every other
// event alone. Each unit lists its events' indices.
func units(evs []faults.Event) [][]int {
	partner := make([]int, len(evs))
	taken := make([]bool, len(evs))
	for i, e := range evs {
		partner[i] = -1
		if (e.Kind != faults.Crash && e.Kind != faults.Stop) || e.Role != "" || e.Target != "" {
			continue
		}
		for j, r := range evs {
			if !taken[j] && r.Kind == faults.Restart && r.Role == "" && r.Target == "" && r.Node == e.Node && r.At >= e.At {
				taken[j], partner[i] = true, j
				break
			}
		}
	}
	out := make([][]int, 0, len(evs))
	for i := range evs {
		switch {
		case taken[i]:
		case partner[i] >= 0:
			out = append(out, []int{i, partner[i]})
		default:
			out = append(out, []int{i})
		}
	}
	return out
}

// pick draws an index below n.
func (m *mutator) pick(n int) int { return m.rng.IntN(n) }

// scale multiplies d by a factor between 1/2 and 2, or moves it by up to
// a second either way.
func (m *mutator) scale(d time.Duration) time.Duration {
	if m.pick(2) == 0 || d == 0 {
		return d + time.Duration(m.rng.Int64N(int64(2*time.Second))) - time.Second
	}
	num := int64(m.rng.IntN(4) + 1)
	if m.pick(2) == 0 {
		return time.Duration(int64(d) * (num + 4) / 4) // 1.25 to 2 times
	}
	return time.Duration(int64(d) * 4 / (num + 4))
}

// lasts is how long event e acts on the run for the heal's sake: its For,
// except aimed faults, restarts and lingering, which Validate does not
// bound so.
func lasts(e faults.Event) time.Duration {
	if e.Kind.Aimed() || e.Kind == faults.Restart || e.Kind == faults.Linger {
		return 0
	}
	return e.For.D()
}

// clampAt keeps an event's start within [0, heal - its length].
func (m *mutator) clampAt(at time.Duration, length time.Duration) faults.Duration {
	return faults.Duration(max(0, min(at, m.heal-length)))
}

// mutate applies one mutation to p (a copy the caller owns), with other, a
// second corpus plan, for splicing (nil: none). It returns what it did.
func (m *mutator) mutate(p, other *faults.Plan) string {
	us := units(p.Events)
	switch k := m.pick(14); {
	case k < 2 && len(us) > 0: // move an event (a crash with its restart)
		u := us[m.pick(len(us))]
		first := p.Events[u[0]]
		shift := m.scale(first.At.D()) - first.At.D()
		for _, i := range u {
			e := &p.Events[i]
			e.At = m.clampAt(e.At.D()+shift, lasts(*e))
		}
		return "move " + string(first.Kind)
	case k < 4 && len(us) > 0: // lengthen or shorten, delay more or less, aim at another request
		i := us[m.pick(len(us))][0]
		e := &p.Events[i]
		switch {
		case e.Nth > 0 && m.pick(2) == 0:
			d := 1 + m.pick(4)
			if m.pick(2) == 0 {
				d = -d
			}
			e.Nth = max(1, e.Nth+d)
			return "aim " + string(e.Kind) + " at another request"
		case e.By != 0 && m.pick(2) == 0:
			by := m.scale(e.By.D())
			if e.By > 0 {
				by = max(by, time.Millisecond)
			} else {
				by = min(by, -time.Millisecond)
			}
			e.By = faults.Duration(by)
			return "change " + string(e.Kind) + "'s by"
		case e.For > 0:
			e.For = faults.Duration(max(time.Millisecond, m.scale(e.For.D())))
			e.At = m.clampAt(e.At.D(), lasts(*e))
			return "change " + string(e.Kind) + "'s length"
		}
		return ""
	case k < 5 && len(us) > 1: // remove an event (a crash with its restart)
		u := us[m.pick(len(us))]
		kind := p.Events[u[0]].Kind
		slices.Sort(u)
		for j := len(u) - 1; j >= 0; j-- {
			p.Events = slices.Delete(p.Events, u[j], u[j]+1)
		}
		return "remove " + string(kind)
	case k < 6 && len(us) > 0: // duplicate an event, moved
		u := us[m.pick(len(us))]
		shift := time.Duration(m.rng.Int64N(int64(4*time.Second))) - 2*time.Second
		for _, i := range u {
			e := p.Events[i]
			e.At = m.clampAt(e.At.D()+shift, lasts(e))
			if e.Nth > 0 {
				e.Nth = max(1, e.Nth+m.pick(5)-2)
			}
			p.Events = append(p.Events, e)
		}
		return "duplicate " + string(p.Events[u[0]].Kind)
	case k < 7 && len(us) > 0: // another node, or another role
		u := us[m.pick(len(us))]
		e := &p.Events[u[0]]
		if e.Role != "" {
			e.Role = []faults.Role{faults.RoleLeader, faults.RoleAcquirer, faults.RoleRequester, faults.RoleRenewer}[m.pick(4)]
			return "aim " + string(e.Kind) + " at the " + string(e.Role)
		}
		if nodeless(*e) {
			return ""
		}
		n := m.pick(m.nodes)
		for _, i := range u {
			p.Events[i].Node = n
		}
		return "move " + string(e.Kind) + " to another node"
	case k < 9: // graft an event of another seed's plan
		d := m.donor(m.rng.Uint64() >> 1)
		if d == nil || len(d.Events) == 0 {
			return ""
		}
		du := units(d.Events)
		for _, i := range du[m.pick(len(du))] {
			p.Events = append(p.Events, d.Events[i])
		}
		return "add an event of another plan"
	case k < 10: // a knob
		return m.knob(p)
	case k < 11: // a clock
		if len(p.Clocks) == 0 {
			return ""
		}
		c := &p.Clocks[m.pick(len(p.Clocks))]
		switch m.pick(3) {
		case 0:
			c.DriftPPM = -c.DriftPPM
		case 1:
			c.DriftPPM = max(-999_999, min(1_000_000, int64(m.scale(time.Duration(c.DriftPPM)))))
		default:
			c.Offset = faults.Duration(m.scale(c.Offset.D()))
			return "change a clock's offset"
		}
		if c.DriftUntil == 0 {
			// A drift that may now exceed the protocol's bound heals, like
			// every fault.
			c.DriftUntil = faults.Duration(m.heal)
		}
		return "change a clock's drift"
	case k < 12: // the applications, the settings or the object before the run, of another seed's plan
		d := m.donor(m.rng.Uint64() >> 1)
		if d == nil {
			return ""
		}
		switch m.pick(3) {
		case 0:
			p.Apps = slices.Clone(d.Apps)
			return "the applications of another plan"
		case 1:
			p.Settings = slices.Clone(d.Settings)
			return "the settings of another plan"
		}
		p.Initial = d.Initial
		return "the object before the run of another plan"
	case k < 13 && other != nil: // splice: events of another corpus plan
		ou := units(other.Events)
		if len(ou) == 0 {
			return ""
		}
		from := m.pick(len(ou))
		to := from + 1 + m.pick(min(4, len(ou)-from))
		for _, u := range ou[from:to] {
			for _, i := range u {
				p.Events = append(p.Events, other.Events[i])
			}
		}
		return "splice events of another corpus plan"
	}
	return ""
}

// knob turns an S3 knob on, off, up or down, or the SDK's retries.
func (m *mutator) knob(p *faults.Plan) string {
	k := &p.S3
	knobs := []*int64{&k.ConflictOnOverlapPPM, &k.ConflictPPM, &k.InternalBeforePPM, &k.SlowDownPPM, &k.InternalAfterPPM, &k.LostPPM, &k.SlowPPM}
	if i := m.pick(len(knobs) + 1); i < len(knobs) {
		v := knobs[i]
		switch {
		case *v == 0:
			*v = 1_000 + m.rng.Int64N(99_000)
		case m.pick(3) == 0:
			*v = 0
		default:
			*v = max(1, min(1_000_000, int64(m.scale(time.Duration(*v)))))
		}
		if k.SlowPPM > 0 && k.SlowMax <= 0 {
			k.SlowMax = faults.Duration(100 * time.Millisecond)
		}
		return "turn a knob"
	}
	if p.SDKAttempts == 0 {
		p.SDKAttempts = 3
	} else {
		p.SDKAttempts = 0
	}
	return "turn the SDK's retries"
}
