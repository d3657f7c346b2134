package epochfile

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// TestDefaultTimings: a term lasts the renew deadline (the drift margin of
// 1000 ppm on a 6 s validity is 12 ms), pauses up to the slack less four
// times the drift are assumed, and the liveness bound covers a validity, four
// retry periods and eight requests.
func TestDefaultTimings(t *testing.T) {
	c := Default
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := protocol.DriftMargin(c.Validity, c.DriftPPM); got != 11_988_012 {
		t.Errorf("drift margin %v; want 11.988012ms", got)
	}
	if got := c.termLen(); got != 4*time.Second {
		t.Errorf("term %v; want 4s", got)
	}
	a := c.Assumptions()
	if a.Lease != 6*time.Second || a.Term != 4*time.Second || a.MaxDriftPPM != 1000 || a.MaxPause != 1976*time.Millisecond ||
		a.MaxOffset != 0 || a.Stalls || a.ForeignWrites || a.Linger {
		t.Errorf("assumptions %+v", a)
	}
	if got := c.LivenessBound(); got != 22*time.Second {
		t.Errorf("liveness bound %v; want 22s", got)
	}
	if by := harness.SwarmHealAt + c.LivenessBound(); by >= harness.SwarmDuration {
		t.Errorf("a swarm run ends at %v, before liveness is judged at %v", harness.SwarmDuration, by)
	}
}

func TestValidateRefuses(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"no validity":        func(c *Config) { c.Validity = 0 },
		"term past validity": func(c *Config) { c.RenewDeadline = c.Validity },
		"term within retry":  func(c *Config) { c.RenewDeadline = c.Retry },
		"page of 0":          func(c *Config) { c.PageSize = 0 },
		"page past 1000":     func(c *Config) { c.PageSize = 1001 },
		"drift of 10%":       func(c *Config) { c.DriftPPM = 100_000 },
	} {
		c := Default
		mod(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
