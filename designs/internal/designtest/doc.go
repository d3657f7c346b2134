// Package designtest holds what the seed designs' tests share: a flag that
// widens every sweep of a package (SeedsFlag), a sweep that runs seeds
// 1..n of a scenario on every core with traces and checks each run (Sweep,
// SweepWith), and the walk that pairs a trace's typed S3 events into the
// requests they show (Calls).
//
// A sweep fails its test on a run that cannot be set up, crashes or
// blocks, and on every error its check returns; it reports the first few
// failures, sorted, each with the simrun command that replays it. A run
// judged blocked (code that made no progress for seconds of real time) is
// run once more before it counts: the simulation is deterministic, so a
// rerun that goes on shows that the machine, not the code, stalled the
// first, as happens on a machine shared with other work; a run that blocks
// twice fails.
//
// The package is for tests only: it imports package testing.
package designtest
