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
	rs := runSeeds(t, ZombieApp, 30)
	checkFenced(t, rs)
	for _, r := range rs {
		zombies := r.faults(sim.FaultLinger)
		if len(zombies) == 0 {
			r.errorf("no application outlived its term")
			continue
		}
		z := zombies[0]
		term, ok := r.termAt(z.Node, z.At)
		if !ok || term.Token != z.Token || term.Start >= z.At || term.Open || term.End <= z.At {
			r.errorf("n%d's lingering at %v is not inside a term of token %d that outlasted it", z.Node, z.At, z.Token)
			continue
		}
		successor, ok := r.takeover(z.Node, z.Token, z.At, term.End)
		if !ok {
			r.errorf("nobody took over while n%d's application lingered (%v-%v)", z.Node, z.At, term.End)
			continue
		}
		newest, _ := first(r.Result.History.Writes, func(w sim.FencedWrite) bool {
			return w.Node == successor.Node && w.Token == successor.Token && w.Accepted
		}) // the successor's first admitted write
		late := filter(r.Result.History.Writes, func(w sim.FencedWrite) bool {
			return w.Node == z.Node && w.Sent >= z.At && newest.Token != 0 && w.Applied > newest.Applied
		})
		for _, w := range late {
			if w.Token != z.Token || w.Accepted {
				r.errorf("n%d's lingering write %+v after the new token %d was not refused", z.Node, w, newest.Token)
			}
		}
		if len(late) == 0 {
			r.errorf("n%d's application wrote nothing after n%d's token %d arrived", z.Node, successor.Node, successor.Token)
		}
	}
}
