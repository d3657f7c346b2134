package protocol

import (
	"context"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"pgregory.net/rapid"
)

func validConfig() Config {
	return Config{
		Store:         s3.New(s3.Options{Region: "us-east-1"}),
		Bucket:        "locks",
		Key:           "leader.json",
		Identity:      "node-a",
		LeaseDuration: DefaultLeaseDuration,
		RenewDeadline: DefaultRenewDeadline,
		RetryPeriod:   DefaultRetryPeriod,
		Callbacks: LeaderCallbacks{
			OnStartedLeading: func(context.Context, Lease) {},
		},
	}
}

func TestNewElectorAcceptsDefaults(t *testing.T) {
	e, err := NewElector(validConfig())
	if err != nil {
		t.Fatal(err)
	}
	if e.cfg.ClockDriftPPM != DefaultClockDriftPPM || e.cfg.RequestTimeout != DefaultRetryPeriod {
		t.Errorf("defaults not filled in: ppm %d, request timeout %v", e.cfg.ClockDriftPPM, e.cfg.RequestTimeout)
	}
	if e.termLen != DefaultRenewDeadline {
		t.Errorf("term length %v, want RenewDeadline %v", e.termLen, DefaultRenewDeadline)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		field  string
		mutate func(*Config)
	}{
		{"Store", func(c *Config) { c.Store = nil }},
		{"Bucket", func(c *Config) { c.Bucket = "" }},
		{"Key", func(c *Config) { c.Key = "" }},
		{"Identity", func(c *Config) { c.Identity = "" }},
		{"Callbacks.OnStartedLeading", func(c *Config) { c.Callbacks.OnStartedLeading = nil }},
		{"LeaseDuration", func(c *Config) { c.LeaseDuration = 0 }},
		{"LeaseDuration", func(c *Config) { c.LeaseDuration = -time.Second }},
		{"LeaseDuration", func(c *Config) { c.LeaseDuration = 25 * time.Hour }},
		{"RenewDeadline", func(c *Config) { c.RenewDeadline = 0 }},
		{"RetryPeriod", func(c *Config) { c.RetryPeriod = 0 }},
		{"RequestTimeout", func(c *Config) { c.RequestTimeout = -1 }},
		{"ClockDriftPPM", func(c *Config) { c.ClockDriftPPM = -1 }},
		{"ClockDriftPPM", func(c *Config) { c.ClockDriftPPM = MaxClockDriftPPM + 1 }},
		{"RenewDeadline", func(c *Config) { c.RenewDeadline = c.LeaseDuration }},
		// 10s * 1.2 = 12s >= RenewDeadline 10s... with RetryPeriod 8.4s: 10.08s.
		{"RetryPeriod", func(c *Config) { c.RetryPeriod = 8400 * time.Millisecond }},
		// 15s lease at 1000 ppm leaves 15s - 29.98ms for the term.
		{"RenewDeadline", func(c *Config) { c.RenewDeadline = 14990 * time.Millisecond }},
		// Drift of 10%: margin 15s*0.2/1.1 = 2.73s.
		{"RenewDeadline", func(c *Config) { c.ClockDriftPPM = 100_000; c.RenewDeadline = 13 * time.Second }},
		{"RequestTimeout", func(c *Config) { c.RequestTimeout = 5001 * time.Millisecond }},
		// RequestTimeout defaults to RetryPeriod, which is then too long.
		{"RequestTimeout", func(c *Config) { c.RetryPeriod = 6 * time.Second }},
		{"Identity", func(c *Config) { c.Identity = strings.Repeat("a", MaxIdentityLen+1) }},
		// Not UTF-8: JSON would write U+FFFD in the record, S3 refuses
		// such a name.
		{"Identity", func(c *Config) { c.Identity = "node-\xff" }},
		{"Identity", func(c *Config) { c.Identity = "é"[:1] }},
		{"Bucket", func(c *Config) { c.Bucket = "locks\xc0" }},
		{"Key", func(c *Config) { c.Key = "leader\xed\xa0\x80.json" }}, // a surrogate half
		{"Key", func(c *Config) { c.Key = strings.Repeat("k", MaxKeyLen+1) }},
		// RetryPeriod*6 overflows: these once passed.
		{"RetryPeriod", func(c *Config) { c.RequestTimeout = time.Second; c.RetryPeriod = math.MaxInt64 }},
		{"RetryPeriod", func(c *Config) { c.RequestTimeout = time.Second; c.RetryPeriod = math.MaxInt64/6 + 1 }},
		{"RetryPeriod", func(c *Config) { c.RequestTimeout = time.Second; c.RetryPeriod = math.MaxInt64/3 + 1 }},
		{"RetryPeriod", func(c *Config) { c.RequestTimeout = time.Second; c.RetryPeriod = c.RenewDeadline }},
	}
	for _, tt := range tests {
		cfg := validConfig()
		tt.mutate(&cfg)
		_, err := NewElector(cfg)
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: error %v does not wrap ErrInvalidConfig", tt.field, err)
			continue
		}
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tt.field {
			t.Errorf("%s: error %v names the wrong field", tt.field, err)
		}
		if !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%s: message %q does not name the field", tt.field, err)
		}
	}
}

