package protocol

import (
	"errors"
	"fmt"
	"sync"
)

// ErrStaleToken is wrapped by the error Fence.Admit returns for a token
// below the highest it has admitted.
var ErrStaleToken = errors.New("stale fencing token")

// Fence is the guard a fenced resource keeps: it admits an operation only if
// its token is at least the highest token admitted so far. Leaders that lost
// their lease without knowing it (a pause, a late write, a slow stop) carry
// lower tokens than their successors, so once a successor's operation was
// admitted, theirs are rejected. The zero value is ready; a Fence is safe for
// concurrent use.
type Fence struct {
	mu      sync.Mutex
	highest uint64
}

// Admit accepts token if it is at least the highest admitted token, and
// raises the highest to token. Otherwise it returns an error wrapping
// ErrStaleToken that names both tokens.
func (f *Fence) Admit(token uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if token < f.highest {
		return fmt.Errorf("s3lease: %w: token %d is below the highest admitted token %d", ErrStaleToken, token, f.highest)
	}
	f.highest = token
	return nil
}

// Highest returns the highest admitted token, 0 if none.
func (f *Fence) Highest() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.highest
}
