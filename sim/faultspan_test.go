package sim

import (
	"testing"
	"time"
)

// TestMergeSpans: spans of a node that overlap or touch become one, named
// by their kinds; other nodes' spans and gaps stay apart; empty spans go.
func TestMergeSpans(t *testing.T) {
	s := func(kind string, node int, from, to time.Duration) FaultSpan {
		return FaultSpan{Kind: kind, Node: node, From: from * time.Second, To: to * time.Second}
	}
	got := MergeSpans([]FaultSpan{s("pause", 1, 3, 5), s("answer-pause", 1, 1, 3), s("pause", 2, 2, 4), s("pause", 1, 6, 7), s("pause", 1, 8, 8)})
	want := []FaultSpan{s("answer-pause + pause", 1, 1, 5), s("pause", 1, 6, 7), s("pause", 2, 2, 4)}
	if len(got) != len(want) {
		t.Fatalf("MergeSpans = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d = %v, want %v", i, got[i], want[i])
		}
	}
}
