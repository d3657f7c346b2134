package faults_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
)

// TestSwarmDrawsSubMillisecondLeases: on about one settings draw in eight
// the lease has a remainder below a millisecond: a nanosecond, a
// millisecond less a nanosecond, and counts in between all occur; every
// such setting is one the elector accepts, and a plan that carries it
// reads back exactly.
func TestSwarmDrawsSubMillisecondLeases(t *testing.T) {
	var draws, sub, one, most, between int
	for seed := uint64(1); seed <= 4000; seed++ {
		p := swarm(seed)
		ss := p.Settings
		carries := false
		for _, s := range ss {
			draws++
			switch r := s.Lease.D() % time.Millisecond; {
			case r == 0:
				continue
			case r == time.Nanosecond:
				one++
			case r == time.Millisecond-time.Nanosecond:
				most++
			default:
				between++
			}
			sub++
			carries = true
			if err := elector.SettingsOf(s).Validate(); err != nil {
				t.Fatalf("seed %d: the elector refuses drawn settings %+v: %v", seed, s, err)
			}
		}
		if !carries {
			continue
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := faults.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("seed %d: decode: %v", seed, err)
		}
		if !reflect.DeepEqual(p, back) {
			t.Fatalf("seed %d: the plan does not read back as written:\n%s", seed, b)
		}
	}
	if sub*12 < draws || sub*5 > draws {
		t.Errorf("%d of %d settings have a lease with a remainder below a millisecond; want about one in eight", sub, draws)
	}
	for name, n := range map[string]int{"a nanosecond": one, "a millisecond less a nanosecond": most, "in between": between} {
		if n < 20 {
			t.Errorf("a remainder of %s: %d draws in 4000 seeds", name, n)
		}
	}
}

// TestDurationReadsBackToTheNanosecond: durations with a remainder below a
// millisecond, and leases at and around protocol.MaxLeaseDuration, read
// back exactly as written.
func TestDurationReadsBackToTheNanosecond(t *testing.T) {
	for _, d := range []time.Duration{
		time.Second + time.Nanosecond, 20*time.Second + 999_999*time.Nanosecond, 12345678901 * time.Nanosecond,
		23*time.Hour + 1, 24*time.Hour - 1, 24 * time.Hour, 24*time.Hour + time.Millisecond, 24*time.Hour + time.Millisecond + 1,
	} {
		b, err := faults.Duration(d).MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back faults.Duration
		if err := back.UnmarshalText(b); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if back.D() != d {
			t.Errorf("%v written %q reads back as %v", d, b, back.D())
		}
	}
}
