// Package directive exercises //simvet:real.
package directive

import (
	"context"
	"crypto/rand"
	"io"
	"time"
)

// RealClock is exempt as a whole: each of its methods is.
//
//simvet:real the production Clock; the simulator supplies its own.
type RealClock struct{ origin time.Time }

// NewRealClock is exempt by its own directive.
//
//simvet:real constructs the production Clock.
func NewRealClock() *RealClock { return &RealClock{origin: time.Now()} }

func (c *RealClock) Now() time.Time { return time.Now() }

func (c RealClock) Monotonic() time.Duration { return time.Since(c.origin) }

func (c *RealClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *RealClock) Go(f func()) { go f() }

// defaultEntropy is exempt.
//
//simvet:real	crypto/rand is the default only when Config.Entropy is nil, never in the simulator.
func defaultEntropy() io.Reader { return rand.Reader }

// NoReason has a directive without a reason: it is reported, and exempts
// nothing.
//
// want +2 `//simvet:real needs a reason`
//
//simvet:real
func NoReason() time.Time {
	return time.Now() // want `time.Now reads the real clock`
}

// Unused exempts nothing.
//
// want +2 `//simvet:real exempts nothing; remove it`
//
//simvet:real nothing here needs it
func Unused() int { return 1 }

// Typo is not a simvet directive.
//
// want +2 `unknown directive`
//
//simvet:reel typo
func Typo() {}

func misplaced() {
	// want +1 `//simvet:real has no effect here`
	//simvet:real inside a body
	go misplaced() // want `go statement`
}

type other struct{}

// Methods of other types are not exempt by RealClock's directive.
func (other) Now() time.Time { return time.Now() } // want `time.Now reads`
