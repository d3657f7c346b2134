package schema

import "github.com/s3lease/s3lease/faults"

// Bench is what `simrun bench -json` prints: the speed of one scenario,
// all checkers on; with -scale, one cell per size of the scaling table
// instead.
type Bench struct {
	Header
	Scenario string `json:"scenario"`
	BenchCell
	// SDK is, with -compare-s3, the same seeds run through the real
	// aws-sdk-go-v2 client (BenchCell is then the fast path's).
	SDK   *BenchCell  `json:"sdk,omitempty"`
	Scale []BenchCell `json:"scale,omitempty"`
}

// BenchCell is one measurement: Seeds seeds of Nodes nodes for Simulated
// each, on Workers goroutines.
type BenchCell struct {
	Nodes          int             `json:"nodes,omitempty"`
	Simulated      faults.Duration `json:"simulated,omitempty"`
	Seeds          int             `json:"seeds,omitempty"`
	Workers        int             `json:"workers,omitempty"`
	Wall           faults.Duration `json:"wall,omitempty"`
	SeedsPerSecond float64         `json:"seedsPerSecond,omitempty"`
	PerSeed        faults.Duration `json:"perSeed,omitempty"`
	StepsPerSeed   int             `json:"stepsPerSeed,omitempty"`
	// NsPerStep is CPU time (wall time × workers) per simulated step.
	NsPerStep     float64 `json:"nsPerStep,omitempty"`
	AllocsPerSeed uint64  `json:"allocsPerSeed,omitempty"`
	BytesPerSeed  uint64  `json:"bytesPerSeed,omitempty"`
	// S3Check is the time the linearizability check of the S3 history
	// took per seed, and S3CheckShare its share of the CPU time (0..1).
	S3Check      faults.Duration `json:"s3Check,omitempty"`
	S3CheckShare float64         `json:"s3CheckShare,omitempty"`
	// S3FastShare is the share of runs the fast checker decided (0..1);
	// porcupine decided the others.
	S3FastShare float64 `json:"s3FastShare,omitempty"`
	// PhaseSeeds is how many seeds were timed phase by phase (one in
	// seventeen), and SimulationShare, ProtocolShare and CheckersShare how
	// their time divided (0..1, summing to 1): the simulator (scheduler,
	// clocks, simulated S3, trace), the protocol's own code, and judging
	// the run (sim.Phases).
	PhaseSeeds      int     `json:"phaseSeeds,omitempty"`
	SimulationShare float64 `json:"simulationShare,omitempty"`
	ProtocolShare   float64 `json:"protocolShare,omitempty"`
	CheckersShare   float64 `json:"checkersShare,omitempty"`
}
