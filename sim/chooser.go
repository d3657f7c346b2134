package sim

import "math/rand/v2"

// ChoiceKind names the kind of decision the simulator asks a Chooser to make.
// Strategies other than random choice (exhaustive enumeration, PCT) treat
// kinds differently: a scheduling choice is worth enumerating, a latency
// sample usually is not.
type ChoiceKind uint8

const (
	// ChooseSchedule picks which of several events due at the same instant
	// runs first.
	ChooseSchedule ChoiceKind = iota
	// ChooseLatency picks a network or service latency sample.
	ChooseLatency
	// ChooseFault picks whether, and which, fault happens.
	ChooseFault
	// ChooseSetup picks a parameter of the run before it starts (clock
	// offsets, fault plans, node settings).
	ChooseSetup
	// ChooseEntropy feeds a node's randomness source (nonces, jitter).
	ChooseEntropy
	numChoiceKinds
)

var choiceKindNames = [numChoiceKinds]string{"schedule", "latency", "fault", "setup", "entropy"}

// String returns the kind's name.
func (k ChoiceKind) String() string {
	if k < numChoiceKinds {
		return choiceKindNames[k]
	}
	return "unknown"
}

// Chooser makes every choice of a run. Given the same sequence of calls it
// must give the same answers: that is what makes a run a function of its seed.
type Chooser interface {
	// Choose returns an integer in [0, n); n is at least 1.
	Choose(kind ChoiceKind, n uint64) uint64
}

// RandomChooser answers every choice from one PCG-DXSM generator
// (math/rand/v2's PCG, whose algorithm and output are specified and stable)
// seeded from the run's seed.
type RandomChooser struct {
	src rand.PCG
}

// NewRandomChooser returns a RandomChooser for seed.
func NewRandomChooser(seed uint64) *RandomChooser {
	c := &RandomChooser{}
	c.src.Seed(seed, seed^0x9e3779b97f4a7c15)
	return c
}

// Choose returns a uniformly distributed integer in [0, n) using Lemire's
// multiply-shift rejection method on the generator's 64-bit outputs.
func (c *RandomChooser) Choose(_ ChoiceKind, n uint64) uint64 {
	if n <= 1 {
		return 0
	}
	return uniform(&c.src, n)
}

// uniform draws from [0, n) without modulo bias.
func uniform(src *rand.PCG, n uint64) uint64 {
	hi, lo := mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = mul64(src.Uint64(), n)
		}
	}
	return hi
}
