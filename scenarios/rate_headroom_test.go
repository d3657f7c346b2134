package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
)

// TestRequestRateHeadroom: the production elector's swarm runs stay within
// two thirds of its request-rate bound (22 of 33 requests in a window of
// one RetryPeriod), every node under its own settings, so that the bound
// judges storms and not a busy but correct elector. Seeds 1..300, or the
// sweep's window (-scenarios.first, -scenarios.seeds).
func TestRequestRateHeadroom(t *testing.T) {
	first, n := *sweepFirst, uint64(300)
	if *sweepSeeds > 0 {
		n = *sweepSeeds
	}
	for seed := first; seed < first+n; seed++ {
		st := Swarm.Build(seed)
		o, err := harness.RunSetup(st, false)
		if err != nil {
			t.Fatal(err)
		}
		p, err := harness.Configured(st.Protocol, st.Plan, st.Config.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		tighter := func(node int) linearizability.RequestRate {
			r := p.RequestRateOf(node)
			r.Max = r.Max * 2 / 3
			return r
		}
		if v := linearizability.CheckRequestRate(o.Result.History, tighter); len(v) > 0 {
			t.Errorf("seed %d: %v (go run ./cmd/simrun replay -scenario swarm -seed %d)", seed, v[0], seed)
		}
	}
}
