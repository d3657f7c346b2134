package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/sim"
)

// TestZombieApp: the cut-off leader's term ends and its application says
// it ignores that; another node takes over while the old application still
// writes; the old application's writes after the takeover carry its old
// token and every one that arrives after the new token is refused.
func TestZombieApp(t *testing.T) {
	outs := runSeeds(t, ZombieApp, 30)
	checkFenced(t, outs)
	for _, o := range outs {
		zombies := faultEvents(o, sim.FaultLinger)
		if len(zombies) == 0 {
			t.Errorf("seed %d: no application outlived its term", o.Seed)
			continue
		}
		z := zombies[0]
		term, ok := termAt(o, z.Node, z.At)
		if !ok || term.Token != z.Token || term.Start >= z.At || term.Open || term.End <= z.At {
			t.Errorf("seed %d: n%d's lingering at %v is not inside a term of token %d that outlasted it", o.Seed, z.Node, z.At, z.Token)
			continue
		}
		var successor sim.Event
		for _, l := range events(o, sim.EvLead, anyNode) {
			if l.Node != z.Node && l.Token > z.Token && l.At > z.At && l.At < term.End {
				successor = l
				break
			}
		}
		if successor.Token == 0 {
			t.Errorf("seed %d: nobody took over while n%d's application lingered (%v-%v)", o.Seed, z.Node, z.At, term.End)
			continue
		}
		var newest sim.FencedWrite // the successor's first admitted write
		for _, w := range o.Result.History.Writes {
			if w.Node == successor.Node && w.Token == successor.Token && w.Accepted {
				newest = w
				break
			}
		}
		refused := 0
		for _, w := range o.Result.History.Writes {
			if w.Node != z.Node || w.Sent < z.At || newest.Token == 0 || w.Applied <= newest.Applied {
				continue
			}
			if w.Token != z.Token || w.Accepted {
				t.Errorf("seed %d: n%d's lingering write %+v after the new token %d was not refused", o.Seed, z.Node, w, newest.Token)
			}
			refused++
		}
		if refused == 0 {
			t.Errorf("seed %d: n%d's application wrote nothing after n%d's token %d arrived", o.Seed, z.Node, successor.Node, successor.Token)
		}
	}
}
