package scenarios

import (
	"testing"
)

// TestManyCandidates: fifteen candidates make many acquisition attempts
// that S3 answers 412 (another won) or 409 (conflict), never two terms at
// once, and every acquisition S3 applied belongs to exactly one term.
func TestManyCandidates(t *testing.T) {
	rs := runSeeds(t, ManyCandidates, 15)
	answers := map[int]int{} // acquisition attempts by the status they were answered
	for _, r := range rs {
		r.survives()
		terms := r.Result.History.Terms
		attempts := filter(r.puts(anyNode), func(c *s3Call) bool { _, renewal := r.termAt(c.Node, c.Send.At); return !renewal })
		for _, c := range attempts {
			answers[c.answered()]++
		}
		if len(attempts) < 3*len(terms) || len(terms) < 2 {
			r.errorf("%d acquisition attempts for %d terms; want heavy contention, and leadership to change hands", len(attempts), len(terms))
		}
	}
	t.Logf("%d seeds of 15 candidates: %d acquisition attempts answered 412, %d answered 409, no overlap", len(rs), answers[412], answers[409])
	// Both refusals are common: on seeds 1..10,000 the fewest of either in
	// a window of 100 seeds was near ten a seed; two a seed leaves room.
	if answers[412] < 2*len(rs) || answers[409] < 2*len(rs) {
		t.Errorf("want many attempts answered 412 and 409, at least two of each a seed")
	}
}
