package campaign

import (
	"runtime/metrics"

	"github.com/s3lease/s3lease/internal/schema"
)

// memoryMetrics are the runtime's figures a campaign samples: the live heap
// and all the memory mapped from the operating system.
var memoryMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/total:bytes"}

// memorySampler keeps a campaign's memory figures: m, and the latest
// samples of the live heap for m's trailing mean.
type memorySampler struct {
	m      schema.Memory
	recent [schema.MemoryMeanOf]uint64
	sum    uint64 // of the first samples, while there are fewer than MemoryMeanOf
}

// sample adds one sample of the process's memory, taken with seeds done.
func (ms *memorySampler) sample(seeds uint64) {
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
	ms.add(seeds, live, total)
}

// add records one sample: the live heap and the memory from the system,
// with seeds done.
func (ms *memorySampler) add(seeds, live, total uint64) {
	m := &ms.m
	if m.Samples == 0 {
		m.FirstSeeds, m.FirstLiveHeap = seeds, live
	}
	m.Samples++
	m.LastSeeds, m.LastLiveHeap = seeds, live
	m.PeakLiveHeap = max(m.PeakLiveHeap, live)
	m.PeakTotal = max(m.PeakTotal, total)
	n := m.Samples // this sample's number, from 1
	if n <= schema.MemoryMeanOf {
		ms.sum += live
		m.FirstMeanLiveHeap = ms.sum / uint64(n)
	}
	ms.recent[(n-1)%schema.MemoryMeanOf] = live
	k := min(n, schema.MemoryMeanOf)
	var sum uint64
	for _, v := range ms.recent[:k] {
		sum += v
	}
	m.LastMeanLiveHeap = sum / uint64(k)
}
