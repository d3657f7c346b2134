// Package schema is the JSON every simrun command writes: one set of types
// for run, replay, explore, zoo and bench (-json), and the counts that
// campaign and merge reports (campaign.Report, report.json) share with run.
//
// Every document is an object that begins with a Header: the schema
// Version it was written in and the command that wrote it, so a reader
// knows which type to decode it into. The conventions hold everywhere:
// names are camelCase; durations are text as Go writes them ("1.5s",
// "250ms"); a fencing token is a decimal string ("18446744073709551615"),
// so that a reader whose numbers are float64 (jq, JavaScript) reads every
// token exactly (version 2 wrote numbers; the types read both); nodes are
// lists of node indexes; a violation is an object
// (checker, rule, at, nodes, token, message), never a sentence; a verdict
// is its name (pass, unsafe, liveness, crashed, inconclusive, blocked).
//
// A reader decodes with these types; a field it does not know means a
// document of another version. Version changes whenever a field changes
// meaning or goes away.
package schema
