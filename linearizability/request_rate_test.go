package linearizability

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/s3lease/s3lease/sim"
)

// calls is a history of S3 requests sent by the given nodes at the given
// instants, in that order.
func calls(reqs ...sim.S3Op) *sim.History { return &sim.History{S3: reqs} }

func req(node int, at time.Duration) sim.S3Op {
	return sim.S3Op{Node: node, Op: "GetObject", Call: at, Return: at + time.Millisecond}
}

// TestRequestRateCatchesAStorm: three requests in a window of one second
// are allowed, a fourth inside the same second is a storm, witnessed when
// it was sent; requests exactly a window apart are in different windows;
// outside writes (node -1) and nodes without a bound are not judged.
func TestRequestRateCatchesAStorm(t *testing.T) {
	ms := time.Millisecond
	bound := func(int) RequestRate { return RequestRate{Window: time.Second, Max: 3} }
	spaced := calls(req(0, 0), req(0, 400*ms), req(0, 800*ms), req(0, 1000*ms), req(0, 1400*ms), req(-1, 1401*ms), req(-1, 1402*ms))
	if v := CheckRequestRate(spaced, bound); v != nil {
		t.Fatalf("three requests a second: %v; want none", v)
	}
	storm := calls(req(1, 0), req(0, 100*ms), req(0, 200*ms), req(0, 300*ms), req(0, 999*ms), req(0, 5000*ms))
	v := CheckRequestRate(storm, bound)
	if len(v) != 1 || v[0].Checker != RateCheckName || v[0].At != 999*ms || len(v[0].Nodes) != 1 || v[0].Nodes[0] != 0 {
		t.Fatalf("violations %+v; want one, request-rate of n0 at 999ms", v)
	}
	if v := CheckRequestRate(storm, func(n int) RequestRate {
		if n == 0 {
			return RequestRate{}
		}
		return RequestRate{Window: time.Second, Max: 3}
	}); v != nil {
		t.Fatalf("n0 has no bound: %v; want none", v)
	}
}

// TestRequestRateAgreesWithCounting: on random histories, the checker
// finds a violation for a node exactly when some window [t, t+Window)
// beginning at one of its requests holds more than Max of them.
func TestRequestRateAgreesWithCounting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		window := time.Duration(rapid.IntRange(1, 50).Draw(t, "window"))
		maxN := rapid.IntRange(1, 5).Draw(t, "max")
		gaps := rapid.SliceOfN(rapid.IntRange(0, 20), 0, 40).Draw(t, "gaps")
		nodes := rapid.SliceOfN(rapid.IntRange(0, 2), len(gaps), len(gaps)).Draw(t, "nodes")
		h := &sim.History{}
		at := time.Duration(0)
		for i, g := range gaps {
			at += time.Duration(g)
			h.S3 = append(h.S3, req(nodes[i], at))
		}
		got := map[int]bool{}
		for _, v := range CheckRequestRate(h, func(int) RequestRate { return RequestRate{Window: window, Max: maxN} }) {
			got[v.Nodes[0]] = true
		}
		for n := range 3 {
			want := false
			for _, a := range h.S3 {
				if a.Node != n {
					continue
				}
				k := 0
				for _, b := range h.S3 {
					if b.Node == n && b.Call >= a.Call && b.Call < a.Call+window {
						k++
					}
				}
				want = want || k > maxN
			}
			if got[n] != want {
				t.Fatalf("node %d: violation %v, want %v", n, got[n], want)
			}
		}
	})
}
