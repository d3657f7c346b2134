package sim

import (
	"fmt"
	"time"
)

// Latency is a distribution of one-way delays. The zero value is a fixed
// delay of one nanosecond: every leg of a request takes some time, so an
// answer always arrives strictly after the request was applied.
type Latency struct {
	// Min and Max bound a uniform delay; Max <= Min means a fixed Min.
	Min time.Duration `json:"min"`
	Max time.Duration `json:"max"`
	// TailPPM is the chance, in parts per million, that a delay comes
	// instead from the long tail: uniform in [Max, TailMax].
	TailPPM int64         `json:"tailPPM,omitempty"`
	TailMax time.Duration `json:"tailMax,omitempty"`
}

// Validate reports a distribution that cannot be sampled.
func (l Latency) Validate() error {
	if l.Min < 0 || l.Max < 0 || l.TailMax < 0 {
		return fmt.Errorf("latency %v..%v: negative delay", l.Min, l.Max)
	}
	if l.TailPPM < 0 || l.TailPPM > 1_000_000 {
		return fmt.Errorf("latency tail chance %d ppm outside [0, 1e6]", l.TailPPM)
	}
	return nil
}

// Sample draws one delay.
func (l Latency) Sample(c Chooser) time.Duration {
	if l.TailPPM > 0 && l.TailMax > l.Max && c.Choose(ChooseLatency, 1_000_000) < uint64(l.TailPPM) {
		return l.Max + time.Duration(c.Choose(ChooseLatency, uint64(l.TailMax-l.Max)+1))
	}
	d := l.Min
	if l.Max > l.Min {
		d += time.Duration(c.Choose(ChooseLatency, uint64(l.Max-l.Min)+1))
	}
	if d < 1 {
		d = 1
	}
	return d
}
