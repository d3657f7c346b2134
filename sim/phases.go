package sim

import "time"

// Phases measures where the real time of one run goes: in the protocol's
// own code, or in the simulator (scheduler, clocks, simulated S3 and
// fenced resource, trace). Set Config.Phases to have Run fill it in; a run
// is otherwise unchanged (the same trace, byte for byte), but a little
// slower: it reads the real clock at every passage between protocol code
// and the simulator's primitives, a few thousand times for a run of the
// reference scenario. Measure a sample of runs, not every run.
//
// Protocol is the time spent in the candidate's code between calls of the
// simulator's primitives (Clock.Sleep, Clock.Go, Clock.WithTimeout, the S3
// calls, Env.Lead): with the -s3 sdk path, the real SDK's code counts as
// the protocol's. The clock readers (Clock.Now, Clock.Monotonic), context
// methods and cancel functions are too small to time and count as the
// protocol's too. Simulation is the rest of Run, from its start to its
// end. Both are corrected for the cost of reading the clock (Overhead per
// reading, measured by NewPhases), so that they add up to the run's time
// without the measurement. Checkers is for harness.RunSetup to fill in:
// the time it took to judge the run.
type Phases struct {
	Simulation, Protocol, Checkers time.Duration
	// Runs counts the runs measured.
	Runs int
	// Overhead is the cost of one reading of the clock.
	Overhead time.Duration

	base       time.Time
	mark       time.Duration
	inProtocol bool
	readings   int
	protocol   time.Duration
}

// NewPhases returns an empty measurement, with the cost of reading the
// clock measured.
func NewPhases() *Phases {
	p := &Phases{base: time.Now()}
	const n = 2000
	start := time.Since(p.base)
	for range n - 1 {
		_ = time.Since(p.base)
	}
	p.Overhead = (time.Since(p.base) - start) / n
	return p
}

// Since returns the real time since p's base, cheaply: what the phases are
// measured with, for callers that time phases of their own.
func (p *Phases) Since() time.Duration { return time.Since(p.base) }

// start begins the measurement of a run.
func (p *Phases) start() {
	p.readings, p.protocol, p.inProtocol = 1, 0, false
	p.mark = p.Since()
}

// stop ends the measurement of a run begun at start.
func (p *Phases) stop(begun time.Duration) {
	if p.inProtocol {
		p.toSimulation()
	}
	now := p.Since()
	p.readings++
	// Each interval between two readings holds about one reading's cost.
	protocol := p.protocol - time.Duration(p.readings/2)*p.Overhead
	total := now - begun - time.Duration(p.readings)*p.Overhead
	p.Protocol += max(protocol, 0)
	p.Simulation += max(total-protocol, 0)
	p.Runs++
}

// toProtocol marks control passing from the simulator to protocol code.
func (p *Phases) toProtocol() {
	if p.inProtocol {
		return
	}
	p.inProtocol = true
	p.mark = p.Since()
	p.readings++
}

// toSimulation marks control passing from protocol code to the simulator.
func (p *Phases) toSimulation() {
	if !p.inProtocol {
		return
	}
	p.inProtocol = false
	now := p.Since()
	p.readings++
	p.protocol += now - p.mark
}

// enter is a primitive's entry from protocol code, leave its return to it.
func (w *World) enter() {
	if p := w.phases; p != nil {
		p.toSimulation()
	}
}

func (w *World) leave() {
	if p := w.phases; p != nil {
		p.toProtocol()
	}
}

// Fork returns an empty measurement with p's cost of reading the clock,
// for another goroutine's runs; Add sums it into p afterwards.
func (p *Phases) Fork() *Phases { return &Phases{base: p.base, Overhead: p.Overhead} }

// Add adds q's measurements to p's.
func (p *Phases) Add(q *Phases) {
	p.Simulation += q.Simulation
	p.Protocol += q.Protocol
	p.Checkers += q.Checkers
	p.Runs += q.Runs
}
