package schema

import (
	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
)

// Run is what `simrun run -json` prints: the tallies of a range of seeds
// and every seed that failed.
type Run struct {
	Header
	Scenario  string `json:"scenario"`
	FirstSeed uint64 `json:"firstSeed"`
	// Seeds is the number of seeds run: fewer than asked if the run was
	// interrupted or stopped at its first failure (-until-failure).
	Seeds uint64 `json:"seeds"`
	Counts
	// Interrupted: the run was stopped by a signal before its range ended;
	// the counts are those of the seeds that finished.
	Interrupted    bool            `json:"interrupted,omitempty"`
	Workers        int             `json:"workers"`
	Wall           faults.Duration `json:"wall"`
	SeedsPerSecond float64         `json:"seedsPerSecond"`
	Failures       []SeedResult    `json:"failures"`
}

// SeedResult is one seed of a run that did not pass.
type SeedResult struct {
	Seed    uint64 `json:"seed"`
	Verdict string `json:"verdict"`
	// Hash is the run's trace hash (16 hex digits): a replay of the seed
	// gives the same.
	Hash       string                      `json:"hash"`
	Violations []linearizability.Violation `json:"violations,omitempty"`
	// Failure is why a crashed or blocked run could not finish.
	Failure string `json:"failure,omitempty"`
	// Replay is the command that replays the seed.
	Replay string `json:"replay"`
}
