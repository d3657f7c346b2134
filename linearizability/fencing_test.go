package linearizability

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

const refused = "wrongly refused a current leader"

func TestFencing(t *testing.T) {
	tests := []struct {
		name string
		h    *sim.History
		want []want
	}{
		// Histories that must pass.
		{name: "nil history", h: nil},
		{name: "empty history", h: writes()},
		{name: "terms but no writes", h: terms(term(0, 0, 1, 0, 100))},
		{name: "increasing accepted tokens", h: writes(
			write(0, 1, 10, true), write(1, 2, 20, true), write(2, 7, 30, true))},
		{name: "equal tokens accepted from the same node", h: writes(
			write(1, 4, 10, true), write(1, 4, 20, true), write(1, 4, 20, true))},
		{name: "stale write rejected", h: writes(
			write(0, 5, 10, true), write(1, 6, 20, true), write(0, 5, 30, false), write(1, 6, 40, true))},
		{name: "recorded out of applied order", h: writes(
			write(1, 6, 20, true), write(0, 5, 10, true), write(0, 5, 30, false))},
		{name: "ties in applied time keep recorded order", h: writes(
			write(1, 6, 10, true), write(0, 5, 10, false))},

		// Histories that must fail.
		{name: "stale write accepted", h: writes(
			write(0, 5, 10, true), write(1, 6, 20, true), write(0, 5, 30, true)),
			want: []want{{At: ms(30), Nodes: []int{0, 1}, Token: 5, Says: "stale token 5"}}},
		{name: "every stale accept reported", h: writes(
			write(0, 9, 10, true), write(1, 3, 20, true), write(2, 4, 30, true)),
			want: []want{{At: ms(20), Nodes: []int{0, 1}, Token: 3}, {At: ms(30), Nodes: []int{0, 2}, Token: 4}}},
		{name: "current write rejected", h: writes(
			write(0, 5, 10, true), write(1, 6, 20, false)),
			want: []want{{At: ms(20), Nodes: []int{0, 1}, Token: 6, Says: refused}}},
		{name: "equal token rejected", h: writes(
			write(0, 5, 10, true), write(0, 5, 20, false)),
			want: []want{{At: ms(20), Nodes: []int{0}, Token: 5, Says: refused}}},
		{name: "first write rejected", h: writes(
			write(3, 0, 10, false)),
			want: []want{{At: ms(10), Nodes: []int{3}, Token: 0, Says: "accepted no write yet"}}},
		{name: "two nodes under one token", h: writes(
			write(0, 5, 10, true), write(1, 5, 20, true), write(0, 5, 30, true)),
			want: []want{{At: ms(20), Nodes: []int{0, 1}, Token: 5, Says: "two nodes wrote under one epoch"}}},
		{name: "three nodes under one token", h: writes(
			write(2, 5, 10, true), write(0, 5, 20, true), write(1, 5, 30, true)),
			want: []want{{At: ms(20), Nodes: []int{0, 2}, Token: 5}, {At: ms(30), Nodes: []int{1, 2}, Token: 5}}},
		{name: "stale accept under another node's token", h: writes(
			write(0, 5, 10, true), write(1, 6, 20, true), write(1, 5, 30, true)),
			want: []want{
				{At: ms(30), Nodes: []int{1}, Token: 5, Says: "stale"},
				{At: ms(30), Nodes: []int{0, 1}, Token: 5, Says: "one epoch"},
			}},
		{name: "stale accept revealed by applied order", h: writes(
			write(0, 5, 30, true), write(1, 6, 20, true)),
			want: []want{{At: ms(30), Nodes: []int{0, 1}, Token: 5}}},
		{name: "rejected and shared in one run", h: writes(
			write(0, 5, 10, true), write(1, 5, 20, true), write(2, 7, 30, false)),
			want: []want{
				{At: ms(20), Nodes: []int{0, 1}, Token: 5, Says: "one epoch"},
				{At: ms(30), Nodes: []int{0, 2}, Token: 7, Says: refused},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkTable(t, fencingName, checkFencing, tt.h, tt.want)
		})
	}
}

// TestFencingSuperseded: a write sent under a token after a term with a
// higher token began is reported even though the fence accepted it (the
// new leader had not written yet); a write sent during its term and
// arriving late is not, nor is a write whose sender was not yet
// superseded.
func TestFencingSuperseded(t *testing.T) {
	sent := func(w sim.FencedWrite, at int) sim.FencedWrite { w.Sent = ms(at); return w }
	h := func(ws ...sim.FencedWrite) *sim.History {
		return &sim.History{Nodes: 2, Terms: []sim.Term{term(0, 0, 1, 0, 100), term(1, 0, 2, 120, 300)}, Writes: ws}
	}
	checkTable(t, fencingName, checkFencing, h(sent(write(0, 1, 90, true), 80), sent(write(0, 1, 130, true), 95)), nil)
	checkTable(t, fencingName, checkFencing, h(sent(write(0, 1, 90, true), 80), sent(write(0, 1, 140, true), 125), sent(write(1, 2, 150, true), 145)),
		[]want{{At: ms(125), Nodes: []int{0, 1}, Token: 1, Says: "the election had handed the lease on"}})
	// A fence that accepts everything lets a superseded write through
	// after the new leader wrote: both rules fire.
	checkTable(t, fencingName, checkFencing, h(sent(write(1, 2, 130, true), 125), sent(write(0, 1, 140, true), 135)),
		[]want{{At: ms(135), Nodes: []int{0, 1}, Token: 1, Says: "handed the lease on"}, {At: ms(140), Nodes: []int{0, 1}, Token: 1, Says: "stale token 1"}})
}
