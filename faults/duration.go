package faults

import (
	"fmt"
	"time"
)

// Duration is a time.Duration that reads and writes as text ("1.5s"), so
// that plans are readable and editable by hand.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats the duration as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes the duration as "1.5s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a duration written as time.ParseDuration accepts it.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("faults: bad duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}
