package simrun

// electorNotes says, for each point of the elector's coverage sets
// (transitions, answers by phase) that 10,000 swarm seeds do not reach,
// why: what the simulator does not model, or what reaches it instead.
// docs/coverage.md shows them; TestCoverageDoc holds every transition the
// document lists as never reached to a note.
var electorNotes = map[string]string{}
