package schema

// Memory is what a campaign's process held, sampled each time it saved its
// state (twice a second) during its last session: the live heap (bytes
// reachable after the latest garbage collection) at the first sample, the
// last and the largest, with the seeds done at the first and the last, and
// the most memory the process had from the operating system. A flat
// campaign has Last close to First however many seeds lie between.
type Memory struct {
	Samples       int    `json:"samples"`
	FirstSeeds    uint64 `json:"firstSeeds"`
	FirstLiveHeap uint64 `json:"firstLiveHeap"`
	LastSeeds     uint64 `json:"lastSeeds"`
	LastLiveHeap  uint64 `json:"lastLiveHeap"`
	PeakLiveHeap  uint64 `json:"peakLiveHeap"`
	PeakTotal     uint64 `json:"peakTotal"`
	// FirstMeanLiveHeap and LastMeanLiveHeap are the means of the live
	// heap over the first and over the latest MemoryMeanOf samples: one
	// sample moves with the instant of the latest collection, and the
	// means tell a campaign that holds on to memory from one that does not.
	FirstMeanLiveHeap uint64 `json:"firstMeanLiveHeap,omitempty"`
	LastMeanLiveHeap  uint64 `json:"lastMeanLiveHeap,omitempty"`
}

// MemoryMeanOf is the number of samples Memory's means are taken over.
const MemoryMeanOf = 20