func TestNewElectorAcceptsLongestIdentity(t *testing.T) {
	cfg := validConfig()
	cfg.Identity = strings.Repeat("\x00", MaxIdentityLen)
	cfg.Key = strings.Repeat("é", MaxKeyLen/2)
	if _, err := NewElector(cfg); err != nil {
		t.Errorf("identity of MaxIdentityLen bytes, key of MaxKeyLen: %v", err)
	}
}

// bigs converts durations and ints to big integers.
func bigs[T ~int64](vs ...T) []*big.Int {
	out := make([]*big.Int, len(vs))
	for i, v := range vs {
		out[i] = big.NewInt(int64(v))
	}
	return out
}

// mul is a*b, a fresh big integer.
func mul(a *big.Int, b int64) *big.Int { return new(big.Int).Mul(a, big.NewInt(b)) }

// validExactly is validate's rules for the durations and drift of c, in
// exact arithmetic.
func validExactly(c Config) bool {
	ppm := c.ClockDriftPPM
	if ppm == 0 {
		ppm = DefaultClockDriftPPM
	}
	rt := c.RequestTimeout
	if rt == 0 {
		rt = c.RetryPeriod
	}
	b := bigs(c.LeaseDuration, c.RenewDeadline, c.RetryPeriod, rt)
	lease, renew, retry, timeout := b[0], b[1], b[2], b[3]
	slack := new(big.Int).Sub(lease, renew)
	return c.LeaseDuration > 0 && c.LeaseDuration <= MaxLeaseDuration && c.RenewDeadline > 0 &&
		c.RetryPeriod > 0 && c.RequestTimeout >= 0 && c.ClockDriftPPM >= 0 && c.ClockDriftPPM <= MaxClockDriftPPM &&
		renew.Cmp(lease) < 0 &&
		mul(retry, 6).Cmp(mul(renew, 5)) < 0 && // RetryPeriod*1.2 < RenewDeadline
		mul(slack, 1_000_000+ppm).Cmp(mul(lease, 2*ppm)) >= 0 && // RenewDeadline <= lease - 2*rho*lease/(1+rho)
		mul(timeout, 2).Cmp(renew) <= 0
}

// anyDuration draws from the whole int64 range, mostly values up to limit,
// often edges.
func anyDuration(limit time.Duration) *rapid.Generator[time.Duration] {
	upToLimit := rapid.Int64Range(1, max(int64(limit), 1))
	return rapid.Map(rapid.OneOf(
		rapid.Int64(),
		upToLimit, upToLimit, upToLimit, upToLimit,
		rapid.Int64Range(-2, 2),
		rapid.SampledFrom([]int64{math.MinInt64, math.MaxInt64, math.MaxInt64 / 6, math.MaxInt64/6 + 1,
			math.MaxInt64 / 5, math.MaxInt64/5 + 1, math.MaxInt64/2 + 1, int64(MaxLeaseDuration), int64(MaxLeaseDuration) + 1}),
	), func(n int64) time.Duration { return time.Duration(n) })
}

