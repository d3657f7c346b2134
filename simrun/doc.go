// Package simrun is the simrun command line as a library: every subcommand
// (run, replay, html, shrink, explore, zoo, bench, campaign, merge, list,
// vet, version) for the scenarios registered with the harness. The stories of package
// scenarios and the zoo's broken locks are always there; a user's own main
// adds their protocols and scenarios:
//
//	package main
//
//	import (
//		"example.com/mylock"
//		"github.com/s3lease/s3lease/simrun"
//	)
//
//	func main() { simrun.Main(simrun.Protocol("mylock", mylock.Protocol())) }
//
// simrun.Protocol registers the protocol's swarm scenario under its name
// (the name harness.Check gives its reproducer files, so they replay with
// `simrun replay FILE`), and makes it the default of run, replay, bench,
// shrink and campaign.
//
// It runs campaigns of many seeds of a scenario, the replay of one seed or
// one reproducer file as a readable trace or an HTML page, shrinking of
// failing runs, exhaustive exploration of small runs, the bug zoo, sharded
// nightly campaigns and their merged reports, benchmarks of the simulator,
// and a static check of protocol code (vet).
//
// Exit status (harness.Verdict.ExitCode): 0 every run passed; 1 a safety
// violation was found; 2 bad usage; 3 a liveness failure (no stable leader
// once faults healed); 4 a run crashed (a panic in protocol code, a run that
// stopped advancing), or simrun itself could not do its work (a file it
// could not write); 5 a run was inconclusive (the linearizability check
// of its S3 history timed out); 6 code under simulation blocked outside the
// simulator; 7 a merge that lacks some of a campaign's shards (when no seed
// it covers failed); 130 or 143 a campaign stopped by SIGINT or SIGTERM,
// its state and report saved. A command that judges several runs exits
// with the status of the worst.
package simrun
