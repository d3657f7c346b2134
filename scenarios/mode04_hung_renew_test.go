package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestHungRenew: the node leading when S3 turns slow sends a renewal that
// would be answered more than a lease later; the elector abandons it at
// its request timeout, while S3 has not even applied it, and the leader's
// term ends exactly at its deadline, RenewDeadline after the send of its
// last successful renewal, while S3 is still slow.
func TestHungRenew(t *testing.T) {
	s := elector.DefaultSettings
	for _, r := range runSeeds(t, HungRenew, 40) {
		r.survives()
		slow, ok := r.onlyFault(sim.FaultSlowS3)
		if !ok {
			continue
		}
		from, to := slow.At, slow.At+slow.For
		if e, _ := first(r.Plan.Events, func(e faults.Event) bool { return e.Kind == faults.SlowS3 }); 2*e.By.D() <= s.LeaseDuration {
			r.errorf("S3 is only %v slower on each leg, a request would not hang past the lease", e.By)
		}
		leader, ok := first(r.Result.History.Terms, func(t sim.Term) bool { return t.Start < from && (t.Open || t.End > from) })
		if !ok {
			r.errorf("nobody led when S3 became slow at %v", from)
			continue
		}
		renewals := filter(r.puts(leader.Node), func(c *s3Call) bool { return c.Send.At >= leader.Start })
		hung, ok := first(renewals, func(c *s3Call) bool { return c.Send.At >= from })
		if !ok || !strings.HasPrefix(hung.Cond, "If-Match:") {
			r.errorf("n%d sent no renewal while S3 was slow", leader.Node)
			continue
		}
		if hung.Abandon == nil || hung.Abandon.At != hung.Send.At+s.RequestTimeout || hung.Apply != nil && hung.Apply.At <= hung.Abandon.At {
			r.errorf("n%d's hung renewal #%d was not cut at its request timeout before S3 applied it: abandoned %v, applied %v", leader.Node, hung.ID, hung.Abandon, hung.Apply)
		}
		var lastOK time.Duration // the send of the last renewal answered 200 before S3 turned slow
		renewed := false
		for _, c := range renewals {
			if c.Send.At < from && c.answered() == 200 {
				lastOK, renewed = c.Send.At, true
			}
		}
		if _, unlead := first(r.events(sim.EvUnlead, leader.Node), func(e sim.Event) bool { return e.Token == leader.Token && e.At == leader.End }); !unlead {
			r.errorf("no unlead event of n%d's term %d", leader.Node, leader.Token)
		}
		if !renewed || leader.Open || leader.End > lastOK+s.RenewDeadline || leader.End >= to {
			r.errorf("n%d's term (%v-%v, open %v) did not end by its deadline %v while S3 was slow until %v",
				leader.Node, leader.Start, leader.End, leader.Open, lastOK+s.RenewDeadline, to)
		}
	}
}
