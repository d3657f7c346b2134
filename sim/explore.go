package sim

import "fmt"

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
}

// choicePoint is one decision along the explored path.
type choicePoint struct {
	kind ChoiceKind
	n    uint64
	alts uint64 // alternatives explored at this point
	pick uint64 // the alternative taken on the current path
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
	err        error
}

// NewExplorer returns an explorer ready for its first execution.
func NewExplorer(seed uint64, b ExploreBounds) *Explorer {
	e := &Explorer{bounds: b, seed: seed}
	e.reset()
	return e
}

func (e *Explorer) reset() {
	e.pos, e.faults, e.delays = 0, 0, 0
	e.fallback = NewRandomChooser(e.seed)
	e.Executions++
}

// Choose implements Chooser.
func (e *Explorer) Choose(kind ChoiceKind, n uint64) uint64 {
	if kind != ChooseSchedule && kind != ChooseLatency && kind != ChooseFault {
		return e.fallback.Choose(kind, n)
	}
	if e.pos < len(e.path) {
		c := e.path[e.pos]
		if c.kind != kind || c.n != n {
			// The same choices led somewhere else: the run is not a function
			// of its choices. Remember it; keep going with the default.
			if e.err == nil {
				e.err = fmt.Errorf("sim: nondeterminism at choice %d: replayed %v of %d, got %v of %d", e.pos, c.kind, c.n, kind, n)
			}
			e.path = e.path[:e.pos]
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
	if n <= 1 || (e.bounds.MaxDepth > 0 && len(e.path) >= e.bounds.MaxDepth) {
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

// Next moves to the next unexplored path and prepares the next execution.
// It returns false when every path within the bounds has been explored.
func (e *Explorer) Next() bool {
	for i := len(e.path) - 1; i >= 0; i-- {
		if e.path[i].pick+1 < e.path[i].alts {
			e.path[i].pick++
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
func (e *Explorer) Replay(path []uint64) {
	e.path = e.path[:0]
	e.replay = path
	e.reset()
}
