package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// TestLateGrant: the winning create was applied but its answer never
// reached the winner, which abandoned the call at its request timeout. If
// the winner learnt of the lock only after the term its grant would have
// given had ended, no one ever led with the grant's token: either the
// winner read its own record and took the lock back with a higher token at once,
// or a follower had already taken the record over after timing it for a
// lease. If the winner read its record in time, it led with the grant's token from
// that read.
func TestLateGrant(t *testing.T) {
	outs := runSeeds(t, LateGrant, 40)
	checkSurvives(t, outs...)
	s := elector.DefaultSettings
	late, takeBack := 0, 0
	for _, o := range outs {
		var win sim.Event // the winning create's send
		for _, a := range events(o, sim.EvS3Apply, anyNode) {
			if a.Op == "PutObject" && a.Status == 200 {
				win, _ = byCall(o, sim.EvS3Send, a.Call)
				break
			}
		}
		if win.Call == 0 || win.Cond != "If-None-Match:*" {
			t.Errorf("seed %d: the first applied write %v is not a create", o.Seed, win)
			continue
		}
		if r, ok := byCall(o, sim.EvS3Return, win.Call); ok {
			t.Errorf("seed %d: the grant's answer reached n%d at %v", o.Seed, win.Node, r.At)
		}
		if a, ok := byCall(o, sim.EvS3Abandon, win.Call); !ok || a.At-win.At != s.RequestTimeout {
			t.Errorf("seed %d: n%d did not give up on the grant at its request timeout: %v", o.Seed, win.Node, a)
		}
		created, _ := byCall(o, sim.EvS3Apply, win.Call)
		grant := floorAt(win) // the late grant's token
		var found sim.Event   // the winner's first read that returned a record
		for _, r := range events(o, sim.EvS3Return, win.Node) {
			if r.Op == "GetObject" && r.Status == 200 && r.At > win.At {
				found = r
				break
			}
		}
		leads := events(o, sim.EvLead, anyNode)
		if found.Call == 0 || len(leads) == 0 {
			t.Errorf("seed %d: n%d never read the lock, or nobody led", o.Seed, win.Node)
			continue
		}
		read, _ := byCall(o, sim.EvS3Apply, found.Call)
		own := read.ETag == created.ETag
		first := leads[0]
		if found.At < win.At+s.RenewDeadline {
			if !own || first.Node != win.Node || first.Token != grant || first.At != found.At {
				t.Errorf("seed %d: n%d read its grant in time at %v but the first term is %v", o.Seed, win.Node, found.At, first)
			}
			continue
		}
		late++
		for _, l := range leads {
			if l.Token == grant {
				t.Errorf("seed %d: n%d led with the late grant's token %d at %v", o.Seed, l.Node, grant, l.At)
			}
		}
		// Found its own record too late: it takes the lock back with a
		// new token at once. (Otherwise a follower had already taken over
		// the record after timing it for a lease.)
		if own {
			takeBack++
			if first.Node != win.Node || first.Token <= grant || first.At < found.At {
				t.Errorf("seed %d: the first term %v is not n%d taking its lock back with a token above %d after reading it at %v",
					o.Seed, first, win.Node, grant, found.At)
			}
		}
	}
	if late < len(outs)/2 {
		t.Errorf("only %d of %d seeds learnt of the grant after its term", late, len(outs))
	}
	if takeBack == 0 {
		t.Errorf("no seed shows the winner finding its own record late and taking it back")
	}
	t.Logf("%d of %d seeds learnt of the grant after its term; in %d the winner took its lock back with a new token",
		late, len(outs), takeBack)
}
