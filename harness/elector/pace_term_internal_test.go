package elector

import (
	"cmp"
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// TestPaceTermRule: over the settings the swarm draws (the default drift
// bound among them), the term rule passes what the elector states, and
// catches a statement a nanosecond off in its term or pause bound, or one
// that takes the default drift bound for no bound at all.
func TestPaceTermRule(t *testing.T) {
	p := Protocol(DefaultSettings)
	var drawn, defaults, atLimit int
	for seed := uint64(1); seed <= 3000; seed++ {
		for _, fs := range harness.SwarmPlan(seed, 3, p).Settings {
			s := SettingsOf(fs)
			if s.Validate() != nil {
				t.Fatalf("seed %d: drawn settings %+v are refused", seed, s)
			}
			drawn++
			stated := s.Assumptions()
			if v := s.termRule(0, stated); v != nil {
				t.Fatalf("seed %d: the rule refuses the elector's own statement: %v", seed, v[0])
			}
			if s.ClockDriftPPM == 0 {
				defaults++
				wrong := stated
				wrong.MaxDriftPPM = 0
				if s.termRule(0, wrong) == nil {
					t.Fatalf("seed %d: a drift bound of 0 for the default passes", seed)
				}
			}
			ppm := cmp.Or(s.ClockDriftPPM, protocol.DefaultClockDriftPPM)
			if s.RenewDeadline == mulDiv(s.LeaseDuration, 1e6-ppm, 1e6+ppm) {
				atLimit++
			}
			for _, wrong := range []func(a *protocol.Assumptions){
				func(a *protocol.Assumptions) { a.Term++ },
				func(a *protocol.Assumptions) { a.MaxPause++ },
				func(a *protocol.Assumptions) { a.MaxPause-- },
			} {
				a := stated
				wrong(&a)
				if s.termRule(0, a) == nil {
					t.Fatalf("seed %d: a statement a nanosecond off passes: %+v for %+v", seed, a, stated)
				}
			}
		}
	}
	if defaults*16 < drawn || atLimit*5 < drawn {
		t.Errorf("of %d drawn settings %d leave the drift bound at its default and %d have the deadline at the drift-margin limit; want about an eighth and a third", drawn, defaults, atLimit)
	}
}
