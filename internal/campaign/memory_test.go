package campaign

import (
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestMemoryMeans: the means are of the first and of the latest
// MemoryMeanOf samples, so a campaign whose heap merely moves with the
// collector reads flat, and one that grows does not.
func TestMemoryMeans(t *testing.T) {
	var flat, growing memorySampler
	n := 10 * schema.MemoryMeanOf
	for i := range n {
		// A heap that swings by a third from sample to sample around 6 MiB.
		live := uint64(6<<20) + uint64(i%3)<<20 - 1<<20
		flat.add(uint64(100*(i+1)), live, 2*live)
		growing.add(uint64(100*(i+1)), uint64(4<<20+i<<16), 0)
	}
	m := flat.m
	if m.Samples != n || m.FirstSeeds != 100 || m.LastSeeds != uint64(100*n) {
		t.Fatalf("samples %+v", m)
	}
	if m.FirstMeanLiveHeap != m.LastMeanLiveHeap {
		t.Errorf("a heap that only swings: first mean %d, last mean %d", m.FirstMeanLiveHeap, m.LastMeanLiveHeap)
	}
	if m.PeakLiveHeap != 7<<20 || m.PeakTotal != 14<<20 {
		t.Errorf("peaks %d %d", m.PeakLiveHeap, m.PeakTotal)
	}
	g := growing.m
	firstWant := uint64(4<<20) + uint64((schema.MemoryMeanOf-1)<<16)/2
	lastWant := uint64(4<<20) + uint64((2*n-schema.MemoryMeanOf-1)<<16)/2
	if g.FirstMeanLiveHeap != firstWant || g.LastMeanLiveHeap != lastWant {
		t.Errorf("a growing heap: means %d, %d; want %d, %d", g.FirstMeanLiveHeap, g.LastMeanLiveHeap, firstWant, lastWant)
	}
}
