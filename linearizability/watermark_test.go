package linearizability

import (
	"testing"
	"time"
)

var wmBase = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func ts(s float64) time.Time { return wmBase.Add(time.Duration(s * float64(time.Second))) }
func sec(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}

// handOver is a history of two terms: token 1 publishes watermarks up to
// 12 s and writes below them; token 2 is handed 12 s (after a release, or
// after a crash: its last renewal's) and writes from write2 on.
func handOver(write2 time.Time) WatermarkHistory {
	return WatermarkHistory{
		Publications: []Publication{
			{Token: 1, Watermark: ts(6), Known: sec(1)},
			{Token: 1, Watermark: ts(12), Known: sec(7)},
			{Token: 2, Watermark: ts(12), Known: sec(20)}, // the acquisition inherits it
			{Token: 2, Watermark: ts(25), Known: sec(21)},
		},
		Writes: []StampedWrite{
			{Node: 0, Token: 1, Stamp: ts(2), At: sec(2)},
			{Node: 0, Token: 1, Stamp: ts(8), At: sec(8)},
			{Node: 1, Token: 2, Stamp: write2, At: sec(22)},
		},
	}
}

func TestWatermarkHandOverPasses(t *testing.T) {
	if v := CheckWatermarks(handOver(ts(12.001))); len(v) != 0 {
		t.Fatalf("a correct hand-over: %v", v)
	}
}

// The new holder ignores what it was handed and stamps by its wall clock,
// which a step took back below the watermark: caught.
func TestWatermarkCatchesBrokenHandOver(t *testing.T) {
	for _, stamp := range []time.Time{ts(12), ts(9)} {
		v := CheckWatermarks(handOver(stamp))
		if len(v) != 1 || v[0].Checker != WatermarkChecker || v[0].Rule != RuleBelowPredecessor || v[0].Token != 2 || v[0].Nodes[0] != 1 || v[0].At != sec(22) {
			t.Errorf("entry stamped %v under token 2: %v; want one %s violation", stamp, v, RuleBelowPredecessor)
		}
	}
}

// A holder that writes before its watermark is published breaks the
// hand-off for its successor if it dies: caught even though the successor
// keeps above what it was handed.
func TestWatermarkCatchesWriteAboveOwn(t *testing.T) {
	h := handOver(ts(12.5))
	h.Writes = append(h.Writes, StampedWrite{Node: 0, Token: 1, Stamp: ts(6.5), At: sec(6.5)}) // 12 s is published at 7 s only
	v := CheckWatermarks(h)
	if len(v) != 1 || v[0].Rule != RuleAboveOwn || v[0].Token != 1 || v[0].At != sec(6.5) {
		t.Fatalf("an entry above the published watermark: %v; want one %s violation", v, RuleAboveOwn)
	}
}

// Chains: every earlier term's watermark counts, not only the last one.
func TestWatermarkChain(t *testing.T) {
	h := handOver(ts(13))
	h.Publications = append(h.Publications, Publication{Token: 3, Watermark: ts(12), Known: sec(30)}) // did not raise it
	h.Writes = append(h.Writes, StampedWrite{Node: 2, Token: 3, Stamp: ts(20), At: sec(31)})
	if v := CheckWatermarks(h); len(v) != 2 || v[0].Token != 3 || v[0].Rule != RuleBelowPredecessor {
		t.Fatalf("token 3 writing below token 2's watermark: %v", v)
	}
}
