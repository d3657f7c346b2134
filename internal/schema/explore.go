package schema

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
)

// Explore is what `simrun explore -json` prints: how much of a small
// configuration's schedule space was explored, and the first failure.
type Explore struct {
	Header
	Scenario string          `json:"scenario"`
	Seed     uint64          `json:"seed"`
	Nodes    int             `json:"nodes"`
	Duration faults.Duration `json:"duration"`
	// Executions counts the executions run to their end and judged.
	Executions int `json:"executions"`
	// POR reports that partial-order reduction was on (explore -por, the
	// default): orders of simultaneous events equivalent to orders
	// explored were not run. Pruned counts the scheduling alternatives it
	// did not run, each standing for one execution of the full search at
	// least; StoppedEarly the executions it stopped before their end once
	// they proved equivalent to one run already (not among Executions).
	POR          bool `json:"por"`
	Pruned       int  `json:"pruned"`
	StoppedEarly int  `json:"stoppedEarly"`
	// Distinct counts the executions with distinct trace hashes.
	Distinct  int    `json:"distinctTraces"`
	Exhausted bool   `json:"exhausted"`
	Verdict   string `json:"verdict"`
	// Of the first failing execution: its violations, the choice path that
	// reaches it, the explore command that replays it, and where -o and
	// -html wrote its reproducer (which 'simrun replay FILE' replays too)
	// and page.
	Violations []linearizability.Violation `json:"violations,omitempty"`
	Path       string                      `json:"path,omitempty"`
	Replay     string                      `json:"replay,omitempty"`
	Reproducer string                      `json:"reproducer,omitempty"`
	Page       string                      `json:"page,omitempty"`
	Wall       faults.Duration             `json:"wall"`
}
