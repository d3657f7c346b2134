// Command simrun runs the deterministic simulation of S3 leader election:
// campaigns of many seeds of a scenario against the production elector (or
// any protocol registered as a scenario), the replay of one seed or one
// reproducer file as a readable trace or an HTML page, shrinking of failing
// runs, exhaustive exploration of small runs, the bug zoo, sharded nightly
// campaigns and their merged reports, and benchmarks of the simulator.
//
// Exit status: 0 every run passed; 1 a safety violation was found; 2 bad
// usage; 3 a liveness failure (no stable leader once faults healed); 4 a run
// crashed (a panic in protocol code, a run that stopped advancing); 5 a run
// was inconclusive (the linearizability check of its S3 history timed out).
package main
