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
	// Coverage is what the runs reached of their coverage points.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Guided is set for a guided run (run -guided): what the campaign
	// did. Seeds is then its number of runs, FirstSeed its first fresh
	// seed.
	Guided *Guided `json:"guided,omitempty"`
}

// Guided is what a guided campaign did (harness.Guided): its runs of fresh
// seeds and derived from its corpus, the derived plans thrown away as
// invalid, the plans its corpus kept, and where it wrote its failures'
// reproducers.
type Guided struct {
	// Seed seeds the campaign's generator (the run's -start).
	Seed    uint64 `json:"seed"`
	Fresh   uint64 `json:"fresh"`
	Derived uint64 `json:"derived"`
	Invalid uint64 `json:"invalid"`
	Corpus  int    `json:"corpus"`
	Dir     string `json:"dir,omitempty"`
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
	// Replay is the command that replays the seed (of a run derived by a
	// guided campaign, its reproducer file; "" if it was not kept).
	Replay string `json:"replay"`
	// Run numbers the run in a guided campaign; Parent is the corpus run
	// it was derived from, by Mutations; Reproducer is the file written
	// for it.
	Run        uint64   `json:"run,omitempty"`
	Parent     uint64   `json:"parent,omitempty"`
	Mutations  []string `json:"mutations,omitempty"`
	Reproducer string   `json:"reproducer,omitempty"`
}
