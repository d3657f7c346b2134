package sim

import (
	"fmt"
	"slices"
)

// ExploreBounds limits an exhaustive exploration. Without bounds the number
// of executions grows exponentially with the length of a run; the bounds
// keep the search to the schedules most likely to matter, in the manner of
// stateless model checkers such as CHESS (which bounds preemptions).
type ExploreBounds struct {
	// MaxFaults is how many fault choices of one execution may take their
	// alternative (a fault that fires where the default is none).
	MaxFaults int
	// MaxDelays is how many latency choices of one execution may take their
	// alternative (the longest delay instead of the shortest): each is a
	// reordering of a message against the others.
	MaxDelays int
	// MaxDepth is the number of choice points after which every choice takes
	// its default; 0 means no limit.
	MaxDepth int
	// Full explores every order of simultaneous events, without
	// partial-order reduction (see Explorer).
	Full bool
}

// choicePoint is one decision along the explored path.
type choicePoint struct {
	kind ChoiceKind
	n    uint64
	alts uint64 // alternatives explored at this point
	pick uint64 // the alternative taken on the current path
	// sched is set for scheduling choices under partial-order reduction.
	sched *schedPoint
}

// value maps the alternative taken to an answer in [0, n). Scheduling
// choices enumerate every event that is due; latency and fault choices take
// one of their two extremes: the shortest delay or the longest, no fault or
// a fault (the injector fires a fault when the answer is low).
func (c choicePoint) value() uint64 {
	switch c.kind {
	case ChooseSchedule:
		return c.pick
	case ChooseFault:
		if c.pick == 0 {
			return c.n - 1
		}
		return 0
	case ChooseLatency:
		if c.pick == 0 {
			return 0
		}
		return c.n - 1
	}
	return 0
}

// Explorer is a Chooser that enumerates, one execution after another, every
// combination of the choices a run makes within its bounds, depth first.
// A run is a pure function of its choices, so re-executing from the start
// with a different answer at one choice point explores a new schedule:
// there is no state to save or restore. Choices of the kinds it does not
// enumerate (setup, entropy) come from a generator seeded alike for every
// execution.
//
// Unless the bounds ask for a full search, the explorer prunes orders of
// simultaneous events that are equivalent to orders it explores: dynamic
// partial-order reduction with sleep sets, over a dependence relation
// between the steps of one instant that the simulator records as they run
// (which nodes and which shared objects each touched; por.go states the
// relation and why equivalent executions get the same verdict). An
// execution that turns out equivalent to one explored already is stopped
// where that shows (Stopped), and a scheduling alternative that can only
// lead to equivalent executions is not run (Pruned). Path and Replay are
// the same with or without reduction: a path names the choices of one
// execution, whichever search found it.
type Explorer struct {
	bounds   ExploreBounds
	seed     uint64
	path     []choicePoint
	pos      int
	faults   int
	delays   int
	fallback *RandomChooser
	replay   []uint64
	// Executions counts the executions started.
	Executions int
	// Stopped counts the executions stopped before their end because they
	// were equivalent to one explored already (they are among Executions).
	Stopped int
	// Pruned counts the scheduling alternatives, within the bounds, that
	// the reduction did not run because every execution they lead to is
	// equivalent to one it explores; each stands for one execution of the
	// full search at least.
	Pruned int
	err    error
	// por is the record of the current execution under reduction; nil for
	// a full search and for replays.
	por *reduction
}

// NewExplorer returns an explorer ready for its first execution.
func NewExplorer(seed uint64, b ExploreBounds) *Explorer {
	e := &Explorer{bounds: b, seed: seed}
	if !b.Full {
		e.por = &reduction{dep: dependent, inflight: b.MaxFaults > 0}
	}
	e.reset()
	return e
}

func (e *Explorer) reset() {
	e.pos, e.faults, e.delays = 0, 0, 0
	e.fallback = NewRandomChooser(e.seed)
	e.Executions++
	if e.por != nil {
		e.por.start()
	}
}

