package sim

import (
	"fmt"
	"time"
)

// FailureKind classifies a run that could not be judged on its history.
type FailureKind uint8

const (
	// FailurePanic: protocol code panicked inside the simulation.
	FailurePanic FailureKind = iota + 1
	// FailureStuck: the run exceeded its step budget (livelock, busy loop).
	FailureStuck
	// FailureBlocked: protocol code made no progress for Config.BlockedAfter
	// of real time while running outside the simulator's primitives (a bare
	// channel operation, time.Sleep, a mutex held across a simulated call).
	FailureBlocked
)

// String names the kind.
func (k FailureKind) String() string {
	switch k {
	case FailurePanic:
		return "panic"
	case FailureStuck:
		return "stuck"
	case FailureBlocked:
		return "blocked"
	}
	return fmt.Sprintf("failure(%d)", uint8(k))
}

// Failure describes a run that stopped abnormally.
type Failure struct {
	Kind FailureKind
	// At is the true time of the failure; Node the node involved, or -1.
	At   time.Duration
	Node int
	// Message says what happened; Stack is the panicking goroutine's stack,
	// or for FailureBlocked the stuck goroutines' stacks followed by the
	// run's others (not part of the trace: it holds addresses that differ
	// between runs).
	Message string
	Stack   string
}

// Error implements error.
func (f *Failure) Error() string {
	if f.Node >= 0 {
		return fmt.Sprintf("%s on n%d at %v: %s", f.Kind, f.Node, f.At, f.Message)
	}
	return fmt.Sprintf("%s at %v: %s", f.Kind, f.At, f.Message)
}
