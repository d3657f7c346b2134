package linearizability

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

func TestMonotonicTokens(t *testing.T) {
	tests := []struct {
		name string
		h    *sim.History
		want []want
	}{
		// Histories that must pass.
		{name: "nil history", h: nil},
		{name: "empty history", h: terms()},
		{name: "one open term", h: terms(openTerm(0, 0, 0, 0, 10_000))},
		{name: "strictly increasing with gaps", h: terms(
			term(0, 0, 1, 0, 100), term(1, 0, 4, 200, 300), term(0, 1, 9, 400, 500))},
		{name: "re-announced term", h: terms(
			term(0, 0, 1, 0, 100), term(1, 0, 2, 200, 300), term(1, 0, 2, 350, 400), openTerm(1, 0, 2, 450, 10_000))},
		{name: "recorded out of start order", h: terms(
			term(1, 0, 2, 200, 300), term(0, 0, 1, 0, 100))},
		{name: "same start ordered by node", h: terms(
			term(1, 0, 6, 100, 300), term(0, 0, 5, 100, 200))},
		{name: "overlapping terms", h: terms(
			term(0, 0, 1, 0, 1000), term(1, 0, 2, 10, 20), term(2, 0, 3, 30, 40))},

		// Histories that must fail.
		{name: "token goes down", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 3, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{0, 1}, Token: 3, Says: "below token 5"}}},
		{name: "same token on another node", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 5, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{0, 1}, Token: 5, Says: "same token"}}},
		{name: "same token after restart", h: terms(
			term(1, 0, 5, 0, 100), term(1, 1, 5, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{1}, Token: 5}}},
		{name: "same node lower token", h: terms(
			term(2, 0, 5, 0, 100), term(2, 0, 4, 200, 300)),
			want: []want{{At: ms(200), Nodes: []int{2}, Token: 4}}},
		{name: "re-announce after a successor", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 6, 200, 300), openTerm(0, 0, 5, 400, 10_000)),
			want: []want{{At: ms(400), Nodes: []int{0, 1}, Token: 5}}},
		{name: "token reset reported once", h: terms(
			term(0, 0, 5, 0, 100), term(1, 0, 6, 200, 300), term(2, 0, 1, 400, 500), term(3, 0, 2, 600, 700)),
			want: []want{{At: ms(400), Nodes: []int{1, 2}, Token: 1}}},
		{name: "same start: lower node has the higher token", h: terms(
			term(1, 0, 5, 100, 300), term(0, 0, 6, 100, 200)),
			want: []want{{At: ms(100), Nodes: []int{0, 1}, Token: 5}}},
		{name: "recorded in order, started out of order", h: terms(
			term(0, 0, 1, 300, 400), term(1, 0, 2, 100, 200)),
			want: []want{{At: ms(300), Nodes: []int{0, 1}, Token: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkTable(t, monotonicTokensName, checkMonotonicTokens, tt.h, tt.want)
		})
	}
}
