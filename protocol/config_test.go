package protocol

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
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
		if got := driftMargin(tt.lease, tt.ppm); got != tt.want {
			t.Errorf("driftMargin(%v, %d) = %d, want %d", tt.lease, tt.ppm, got, tt.want)
		}
	}
}
