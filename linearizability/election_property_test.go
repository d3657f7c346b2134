package linearizability

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A checker that cannot fail is worthless. These properties show both
// sides: random valid histories pass every checker, and one named mutation
// of such a history makes the matching checker fail.

func TestValidHistoriesPass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := validHistory(shape{}).Draw(t, "history")
		before := cloneHistory(h)
		if vs := CheckElection(h); len(vs) != 0 {
			t.Fatalf("valid history reported %d violations:\n%s", len(vs), violationList(vs))
		}
		if !sameHistory(h, before) {
			t.Fatalf("CheckElection modified the history")
		}
	})
}

func TestMutationsAreCaught(t *testing.T) {
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				h := validHistory(m.needs).Draw(t, "history")
				m.apply(t, h)
				before := cloneHistory(h)

				own := checkerNamed(m.checker).Check(h)
				validViolations(t, m.checker, own)
				if len(own) == 0 {
					t.Fatalf("%s: %s reported nothing", m.name, m.checker)
				}

				all := CheckElection(h)
				if !slices.IsSortedFunc(all, compareViolations) {
					t.Errorf("CheckElection not sorted by At then Checker:\n%s", violationList(all))
				}
				for _, v := range own {
					if !slices.ContainsFunc(all, func(w Violation) bool { return w.String() == v.String() }) {
						t.Errorf("CheckElection lost %v", v)
					}
				}
				if !sameHistory(h, before) {
					t.Fatalf("checkers modified the history")
				}
			})
		})
	}
}

func checkerNamed(name string) Checker {
	for _, c := range ElectionCheckers() {
		if c.Name == name {
			return c
		}
	}
	panic("no checker " + name)
}
