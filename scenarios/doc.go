// Package scenarios holds the stories: named runs of the known failure
// modes of leader election on S3 (docs/failure-modes.md; the stories of
// failure mode NN are in modeNN_*.go), each a function from a seed to a
// world, a fault plan and a protocol, with the outcome it expects of the
// production elector (survives inside its assumptions, fenced outside them)
// or of a deliberately broken lock (caught).
//
// Each story registers itself with the harness at init, so that `simrun
// run -scenario NAME` runs it and reproducer files name it. The engine
// that runs and judges them (verdicts, shrinking, reproducers, exploration)
// is package harness; resumable, sharded campaigns are package campaign;
// the broken locks are package zoo.
//
// Two scenarios are campaigns rather than stories: Swarm, the production
// elector under random fault plans (harness.Swarm), the default of `simrun
// run`; and Reference, the benchmark's workload: five nodes for one
// simulated minute, with clock offsets and drift inside the elector's
// assumed bound, realistic S3 latencies, and rolling restarts in which
// nodes release their lease, stop, and come back, some under a new
// identity.
//
// Each story's test reads the trace, by the kinds of its events and faults
// (sim.FaultKind), for the evidence that the fault happened where intended
// on every seed of its range, and then judges the outcome. One seed of
// each story is also told in full as a golden transcript,
// testdata/golden/NAME.txt (its trace condensed to terms, faults by kind,
// fenced writes refused, the verdict and what it excused), which
// TestGolden holds each run to and go test -run TestGolden -rewrite writes
// anew.
package scenarios
