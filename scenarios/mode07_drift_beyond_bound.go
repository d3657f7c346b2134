package scenarios

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
)

// DriftBeyondBound is clock drift
// (docs/failure-modes.md#7-clock-offset-and-drift) outside the elector's
// assumptions: clock rates 5% to 40% off, far beyond the assumed 1000 ppm.
//
// With the default settings a term lasts 4 s on the leader's clock and a
// follower waits a 6 s lease on its own, so two leaders overlap only once a
// slow leader and a fast follower are each more than 20% off (4/(1-r) >
// 6/(1+r) for r > 0.2); below that the slack still absorbs the drift.
var DriftBeyondBound = harness.Drawn(harness.Scenario{
	Name: "drift-beyond-bound",
	Doc: "As clock-skew, but the leader's clock runs 5-40% slow and a follower's as much fast. Past 20% the " +
		"follower ends the lease before the leader ends its term: both lead for a moment, and the fenced " +
		"resource refuses the old leader's writes once the new token has arrived.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		return modeASkewedHandover(seed, src.Sub("drift-beyond-bound"), 50_000, 400_000)
	},
})
