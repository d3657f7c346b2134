// Package comparison measures the simulator against the obvious
// alternative, Go's testing/synctest, on the same work, so that anyone can
// rerun the comparison and see how much faster the simulator is.
//
// # What is compared
//
// Both sides run the reference scenario's world without its faults
// (Reference): five production electors (protocol.NewElector with
// elector.DefaultSettings: 6 s lease, 4 s renew deadline, 1 s retry
// period, 1.5 s request timeout, release on cancel) sharing one S3 for 60
// seconds of virtual time, each S3 request leg taking 2 to 40 ms and each
// fenced-write leg 1 to 10 ms (uniform), and the leader's application
// writing to a fenced resource every 500 ms. Each run is recorded as a
// sim.History and judged by every checker: unique holder, monotonic tokens,
// fencing, overlap, liveness, and the linearizability of the S3 history.
//
//   - The simulator: scenarios.Reference.Build(seed) with its fault plan
//     removed (no clock offsets, drift or restarts), run and judged by
//     harness.RunSetup (RunSim).
//   - synctest: the same electors as goroutines in a synctest bubble, whose
//     fake clock protocol.RealClock reads, against a sim.Store (the
//     simulator's pure S3 model, used alone) behind a mutex, with the same
//     latency distributions drawn from a seeded math/rand/v2 PCG and slept
//     on the bubble's timers, and the same application (RunSynctest), then
//     judged by the same checkers (Judge, which the tests hold to
//     harness.RunSetup's verdicts).
//
// Neither side is byte-identical to the other: their schedules and random
// draws differ. What must be equal is the work done per seed, and SameWork
// checks it: the mean S3 calls, fenced writes and terms per seed of the
// two sides within Tolerance, 5%. The counts follow from the cadences (a
// follower reads every retry period plus jitter, the leader renews every
// retry period, the application writes every write interval plus a round
// trip), not from the schedule, so they barely vary: over hundreds of
// seeds the means agree within 0.1%, and a single seed's S3 calls lie
// within 2% of the mean (fenced writes and terms do not vary at all
// without faults). 5% therefore never fails two faithful sides, even on
// the benchmark's one-seed probe, while a change in the work beyond 5%
// fails it: an application writing a tenth more often than the
// simulator's, say, or one term lost or added in ten seeds.
//
// # How to run it
//
// The comparison is test code, in the package's test files (the synctest
// side needs the *testing.T of a test), and go test runs it:
//
//	go test -run '^$' -bench Compare -cpu 1 ./internal/comparison/
//
// runs b.N seeds on each side in one process, taking turns in batches of
// 20 (-compare.batch) so that noise on the machine falls on both, and
// reports sim-ns/seed and synctest-ns/seed (real time to run and judge one
// seed), their ratio, and the work per seed of each side; it fails if a
// run is not judged Pass or the work differs. Add -benchtime 2000x for a
// fixed number of seeds. ns/op is suppressed, since an op is one seed on
// each side. The same comparison as a test with a fixed number of seeds:
//
//	go test -run TestCompareRatio -v -cpu 1 ./internal/comparison/ -compare.seeds 2000
//
// BenchmarkSide runs one side alone, for profiling:
//
//	go test -run '^$' -bench 'Side/sim' -cpu 1 -benchtime 5000x -cpuprofile sim.prof ./internal/comparison/
//	go tool pprof -top -cum sim.prof
//
// synctest.Test needs a *testing.T, which a benchmark does not have: the
// benchmarks run the comparison as the one test of a testing.RunTests
// call, which under -v prints its own === RUN and --- PASS lines.
//
// # How to read the ratio
//
// The ratio is synctest's time per seed over the simulator's: how many
// times more seeds per second the simulator checks, on one processor, than
// the same electors, application and checkers under synctest. Both times
// include the production elector's own code and the checkers, which cost
// the same on both sides, so the ratio understates how much cheaper the
// simulator's machinery (scheduler, clocks, simulated S3 client, trace) is
// than synctest's (goroutines, timers, the bubble's bookkeeping). A ratio
// of 1 would mean that the simulator buys its determinism, replay,
// exploration and faults at no speed advantage over synctest. Run it with
// -cpu 1: the simulator runs a seed's steps one at a time whatever
// GOMAXPROCS is, while synctest's goroutines may spread over processors,
// and the project's figure (simrun bench) is per goroutine. The ratio moves with the machine's load;
// compare figures from one invocation, not across invocations.
package comparison
