package schema

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Replay is what `simrun replay -json` prints: one run whole, its verdict,
// plan, terms and trace.
type Replay struct {
	Header
	Scenario  string            `json:"scenario"`
	Seed      uint64            `json:"seed"`
	Verdict   string            `json:"verdict"`
	Signature harness.Signature `json:"signature"`
	// Expect is the signature a reproducer file was written for.
	Expect     *harness.Signature          `json:"expect,omitempty"`
	Hash       string                      `json:"hash"`
	Steps      int                         `json:"steps"`
	Failure    string                      `json:"failure,omitempty"`
	Violations []linearizability.Violation `json:"violations"`
	// Outside says how the run left the protocol's assumptions; Excused
	// are the violations those departures account for, with their excuses.
	Outside []string          `json:"outside,omitempty"`
	Excused []harness.Excused `json:"excused,omitempty"`
	Plan    *faults.Plan      `json:"plan"`
	Terms   []sim.Term        `json:"terms"`
	Events  []sim.Event       `json:"events"`
}