// Choose implements Chooser.
func (e *Explorer) Choose(kind ChoiceKind, n uint64) uint64 {
	if kind != ChooseSchedule && kind != ChooseLatency && kind != ChooseFault {
		if e.por != nil {
			e.por.touch(access{kind: accEntropy, write: true})
		}
		return e.fallback.Choose(kind, n)
	}
	if e.pos < len(e.path) {
		c := e.path[e.pos]
		if c.kind != kind || c.n != n || c.sched != nil {
			e.diverged(c.kind, c.n, kind, n)
		} else {
			e.pos++
			e.count(c)
			return c.value()
		}
	}
	c := choicePoint{kind: kind, n: n, alts: e.alternatives(kind, n)}
	if i := len(e.path); i < len(e.replay) && e.replay[i] < n {
		c.pick = e.replay[i]
		c.alts = max(c.alts, c.pick+1)
	}
	e.path = append(e.path, c)
	e.pos++
	e.count(c)
	return c.value()
}

// diverged notes that the same choices led somewhere else: the run is not
// a function of its choices. It remembers the first such point and cuts the
// path there; the run goes on with defaults.
func (e *Explorer) diverged(wantKind ChoiceKind, wantN uint64, kind ChoiceKind, n uint64) {
	if e.err == nil {
		e.err = fmt.Errorf("sim: nondeterminism at choice %d: replayed %v of %d, got %v of %d", e.pos, wantKind, wantN, kind, n)
	}
	e.path = e.path[:e.pos]
}

func (e *Explorer) count(c choicePoint) {
	if c.pick == 0 {
		return
	}
	switch c.kind {
	case ChooseFault:
		e.faults++
	case ChooseLatency:
		e.delays++
	}
}

// alternatives says how many answers a new choice point will try.
func (e *Explorer) alternatives(kind ChoiceKind, n uint64) uint64 {
	if n <= 1 || !e.open() {
		return 1
	}
	switch kind {
	case ChooseSchedule:
		return n
	case ChooseFault:
		if e.faults < e.bounds.MaxFaults {
			return 2
		}
	case ChooseLatency:
		if e.delays < e.bounds.MaxDelays {
			return 2
		}
	}
	return 1
}

// open reports whether a new choice point is within the depth bound.
func (e *Explorer) open() bool {
	return e.bounds.MaxDepth <= 0 || len(e.path) < e.bounds.MaxDepth
}

// pickEvent is the scheduling choice among the events due at one instant
// under reduction: it returns the index of the event to run.
func (e *Explorer) pickEvent(ties []*event) int {
	r := e.por
	e.endStep()
	n := uint64(len(ties))
	if e.pos < len(e.path) {
		c := &e.path[e.pos]
		if c.kind != ChooseSchedule || c.n != n || c.sched == nil || !sameTies(c.sched.ties, ties) {
			e.diverged(c.kind, c.n, ChooseSchedule, n)
		} else {
			sp := c.sched
			// Asleep on this branch: what was asleep on arrival and the
			// alternatives explored before this one.
			r.sleep = append(r.sleep[:0], sp.sleep...)
			for i, d := range sp.done {
				if d && uint64(i) != c.pick {
					r.sleep = append(r.sleep, sleeper{seq: sp.ties[i], fp: sp.fp[i]})
				}
			}
			r.pendingCP, r.pendingSq = e.pos, sp.ties[c.pick]
			e.pos++
			return int(c.pick)
		}
	}
	sp := &schedPoint{ties: make([]uint64, len(ties)), backtrack: make([]bool, len(ties)), done: make([]bool, len(ties)),
		fp: make([]footprint, len(ties)), open: e.open()}
	for i, t := range ties {
		sp.ties[i] = t.seq
	}
	for _, s := range r.sleep {
		sp.sleep = append(sp.sleep, sleeper{seq: s.seq, fp: s.fp.clone()})
	}
	pick := 0
	for pick < len(ties) && sp.asleep(pick) {
		pick++
	}
	if pick == len(ties) {
		// Every event due is asleep: whatever runs next, the execution is
		// equivalent to one explored. The step that follows stops it.
		pick = 0
	}
	sp.backtrack[pick] = true
	e.path = append(e.path, choicePoint{kind: ChooseSchedule, n: n, alts: 1, pick: uint64(pick), sched: sp})
	r.pendingCP, r.pendingSq = e.pos, sp.ties[pick]
	e.pos++
	return pick
}

