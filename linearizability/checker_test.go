package linearizability

import (
	"fmt"
	"slices"
	"testing"

	"github.com/s3lease/s3lease/sim"
)

func TestElectionCheckers(t *testing.T) {
	cs := ElectionCheckers()
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
		if c.Doc == "" || c.Check == nil {
			t.Errorf("checker %q: empty Doc or nil Check", c.Name)
		}
	}
	if want := []string{"unique-holder", "monotonic-tokens", "fencing"}; !slices.Equal(names, want) {
		t.Fatalf("checkers %v, want %v", names, want)
	}
	cs[0].Name = "changed"
	if ElectionCheckers()[0].Name != "unique-holder" {
		t.Errorf("ElectionCheckers hands out its internal list")
	}
}

// brokenEverywhere breaks every property, at interleaved times.
func brokenEverywhere() *sim.History {
	return &sim.History{
		Nodes: 3,
		End:   ms(1000),
		Terms: []sim.Term{
			term(0, 0, 5, 100, 200),
			term(1, 0, 5, 300, 400), // unique-holder and monotonic-tokens at 300ms
			term(2, 0, 7, 500, 600),
		},
		Writes: []sim.FencedWrite{
			write(2, 7, 250, true),
			write(0, 5, 300, true),  // stale at 300ms
			write(1, 9, 350, false), // current refused at 350ms
		},
	}
}

func TestCheckElectionOrder(t *testing.T) {
	h := brokenEverywhere()
	before := cloneHistory(h)
	got := CheckElection(h)
	if !sameHistory(h, before) {
		t.Errorf("CheckElection modified the history")
	}
	var seen []string
	for _, v := range got {
		seen = append(seen, fmt.Sprintf("%v %s", v.At, v.Checker))
	}
	want := []string{
		"300ms fencing",
		"300ms monotonic-tokens",
		"300ms unique-holder",
		"350ms fencing",
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("got\n%s\nwant %q", violationList(got), want)
	}
}

func TestCheckElectionSafe(t *testing.T) {
	for _, h := range []*sim.History{nil, {}, safeHistory(10, 50)} {
		if vs := CheckElection(h); vs != nil {
			t.Errorf("safe history: got %d violations, want nil:\n%s", len(vs), violationList(vs))
		}
	}
}

// The success path must not allocate: the checkers run after every run.
func TestCheckElectionSafeDoesNotAllocate(t *testing.T) {
	h := safeHistory(50, 500)
	if n := testing.AllocsPerRun(100, func() { CheckElection(h) }); n != 0 {
		t.Errorf("CheckElection on a safe history: %v allocations per run, want 0", n)
	}
}

func TestViolationString(t *testing.T) {
	v := Violation{Checker: "fencing", At: ms(1500), Nodes: []int{1}, Token: 3, Message: "node 1 did it"}
	if got, want := v.String(), "fencing at 1.5s: node 1 did it"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// safeHistory is a deterministic correct history of n terms over 3 nodes,
// with m writes, every third one stale and rejected.
func safeHistory(n, m int) *sim.History {
	h := &sim.History{Nodes: 3, End: ms(100 * (n + 1))}
	for i := range n {
		h.Terms = append(h.Terms, term(i%3, i/7, uint64(2*i+1), 100*i, 100*i+90))
		if i%5 == 4 { // re-announced
			h.Terms = append(h.Terms, term(i%3, i/7, uint64(2*i+1), 100*i+95, 100*i+99))
		}
	}
	hi := uint64(0)
	for j := range m {
		tr := h.Terms[j*len(h.Terms)/max(m, 1)]
		if j%3 == 2 && j > 0 {
			h.Writes = append(h.Writes, write(0, 0, 100*n*j/m, hi == 0))
			continue
		}
		hi = max(hi, tr.Token)
		h.Writes = append(h.Writes, write(tr.Node, tr.Token, 100*n*j/m, true))
	}
	return h
}

func BenchmarkCheckElection(b *testing.B) {
	for _, size := range []struct{ terms, writes int }{{5, 20}, {50, 500}} {
		h := safeHistory(size.terms, size.writes)
		b.Run(fmt.Sprintf("safe/%dterms-%dwrites", size.terms, size.writes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				CheckElection(h)
			}
		})
	}
	h := brokenEverywhere()
	b.Run("broken", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CheckElection(h)
		}
	})
}

func ExampleCheckElection() {
	h := &sim.History{
		Nodes: 2,
		End:   ms(1000),
		Terms: []sim.Term{
			{Node: 0, Token: 1, Start: ms(0), End: ms(400)},
			{Node: 1, Token: 2, Start: ms(300), End: ms(1000), Open: true},
		},
		Writes: []sim.FencedWrite{
			{Node: 1, Token: 2, Sent: ms(310), Applied: ms(320), Accepted: true},
			// Node 0 was paused past the end of its lease; its write arrives late.
			{Node: 0, Token: 1, Sent: ms(200), Applied: ms(450), Accepted: true},
		},
	}
	for _, v := range CheckElection(h) {
		fmt.Println(v)
	}
	// Output:
	// fencing at 450ms: the resource accepted node 0's write with stale token 1 at 450ms (sent at 200ms) after accepting token 2 from node 1 at 320ms
}
