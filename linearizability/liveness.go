package linearizability

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// CheckLiveness checks that, once faults healed at healAt, a leader emerged
// within bound and kept leading: some term began no later than healAt+bound
// and was still open when the run ended. A run too short to tell (it ended
// before healAt+bound) is not judged.
func CheckLiveness(h *sim.History, healAt, bound time.Duration) []Violation {
	by := healAt + bound
	if h.End <= by {
		return nil
	}
	for _, t := range h.Terms {
		if t.Open && t.Start <= by {
			return nil
		}
	}
	msg := fmt.Sprintf("no node led continuously from %v (faults healed at %v, bound %v) to the end at %v", by, healAt, bound, h.End)
	if n := len(h.Terms); n > 0 {
		t := h.Terms[n-1]
		end := "still open"
		if !t.Open {
			end = "ended at " + t.End.String()
		}
		msg += fmt.Sprintf("; the last term was n%d's (token %d) from %v, %s", t.Node, t.Token, t.Start, end)
	} else {
		msg += "; no node ever led"
	}
	return []Violation{{Checker: "liveness", At: by, Message: msg}}
}