func sameTies(seqs []uint64, ties []*event) bool {
	if len(seqs) != len(ties) {
		return false
	}
	for i, t := range ties {
		if seqs[i] != t.seq {
			return false
		}
	}
	return true
}

// beginStep is called as the scheduler starts to run event ev under
// reduction. It returns false if ev is asleep: the execution from here is
// equivalent to one explored, and the run should stop.
func (e *Explorer) beginStep(ev *event) bool {
	r := e.por
	e.endStep()
	if ev.at != r.instant {
		e.endInstant()
		r.instant = ev.at
	}
	if r.asleep(ev.seq) {
		r.blocked = true
		return false
	}
	s := step{seq: ev.seq, cp: -1, parent: -1, quiet: ev.kind == evLand || ev.kind == evFence || ev.kind == evQuiet}
	if r.pendingCP >= 0 && r.pendingSq == ev.seq {
		s.cp = r.pendingCP
	}
	r.pendingCP = -1
	if ev.seq < uint64(len(r.creator)) {
		if c := r.creator[ev.seq]; c >= r.first {
			s.parent = c - r.first
		}
	}
	switch {
	case ev.kind == evCall:
		s.fp.global = true // a fault of the plan or another action of the world: anything
	case ev.node >= 0:
		s.fp.addNode(ev.node)
	}
	r.steps = append(r.steps, s)
	r.count++
	r.active = true
	return true
}

// endStep closes the running step: its footprint is complete. The events
// asleep that it conflicts with wake up, and a step picked at a choice
// point leaves its footprint there for the sleep sets of its siblings.
func (e *Explorer) endStep() {
	r := e.por
	if !r.active {
		return
	}
	r.active = false
	s := &r.steps[len(r.steps)-1]
	if s.quiet && len(s.fp.acc) == 0 && s.fp.nodes == 0 {
		s.fp.global = true // an action of the world that said nothing of what it touched
	}
	j := 0
	for _, z := range r.sleep {
		if !r.dep(&z.fp, &s.fp) {
			r.sleep[j] = z
			j++
		}
	}
	r.sleep = r.sleep[:j]
	if s.cp >= 0 && s.cp < len(e.path) {
		c := &e.path[s.cp]
		c.sched.fp[c.pick] = s.fp.clone()
	}
}

// endInstant closes the current instant: its races add alternatives to
// its choice points. Nothing can be asleep beyond it: an event asleep is
// due at the instant, and one that does not run there was moved by a
// dependent step (a pause of its node, a new wait of its task).
func (e *Explorer) endInstant() {
	r := e.por
	e.analyze()
	r.first = r.count
	r.steps = r.steps[:0]
	r.sleep = r.sleep[:0]
	r.disabled = r.disabled[:0]
}

// dropped notes an event dropped as stale before it ran: a step of the
// instant disabled it (a new wait of its task, a cancellation, a crash).
func (e *Explorer) dropped(ev *event) {
	if r := e.por; ev.at == r.instant {
		r.disabled = append(r.disabled, ev.seq)
	}
}

