package epochfile

import (
	"errors"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"pgregory.net/rapid"
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

// TestValidateKeepsAMargin: over validities up to protocol.MaxLeaseDuration
// and drift bounds up to the largest accepted, every configuration
// Validate accepts runs terms that outlast a retry period, end the drift
// margin (there whenever the drift bound is) before the validity, and leave
// room for a pause; every one it refuses is refused by a
// *protocol.ConfigError naming a field.
func TestValidateKeepsAMargin(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Default
		c.Validity = time.Duration(rapid.OneOf(rapid.Int64Range(1, int64(protocol.MaxLeaseDuration)),
			rapid.Int64Range(1, int64(time.Minute)), rapid.Just(int64(protocol.MaxLeaseDuration))).Draw(t, "validity"))
		c.DriftPPM = rapid.OneOf(rapid.Int64Range(0, maxPPM), rapid.Just(maxPPM)).Draw(t, "ppm")
		c.RenewDeadline = time.Duration(rapid.Int64Range(1, int64(c.Validity)).Draw(t, "renew deadline"))
		c.Retry = time.Duration(rapid.Int64Range(1, int64(c.Validity)).Draw(t, "retry"))
		if err := c.Validate(); err != nil {
			var ce *protocol.ConfigError
			if !errors.As(err, &ce) || ce.Field == "" {
				t.Fatalf("Validate: %v", err)
			}
			return
		}
		a, margin := c.Assumptions(), protocol.DriftMargin(c.Validity, c.DriftPPM)
		if a.Term != c.termLen() || a.Term <= c.Retry || a.Term > c.Validity-margin || (margin > 0) != (c.DriftPPM > 0) ||
			a.MaxPause <= 0 || a.MaxPause != protocol.PauseBound(c.Validity, a.Term, c.DriftPPM) {
			t.Fatalf("Validate accepted %+v: %+v, margin %v", c, a, margin)
		}
	})
}

// maxPPM is the largest drift bound Validate accepts.
const maxPPM int64 = protocol.MaxClockDriftPPM - 1
