// Package scenarios holds the stories: named runs of the known failure
// modes of leader election on S3 (docs/failure-modes.md; the stories of
// failure mode NN are in modeNN_*.go), each a function from a seed to a
// world, a fault plan and a protocol, with the outcome it expects of the
// production elector (survives inside its assumptions, fenced outside them)
// or of a deliberately broken lock (caught).
//
// [All] lists every story, for a program's simrun.Main (cmd/simrun passes
// it), so that `simrun run -scenario NAME` runs it and reproducer files
// name it. The engine that runs and judges them (verdicts, shrinking,
// reproducers, exploration) is package harness; the broken locks are
// package zoo.
//
// # The stories, by failure mode
//
// Each failure mode is one scenario or more; the outcome each expects is
// its Expect, and `simrun list` prints them all.
//
//   - 1, a pause longer than the lease: [PausePastLease]
//   - 2, a write that arrives late: [LateWrite]
//   - 3, a grant that arrives late: [LateGrant]
//   - 4, a renewal that hangs: [HungRenew]
//   - 5, an application that ignores its cancelled context: [ZombieApp]
//   - 6, a wall-clock jump: [WallClockJump]
//   - 7, clock offsets and rates: [ClockSkew], [DriftBeyondBound],
//     [ElectorSkew], and the naive lock caught, [NaiveSkew]
//   - 8, a monotonic clock that stops: [VMSuspend]
//   - 9, different lease durations: [MixedLeases]
//   - 10, an ambiguous conditional write: [AmbiguousWrite], [WriteConflict]
//   - 11, read then unconditional write: the broken design caught,
//     [UnconditionalWrite], and the elector, [CreateRace]
//   - 12, a release racing a renewal: [ReleaseInFlight]
//   - 13, a 409 answered to a renewal: [RenewConflict]
//   - 14, liveness after crashes: [LeaderCrash]
//   - 15, many candidates: [ManyCandidates]
//   - 16, ABA on If-Match: [RestoredRecord]
//   - 17, the lock object deleted or overwritten: [DeleteLock],
//     [OverwriteLock]
//
// Seed 003's timestamp watermark, handed over across a release, a crash
// and a wall-clock step, is [WatermarkHandoff]; an application that
// ignores the hand-off is caught, [WatermarkIgnored]. The swarm's
// watermark applications are judged by the watermark API's contract too
// ([RuleWatermarkAPI]).
//
// A store that tears reads racing a write (the body of one version, the
// ETag of another, as versitygw v1.8.0 answered) at four hand-overs is
// [TornRead]: the elector reads a body that does not match its ETag
// again, and survives; the zoo's lock that believes such a body is
// caught, [TornReadTrusted], handing out a token twice.
//
// # Campaigns and tests
//
// Two scenarios are campaigns rather than stories: [Swarm], the production
// elector under random fault plans (harness.Swarm; package faults lists
// what a seed draws), the default of `simrun run`; and [Reference], the
// benchmark's workload: five nodes for one
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
//
// # Fuzzing
//
// Two fuzz targets run whole runs, their choices drawn from the fuzzer's
// bytes: FuzzElector, the production elector, whose failure is a bug; and
// FuzzZooVariant, a zoo variant (zoo.Variants), whose failure is the
// fuzzer finding the variant's mistake. The variant is no-watchdog unless
// the environment variable S3LEASE_FUZZ_VARIANT names another:
//
//	go test -run '^$' -fuzz '^FuzzElector$' -fuzztime 10m ./scenarios/
//	S3LEASE_FUZZ_VARIANT=same-token go test -run '^$' -fuzz '^FuzzZooVariant$' -fuzztime 30s ./scenarios/
//
// A name that is no variant fails the target at once, listing the names.
package scenarios