// analyze finds the races among the steps of the current instant and adds,
// for each, an alternative to the choice point before its first step that
// starts the reversed order, unless one is there already. An event due at
// a choice point and disabled before it ran is in a race with the step
// that disabled it, the one picked at the last choice point where it was
// due: it is added there.
func (e *Explorer) analyze() {
	r := e.por
	s := r.steps
	for _, x := range r.disabled {
		for i := len(s) - 1; i >= 0; i-- {
			if s[i].cp < 0 {
				continue
			}
			sp := e.path[s[i].cp].sched
			if a := sp.index(x); a >= 0 {
				if sp.open && !sp.asleep(a) {
					sp.backtrack[a] = true
				}
				break
			}
		}
	}
	m := len(s)
	if m < 2 {
		return
	}
	picked := false
	for i := range s {
		picked = picked || s[i].cp >= 0
	}
	if !picked {
		return
	}
	// hb[j][i]: step i happens before step j (i < j), through dependent
	// steps and the scheduling of events.
	hb := make([][]bool, m)
	dep := make([][]bool, m)
	for j := range m {
		hb[j] = make([]bool, m)
		dep[j] = make([]bool, m)
		for i := range j {
			dep[j][i] = r.dep(&s[i].fp, &s[j].fp)
			if dep[j][i] || s[j].parent == i {
				hb[j][i] = true
				for k := range i {
					hb[j][k] = hb[j][k] || hb[i][k]
				}
			}
		}
	}
	var v []int
	for j := 1; j < m; j++ {
		for i := range j {
			if s[i].cp < 0 || !dep[j][i] || s[j].parent == i {
				continue
			}
			c := &e.path[s[i].cp]
			sp := c.sched
			if !sp.open {
				continue
			}
			direct := true
			for k := i + 1; k < j && direct; k++ {
				direct = !(hb[k][i] && hb[j][k])
			}
			if !direct {
				continue
			}
			// v: the steps between i and j that do not happen after i,
			// then j. Its initials (no predecessor in v) could run first
			// at i's choice point.
			v = v[:0]
			for k := i + 1; k < j; k++ {
				if !hb[k][i] {
					v = append(v, k)
				}
			}
			v = append(v, j)
			add, covered := -1, false
			for x, u := range v {
				initial := true
				for _, w := range v[:x] {
					if hb[u][w] {
						initial = false
						break
					}
				}
				if !initial {
					continue
				}
				a := sp.index(s[u].seq)
				if a < 0 {
					continue // not due at the choice point: cannot be
				}
				if sp.backtrack[a] {
					covered = true
					break
				}
				if add < 0 && !sp.asleep(a) {
					add = a
				}
			}
			if !covered && add >= 0 {
				sp.backtrack[add] = true
			}
		}
	}
}

// StoppedEarly reports whether the current execution was stopped before
// its end as equivalent to one explored already; its outcome means
// nothing.
func (e *Explorer) StoppedEarly() bool { return e.por != nil && e.por.blocked }

// Next moves to the next unexplored path and prepares the next execution.
// It returns false when every path within the bounds has been explored.
func (e *Explorer) Next() bool {
	if r := e.por; r != nil {
		e.endStep()
		e.endInstant()
		if r.blocked {
			e.Stopped++
		}
	}
	for i := len(e.path) - 1; i >= 0; i-- {
		c := &e.path[i]
		if sp := c.sched; sp != nil {
			sp.done[c.pick] = true
			if p, ok := sp.next(); ok {
				c.pick = uint64(p)
				e.path = e.path[:i+1]
				e.reset()
				return true
			}
			if sp.open {
				for _, d := range sp.done {
					if !d {
						e.Pruned++
					}
				}
			}
			continue
		}
		if c.pick+1 < c.alts {
			c.pick++
			e.path = e.path[:i+1]
			e.reset()
			return true
		}
	}
	return false
}

// Err reports nondeterminism seen during the executions, if any.
func (e *Explorer) Err() error { return e.err }

// Path returns the alternatives taken at each choice point of the current
// execution, which with the seed and bounds identifies it.
func (e *Explorer) Path() []uint64 {
	p := make([]uint64, len(e.path))
	for i, c := range e.path {
		p[i] = c.pick
	}
	return p
}

// Replay sets the explorer up to re-run the execution identified by path.
// A replay takes the path's choices and the defaults after them, with or
// without reduction alike.
func (e *Explorer) Replay(path []uint64) {
	e.path = e.path[:0]
	e.replay = slices.Clone(path)
	e.por = nil
	e.reset()
}
