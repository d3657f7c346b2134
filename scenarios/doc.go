// Package scenarios holds the stories: named runs of the known failure
// modes of leader election on S3 (docs/failure-modes.md; the stories of
// failure mode NN are in modeNN_*.go), each a function from a seed to a
// world, a fault plan and a protocol, with the outcome it expects of the
// production elector (survives inside its assumptions, fenced outside them)
// or of a deliberately broken lock (caught).
//
// All lists every story, for a program's simrun.Main (cmd/simrun passes
// it), so that `simrun run -scenario NAME` runs it and reproducer files
// name it. The engine
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
// Each story's test reads the trace for the evidence that the fault
// happened where intended, and then judges the outcome.
package scenarios
