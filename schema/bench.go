package schema

import "github.com/s3lease/s3lease/faults"

// Bench is what `simrun bench -json` prints: the speed of one scenario on
// one goroutine, all checkers on.
type Bench struct {
	Header
	Scenario string `json:"scenario"`
	Seeds    int    `json:"seeds"`
	// Simulated is the simulated length of one run.
	Simulated      faults.Duration `json:"simulated"`
	Wall           faults.Duration `json:"wall"`
	SeedsPerSecond float64         `json:"seedsPerSecond"`
	PerSeed        faults.Duration `json:"perSeed"`
	StepsPerSeed   int             `json:"stepsPerSeed"`
	NsPerStep      float64         `json:"nsPerStep"`
	AllocsPerSeed  uint64          `json:"allocsPerSeed"`
	BytesPerSeed   uint64          `json:"bytesPerSeed"`
	// S3Check is the time the linearizability check of the S3 history
	// took per seed, and S3CheckShare its share of the wall time (0..1).
	S3Check      faults.Duration `json:"s3Check"`
	S3CheckShare float64         `json:"s3CheckShare"`
}
