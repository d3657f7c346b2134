package schema

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
)

// Explore is what `simrun explore -json` prints: how much of a small
// configuration's schedule space was explored, and the first failure.
type Explore struct {
	Header
	Scenario   string          `json:"scenario"`
	Seed       uint64          `json:"seed"`
	Nodes      int             `json:"nodes"`
	Duration   faults.Duration `json:"duration"`
	Executions int             `json:"executions"`
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
