package harness

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// TestHealedAtWaitsForRequestsInFlight: liveness is judged from when the
// faults really ended: the plan's heal, a fault that outlasted it, or the
// answer of a request that was in flight at the heal; requests sent after
// the heal, and requests whose answer never came, do not move it.
func TestHealedAtWaitsForRequestsInFlight(t *testing.T) {
	s := time.Second
	plan := &faults.Plan{HealAt: faults.Duration(10 * s)}
	for _, c := range []struct {
		name   string
		faults []sim.FaultSpan
		ops    []sim.S3Op
		want   time.Duration
	}{
		{"nothing after the heal", nil, []sim.S3Op{{Call: 2 * s, Return: 3 * s}}, 10 * s},
		{"a fault that outlasted it", []sim.FaultSpan{{Kind: "pause", From: 9 * s, To: 12 * s}}, nil, 12 * s},
		{"an answer in flight at the heal", nil, []sim.S3Op{{Call: 9 * s, Return: 14 * s}, {Call: 8 * s, Return: 11 * s}}, 14 * s},
		{"a request sent after the heal", nil, []sim.S3Op{{Call: 11 * s, Return: 20 * s}}, 10 * s},
		{"an answer that never came", nil, []sim.S3Op{{Call: 9 * s, Return: -1}}, 10 * s},
	} {
		h := &sim.History{Faults: c.faults, S3: c.ops}
		if got := healedAt(plan, h); got != c.want {
			t.Errorf("%s: healed at %v, want %v", c.name, got, c.want)
		}
	}
}
