package judging

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestSharedBuildsOncePerJudgement: while a history is judged, Shared
// builds what each key names once and hands every caller that value; a
// history judged no more, or another history, gets it built again.
func TestSharedBuildsOncePerJudgement(t *testing.T) {
	type key struct{ n int }
	builds := 0
	build := func(h *sim.History) int { builds++; return builds }
	h, other := &sim.History{}, &sim.History{}
	done := Judging(h)
	if a, b := Shared(h, key{1}, build), Shared(h, key{1}, build); a != 1 || b != 1 {
		t.Fatalf("two asks of one key during the judgement: %d and %d, want 1 and 1", a, b)
	}
	if c := Shared(h, key{2}, build); c != 2 {
		t.Fatalf("another key: %d, want a build of its own (2)", c)
	}
	if d := Shared(other, key{1}, build); d != 3 {
		t.Fatalf("another history: %d, want a build of its own (3)", d)
	}
	done()
	if e := Shared(h, key{1}, build); e != 4 {
		t.Fatalf("after the judgement: %d, want a new build (4)", e)
	}
}
