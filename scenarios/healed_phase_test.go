package scenarios

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// TestHealedPhaseIsFaultFree: pauses aimed at protocol instants (an
// answer, a guarded write) that begin just before the heal are cut there,
// and a lingering application stops there, so that after the heal nothing
// happens that the assumptions forbid. Every node's every answer and write
// is aimed at, with pauses longer than the safety phase has left.
func TestHealedPhaseIsFaultFree(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	heal := 8 * time.Second
	for seed := uint64(1); seed <= 20; seed++ {
		cfg := harness.World(seed)
		cfg.Nodes, cfg.Duration = 3, 30*time.Second
		plan := &faults.Plan{HealAt: faults.Duration(heal)}
		for n := range cfg.Nodes {
			for nth := 1; nth <= 40; nth++ {
				plan.Events = append(plan.Events,
					faults.Event{Kind: faults.AnswerPause, Node: n, Op: "GetObject", Nth: nth, For: faults.Duration(3 * time.Second)},
					faults.Event{Kind: faults.PauseBefore, Node: n, Nth: nth, For: faults.Duration(3 * time.Second)})
			}
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Linger, At: faults.Duration(time.Second), Node: n, By: faults.Duration(5 * time.Second)})
		}
		o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: p}, false)
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for _, f := range o.Result.History.Faults {
			if f.To > heal {
				t.Errorf("seed %d: %s lasts past the heal at %v", seed, f, heal)
			}
			if f.To == heal {
				cut++
			}
		}
		if cut == 0 {
			t.Logf("seed %d: no fault was under way at the heal", seed)
		}
	}
}