// validate accepts exactly the configs whose durations obey its rules in
// exact arithmetic, whatever the durations: no product overflows.
func TestValidateIsExact(t *testing.T) {
	huge := rapid.Map(rapid.OneOf(rapid.Int64Range(math.MaxInt64/6, math.MaxInt64), rapid.Int64()),
		func(n int64) time.Duration { return time.Duration(n) })
	rapid.Check(t, func(t *rapid.T) {
		var c Config
		if rapid.Bool().Draw(t, "independent fields") {
			c = validConfig()
			c.LeaseDuration = anyDuration(MaxLeaseDuration).Draw(t, "lease")
			c.RenewDeadline = anyDuration(c.LeaseDuration).Draw(t, "renew")
			c.RetryPeriod = anyDuration(c.RenewDeadline).Draw(t, "retry")
			c.RequestTimeout = rapid.OneOf(rapid.Just(time.Duration(0)), anyDuration(c.RenewDeadline/2)).Draw(t, "timeout")
			inRange := rapid.Int64Range(0, MaxClockDriftPPM)
			c.ClockDriftPPM = rapid.OneOf(inRange, inRange, inRange, rapid.Int64(),
				rapid.SampledFrom([]int64{-1, MaxClockDriftPPM + 1, math.MaxInt64})).Draw(t, "ppm")
		} else {
			// A valid config with one field, most often RetryPeriod, set to
			// a value anywhere, mostly one whose product overflows.
			c = validDurations(t)
			v := rapid.OneOf(huge, anyDuration(MaxLeaseDuration)).Draw(t, "value")
			switch rapid.SampledFrom([]string{"lease", "renew", "retry", "retry", "retry", "timeout", "ppm"}).Draw(t, "field") {
			case "lease":
				c.LeaseDuration = v
			case "renew":
				c.RenewDeadline = v
			case "retry":
				c.RetryPeriod = v
			case "timeout":
				c.RequestTimeout = v
			case "ppm":
				c.ClockDriftPPM = int64(v)
			}
		}
		err := c.validate()
		if want := validExactly(c); (err == nil) != want {
			t.Fatalf("validate(lease %d, renew %d, retry %d, timeout %d, ppm %d) = %v, want valid %v",
				c.LeaseDuration, c.RenewDeadline, c.RetryPeriod, c.RequestTimeout, c.ClockDriftPPM, err, want)
		}
		b := bigs(c.RetryPeriod, c.RenewDeadline)
		if err == nil && mul(b[0], 6).Cmp(mul(b[1], 5)) >= 0 {
			t.Fatalf("accepted RetryPeriod %d, RenewDeadline %d: RetryPeriod*1.2 >= RenewDeadline", c.RetryPeriod, c.RenewDeadline)
		}
	})
}

// validDurations draws the durations and drift of a config NewElector
// accepts, across the whole valid range.
func validDurations(t *rapid.T) Config {
	c := validConfig()
	c.ClockDriftPPM = rapid.OneOf(rapid.Int64Range(0, MaxClockDriftPPM), rapid.Int64Range(0, 5000),
		rapid.SampledFrom([]int64{0, 1, MaxClockDriftPPM})).Draw(t, "ppm")
	c.LeaseDuration = time.Duration(rapid.OneOf(rapid.Int64Range(3, int64(MaxLeaseDuration)),
		rapid.Int64Range(3, 1000), rapid.Int64Range(int64(time.Second), int64(time.Minute)),
		rapid.Just(int64(MaxLeaseDuration))).Draw(t, "lease"))
	limit := c.LeaseDuration - DriftMargin(c.LeaseDuration, c.driftPPM())
	if limit < 2 {
		t.Skip("lease too short for its drift margin")
	}
	c.RenewDeadline = time.Duration(rapid.OneOf(rapid.Int64Range(2, int64(limit)), rapid.Just(int64(limit))).Draw(t, "renew"))
	// 6*RetryPeriod < 5*RenewDeadline.
	c.RetryPeriod = time.Duration(rapid.Int64Range(1, (5*int64(c.RenewDeadline)-1)/6).Draw(t, "retry"))
	if c.RetryPeriod > c.RenewDeadline/2 || rapid.Bool().Draw(t, "explicit timeout") {
		c.RequestTimeout = time.Duration(rapid.Int64Range(1, int64(c.RenewDeadline/2)).Draw(t, "timeout"))
	}
	if err := c.validate(); err != nil {
		t.Fatalf("generated an invalid config: %v", err)
	}
	return c
}

// RenewInterval, for every configuration NewElector accepts, is the
// RetryPeriod unless that would leave a renewal less than RequestTimeout
// before the deadline: a renewal always has RequestTimeout to land, and
// renewals are never closer than the smaller of RetryPeriod and
// RenewDeadline/2.
func TestRenewInterval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := validDurations(t)
		every, rt, term := c.RenewInterval(), c.requestTimeout(), c.Assumptions().Term
		if every > c.RetryPeriod || every+rt > term || every != c.RetryPeriod && every+rt != term || every < min(c.RetryPeriod, c.RenewDeadline/2) {
			t.Fatalf("RenewInterval %v with RetryPeriod %v, RequestTimeout %v, term %v, RenewDeadline %v",
				every, c.RetryPeriod, rt, term, c.RenewDeadline)
		}
	})
}

