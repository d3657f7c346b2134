// Package scenarios names the runs the harness knows how to make and judges
// them.
//
// A Scenario is a function from a seed to a sim.Config: the nodes, the
// protocol they run, the world's latencies and clocks, and what happens to
// the nodes over time (restarts now; faults as the fault model grows). The
// production elector enters the simulator through ProductionElector, an
// adapter that builds protocol.Elector from the node's simulated clock, S3
// client and entropy, and hands each term's token to the simulated
// application.
//
// RunSeed runs one seed of a scenario and judges the result with the
// checkers of package linearizability. Its Verdict is three-valued: Pass,
// Unsafe (a checker found a violation), or Crashed (the run could not finish:
// a panic in protocol code, or a run that stopped advancing). A crashed run
// is never counted as a pass.
//
// The reference scenario is the default of `simrun run` and of the
// benchmark: five nodes for one simulated minute, with clock offsets and
// drift inside the elector's assumed bound, realistic S3 latencies, and
// rolling restarts in which nodes release their lease, stop, and come back,
// some under a new identity.
package scenarios
