package campaign

import (
	"runtime/metrics"

	"github.com/s3lease/s3lease/schema"
)

// memoryMetrics are the runtime's figures a campaign samples: the live heap
// and all the memory mapped from the operating system.
var memoryMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/total:bytes"}

// sampleMemory adds one sample, taken with seeds done, to m.
func sampleMemory(m *schema.Memory, seeds uint64) {
	s := make([]metrics.Sample, len(memoryMetrics))
	for i, name := range memoryMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var live, total uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		total = s[1].Value.Uint64()
	}
	if m.Samples == 0 {
		m.FirstSeeds, m.FirstLiveHeap = seeds, live
	}
	m.Samples++
	m.LastSeeds, m.LastLiveHeap = seeds, live
	m.PeakLiveHeap = max(m.PeakLiveHeap, live)
	m.PeakTotal = max(m.PeakTotal, total)
}