// Assumptions gives the harness's formulas, computed exactly, and what they
// promise holds, for every configuration NewElector accepts (leases up to
// MaxLeaseDuration, drift bounds up to MaxClockDriftPPM): a term with its
// drift margin, and the pause bound PauseBound documents; so does
// LivenessBound.
func TestAssumptions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := validDurations(t)
		a := c.Assumptions()
		ppm, rt := c.ClockDriftPPM, c.RequestTimeout
		if ppm == 0 {
			ppm = DefaultClockDriftPPM
		}
		if rt == 0 {
			rt = c.RetryPeriod
		}
		if a.MaxDriftPPM != ppm || a.Lease != c.LeaseDuration {
			t.Fatalf("Assumptions() = %+v: settings not passed through (ppm %d)", a, ppm)
		}
		if a.Term <= 0 || a.Term != c.RenewDeadline || a.Term != c.termLength() {
			t.Fatalf("Term %v, RenewDeadline %v, termLength %v", a.Term, c.RenewDeadline, c.termLength())
		}
		if m := DriftMargin(c.LeaseDuration, ppm); m <= 0 || a.Term > c.LeaseDuration-m {
			t.Fatalf("Term %v leaves no drift margin (%v) of LeaseDuration %v", a.Term, m, c.LeaseDuration)
		}
		b := bigs(c.LeaseDuration, c.RenewDeadline, c.RetryPeriod, rt, a.Term)
		lease, renew, retry, timeout, term := b[0], b[1], b[2], b[3], b[4]
		// MaxPause = lease - renew - floor(lease*4*ppm/1e6).
		drift := new(big.Int).Quo(mul(lease, 4*ppm), big.NewInt(1_000_000))
		if want := new(big.Int).Sub(new(big.Int).Sub(lease, renew), drift); want.Cmp(big.NewInt(int64(a.MaxPause))) != 0 {
			t.Fatalf("MaxPause %d, want %v", a.MaxPause, want)
		}
		// MaxPause is within what the derivation allows: a term ending
		// Term/(1-rho) after the send, plus the pause, ends before
		// lease/(1+rho) (to the nanosecond, as MaxPause is rounded).
		budget := new(big.Rat).Sub(
			new(big.Rat).SetFrac(mul(lease, 1_000_000), big.NewInt(1_000_000+ppm)),
			new(big.Rat).SetFrac(mul(term, 1_000_000), big.NewInt(1_000_000-ppm)))
		if new(big.Rat).SetInt64(int64(a.MaxPause)-1).Cmp(budget) >= 0 {
			t.Fatalf("MaxPause %v exceeds the pause budget %v ns", a.MaxPause, budget.FloatString(3))
		}
		want := new(big.Int).Add(lease, new(big.Int).Add(mul(retry, 3), mul(timeout, 3)))
		if want.Cmp(big.NewInt(int64(c.LivenessBound()))) != 0 {
			t.Fatalf("LivenessBound %v, want %v", c.LivenessBound(), want)
		}
		if c.LivenessBound() <= c.LeaseDuration {
			t.Fatalf("LivenessBound %v is not above LeaseDuration %v", c.LivenessBound(), c.LeaseDuration)
		}
	})
}

func TestAssumptionsExamples(t *testing.T) {
	c := validConfig() // 15 s, 10 s, 2 s; 1000 ppm and 2 s timeout by default
	want := Assumptions{
		MaxDriftPPM: 1000, Lease: 15 * time.Second, Term: 10 * time.Second,
		MaxPause: 5*time.Second - 60*time.Millisecond, TornReads: true, OpaqueETags: true,
	}
	if got := c.Assumptions(); got != want {
		t.Errorf("defaults: Assumptions() = %+v, want %+v", got, want)
	}
	if got, want := c.LivenessBound(), 15*time.Second+6*time.Second+6*time.Second; got != want {
		t.Errorf("defaults: LivenessBound() = %v, want %v", got, want)
	}
	// A RenewDeadline that validation accepts but that leaves less than
	// 4*rho*lease: no pause is promised.
	c.RenewDeadline = 14950 * time.Millisecond
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if got := c.Assumptions().MaxPause; got != -10*time.Millisecond {
		t.Errorf("RenewDeadline 14.95 s: MaxPause %v, want -10ms", got)
	}
	// Out of range values give meaningless numbers but no panic.
	for _, c := range []Config{{LeaseDuration: -1, ClockDriftPPM: -1_000_000}, {LeaseDuration: math.MaxInt64, ClockDriftPPM: math.MaxInt64}} {
		_ = c.Assumptions()
	}
}

func TestDriftMargin(t *testing.T) {
	tests := []struct {
		lease time.Duration
		ppm   int64
		want  time.Duration
	}{
		{15 * time.Second, 0, 0},
		// 15e9 * 2000 / 1001000 = 29970029.97... rounded up.
		{15 * time.Second, 1000, 29970030},
		{time.Second, 100_000, 181818182}, // 2e14/1.1e6 = 181818181.8...
		{MaxLeaseDuration, MaxClockDriftPPM, 15709090909091},
		{1, 1, 1},
	}
	for _, tt := range tests {
		if got := DriftMargin(tt.lease, tt.ppm); got != tt.want {
			t.Errorf("DriftMargin(%v, %d) = %d, want %d", tt.lease, tt.ppm, got, tt.want)
		}
	}
}
