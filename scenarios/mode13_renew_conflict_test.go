package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestRenewConflict: the leader's renewals are answered 409, as aimed
// (refused before S3 applied them); its term either goes on, because a
// retry got through before the deadline, or ends exactly at its local
// deadline (4 s after the send of its last write answered 200). No term
// outlives that deadline.
func TestRenewConflict(t *testing.T) {
	rs := runSeeds(t, RenewConflict, 30)
	conflicts, continued, expired := 0, 0, 0
	renew := elector.DefaultSettings.RenewDeadline
	for _, r := range rs {
		r.survives()
		for _, term := range r.Result.History.Terms {
			sent, ok := r.lastGrantSend(term.Node, term.End)
			if !ok || term.End > sent+renew {
				r.errorf("n%d's term (token %d) ended at %v, past its deadline (last grant sent at %v)", term.Node, term.Token, term.End, sent)
				continue
			}
			// The renewals of the term answered 409.
			refused := filter(r.puts(term.Node), func(c *s3Call) bool {
				return c.Send.At > term.Start && c.Send.At < term.End && c.answered() == 409 && c.Return.Code == "ConditionalRequestConflict"
			})
			if len(refused) == 0 {
				continue
			}
			conflicts += len(refused)
			last := refused[len(refused)-1]
			switch {
			case last.Send.Fault != sim.FaultRefusedBefore:
				r.errorf("n%d's renewal #%d was answered 409 without the fault that refuses it", term.Node, last.ID)
			case sent > last.Send.At:
				continued++ // a later renewal got through
			case term.End == sent+renew && !term.Open:
				expired++ // no renewal got through: the term ended at the deadline
			default:
				r.errorf("n%d's term (token %d) had %d renewals answered 409 and ended at %v, neither renewed since nor at its deadline %v",
					term.Node, term.Token, len(refused), term.End, sent+renew)
			}
		}
	}
	t.Logf("%d renewals answered 409; %d terms went on after a retry, %d ended at their deadline", conflicts, continued, expired)
	if continued == 0 || expired == 0 {
		t.Errorf("want terms that continue after a 409 and terms that end at their deadline")
	}
}
