package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
)

// TestRenewConflict: the leader's renewals are answered 409; its term
// either goes on, because a retry got through before the deadline, or ends
// exactly at its local deadline (4 s after the send of its last write
// answered 200). No term outlives that deadline.
func TestRenewConflict(t *testing.T) {
	outs := runSeeds(t, RenewConflict, 30)
	conflicts, continued, expired := 0, 0, 0
	renew := elector.DefaultSettings.RenewDeadline
	for _, o := range outs {
		checkSurvives(t, o)
		h := o.Result.History
		calls := s3Calls(o)
		for _, term := range h.Terms {
			sent, ok := lastGrantSend(calls, term.Node, term.End)
			if !ok || term.End > sent+renew {
				t.Errorf("seed %d: n%d's term (token %d) ended at %v, past its deadline (last grant sent at %v)", o.Seed, term.Node, term.Token, term.End, sent)
				continue
			}
			// The renewals of the term answered 409.
			var refused []*s3Call
			for _, c := range puts(calls, term.Node) {
				if c.Send.At > term.Start && c.Send.At < term.End && c.answered() == 409 && c.Return.Code == "ConditionalRequestConflict" {
					refused = append(refused, c)
				}
			}
			if len(refused) == 0 {
				continue
			}
			conflicts += len(refused)
			lastRefused := refused[len(refused)-1]
			switch {
			case sent > lastRefused.Send.At:
				continued++ // a later renewal got through
			case term.End == sent+renew && !term.Open:
				expired++ // no renewal got through: the term ended at the deadline
			default:
				t.Errorf("seed %d: n%d's term (token %d) had %d renewals answered 409 and ended at %v, neither renewed since nor at its deadline %v",
					o.Seed, term.Node, term.Token, len(refused), term.End, sent+renew)
			}
		}
	}
	t.Logf("%d renewals answered 409; %d terms went on after a retry, %d ended at their deadline", conflicts, continued, expired)
	if continued == 0 || expired == 0 {
		t.Errorf("want terms that continue after a 409 and terms that end at their deadline")
	}
}
