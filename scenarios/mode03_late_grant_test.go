package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLateGrant: the winning create was applied but its answer, delayed,
// never reached the winner, which abandoned the call at its request
// timeout. If the winner learnt of the lock only after the term its grant
// would have given had ended, no one ever led with the grant's token:
// either the winner read its own record and took the lock back with a
// higher token at once, or a follower had already taken the record over
// after timing it for a lease. If the winner read its record in time, it
// led with the grant's token from that read.
func TestLateGrant(t *testing.T) {
	rs := runSeeds(t, LateGrant, 40)
	s := elector.DefaultSettings
	late, takeBack := 0, 0
	for _, r := range rs {
		r.survives()
		created, _ := first(r.events(sim.EvS3Apply, anyNode), func(a sim.Event) bool { return a.Op == "PutObject" && a.Status == 200 })
		win, ok := first(r.s3(), func(c *s3Call) bool { return c.ID == created.Call })
		if !ok || win.Cond != "If-None-Match:*" || win.Send.Fault != sim.FaultAnswerDelayed {
			r.errorf("the first applied write %+v is not a create whose answer was delayed", win)
			continue
		}
		if win.Return != nil || win.Abandon == nil || win.Abandon.At-win.Send.At != s.RequestTimeout {
			r.errorf("n%d did not give up on the grant at its request timeout: answer %v, abandoned %v", win.Node, win.Return, win.Abandon)
		}
		grant := floorAt(win.Send) // the late grant's token
		found, read := first(r.s3(), func(c *s3Call) bool {
			return c.Node == win.Node && c.Op == "GetObject" && c.answered() == 200 && c.Send.At > win.Send.At
		}) // the winner's first read that returned a record
		lead, led := r.leadAfter(-1, -1)
		if !read || !led {
			r.errorf("n%d never read the lock, or nobody led", win.Node)
			continue
		}
		own := found.Apply.ETag == win.Apply.ETag
		if found.Return.At < win.Send.At+s.RenewDeadline {
			if !own || lead.Node != win.Node || lead.Token != grant || lead.At != found.Return.At {
				r.errorf("n%d read its grant in time at %v but the first term is %v", win.Node, found.Return.At, lead)
			}
			continue
		}
		late++
		for _, l := range r.events(sim.EvLead, anyNode) {
			if l.Token == grant {
				r.errorf("n%d led with the late grant's token %d at %v", l.Node, grant, l.At)
			}
		}
		// Found its own record too late: it takes the lock back with a
		// new token at once. (Otherwise a follower had already taken over
		// the record after timing it for a lease.)
		if own {
			takeBack++
			if lead.Node != win.Node || lead.Token <= grant || lead.At < found.Return.At {
				r.errorf("the first term %v is not n%d taking its lock back with a token above %d after reading it at %v", lead, win.Node, grant, found.Return.At)
			}
		}
	}
	if late < len(rs)/2 || takeBack == 0 {
		t.Errorf("%d of %d seeds learnt of the grant after its term, %d took it back; want most, and some", late, len(rs), takeBack)
	}
	t.Logf("%d of %d seeds learnt of the grant after its term; in %d the winner took its lock back with a new token", late, len(rs), takeBack)
}
