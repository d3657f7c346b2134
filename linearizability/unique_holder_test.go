package linearizability

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

func TestUniqueHolder(t *testing.T) {
	tests := []struct {
		name string
		h    *sim.History
		want []want
	}{
		// Histories that must pass.
		{name: "nil history", h: nil},
		{name: "empty history", h: terms()},
		{name: "one term", h: terms(term(0, 0, 1, 0, 100))},
		{name: "one open term", h: terms(openTerm(2, 0, 7, 50, 10_000))},
		{name: "successive tokens on different nodes", h: terms(
			term(0, 0, 1, 0, 100), term(1, 0, 2, 200, 300), term(0, 0, 3, 400, 500), openTerm(2, 0, 4, 600, 10_000))},
		{name: "same token from same incarnation twice in a row", h: terms(
			term(1, 0, 5, 0, 100), term(1, 0, 5, 150, 300))},
		{name: "re-announced term left open", h: terms(
			term(1, 0, 5, 0, 100), openTerm(1, 0, 5, 150, 10_000))},
		{name: "overlapping terms with distinct tokens", h: terms(
			term(0, 0, 1, 0, 1000), term(1, 0, 2, 500, 1500))},
		{name: "restarted node gets a new token", h: terms(
			term(0, 0, 1, 0, 100), term(0, 1, 2, 200, 300))},
		{name: "tokens out of order but distinct", h: terms(
			term(0, 0, 9, 0, 100), term(1, 0, 3, 200, 300), term(2, 0, 6, 400, 500))},

		// Histories that must fail.
		{name: "two nodes one token", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 5, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{0, 1}, Token: 5, Says: "node 1 (incarnation 0) was handed token 5 at 200ms"}}},
		{name: "two nodes one token at the same instant", h: terms(
			term(3, 0, 5, 100, 200), term(1, 0, 5, 100, 300)),
			want: []want{{At: ms(100), Nodes: []int{1, 3}, Token: 5, Says: "node 3"}}},
		{name: "restarted incarnation reuses its token", h: terms(
			term(2, 0, 5, 0, 100), term(2, 1, 5, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{2}, Token: 5, Says: "incarnation 1"}}},
		{name: "token reused after another", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 6, 200, 300), openTerm(2, 0, 5, 400, 10_000)),
			want: []want{{At: ms(400), Nodes: []int{0, 2}, Token: 5}}},
		{name: "first holder comes back after an interloper", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 5, 200, 300), term(0, 0, 5, 400, 500)),
			want: []want{{At: ms(200), Nodes: []int{0, 1}, Token: 5}}},
		{name: "three holders of one token", h: terms(
			term(2, 0, 5, 0, 100), term(0, 0, 5, 300, 400), term(1, 0, 5, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{1, 2}, Token: 5}, {At: ms(300), Nodes: []int{0, 2}, Token: 5}}},
		{name: "earliest holder recorded last", h: terms(
			term(1, 0, 5, 200, 300), term(0, 0, 5, 0, 100)),
			want: []want{{At: ms(200), Nodes: []int{0, 1}, Token: 5}}},
		{name: "two tokens each shared", h: terms(
			term(0, 0, 1, 0, 100), term(1, 0, 2, 100, 200), term(2, 0, 2, 150, 250), term(3, 0, 1, 500, 600)),
			want: []want{{At: ms(150), Nodes: []int{1, 2}, Token: 2}, {At: ms(500), Nodes: []int{0, 3}, Token: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkTable(t, uniqueHolderName, checkUniqueHolder, tt.h, tt.want)
		})
	}
}
