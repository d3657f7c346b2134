package epochfile

import "github.com/s3lease/s3lease/harness"

// SwarmNaive runs the naive form under the swarm campaign as
// "epochfile/naive": the clock offsets every swarm plan draws make nodes
// disagree with S3's Last-Modified by minutes, so two leaders overlap.
var SwarmNaive = func() harness.Scenario {
	sc := harness.Swarm("epochfile/naive", Naive())
	sc.Doc = "The epoch-file lock of docs/sources.md#morling-a-lock-file-per-epoch as written: validity judged from S3's " +
		"Last-Modified against the node's wall clock, under swarm plans; clock offsets make two leaders overlap."
	sc.Expect = harness.Caught
	return sc
}()

// SwarmSafe runs the safe form under the swarm campaign as
// "epochfile/safe": it survives inside its assumptions, and outside them
// the epoch fences every stale write.
var SwarmSafe = func() harness.Scenario {
	sc := harness.Swarm("epochfile/safe", Safe())
	sc.Doc = "The epoch-file lock made safe (validity on each node's monotonic clock, followers mark a file expired " +
		"If-Match before the next epoch, a confirming listing, cleanup with a margin) under swarm plans."
	sc.Expect = harness.Either
	return sc
}()

// Scenarios is every scenario of the design, for a program's simrun.Main:
// the naive and the safe lock under swarm plans, then the stories of its
// races.
func Scenarios() []harness.Scenario {
	return []harness.Scenario{SwarmNaive, SwarmSafe, CreateRace, ListRace, CleanupRace, StaleCreate}
}
