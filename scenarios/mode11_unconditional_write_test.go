package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// TestUnconditionalWriteVsCreateRace: the naive lock that acquires by read
// and unconditional write lets several nodes "win" one token, and the
// harness catches it (Unsafe, unique-holder) on most seeds; the production
// elector, all five nodes racing with conditional writes at the same
// instants with equal latencies, has exactly one winner per race.
func TestUnconditionalWriteVsCreateRace(t *testing.T) {
	caught := 0
	naive := runSeeds(t, UnconditionalWrite, 20)
	for _, r := range naive {
		if _, ok := first(r.Violations, func(v linearizability.Violation) bool { return v.Checker == "unique-holder" && len(v.Nodes) >= 2 }); ok && r.Verdict == harness.Unsafe {
			caught++
		}
	}
	t.Logf("unconditional-write: unique-holder violation on %d of %d seeds", caught, len(naive))
	if caught < len(naive)*3/4 {
		t.Errorf("unconditional-write: unique-holder violation on only %d of %d seeds; want most", caught, len(naive))
	}

	races := 0
	for _, r := range runSeeds(t, CreateRace, 20) {
		r.survives()
		// A race: acquisition attempts of several nodes sent at one instant
		// under one precondition.
		type key struct {
			at   int64
			cond string
		}
		groups := map[key][]*s3Call{}
		for _, c := range r.puts(anyNode) {
			if _, leading := r.termAt(c.Node, c.Send.At); !leading {
				k := key{int64(c.Send.At), c.Cond}
				groups[k] = append(groups[k], c)
			}
		}
		created := false
		for k, g := range groups {
			if len(g) < 2 {
				continue
			}
			races++
			created = created || k.cond == "If-None-Match:*" && len(g) == 5
			won := filter(g, (*s3Call).applied200)
			for _, c := range g {
				if !c.applied200() && (c.Apply == nil || c.Apply.Status != 412) {
					r.errorf("racing write #%d of n%d: %+v; want 200 or 412", c.ID, c.Node, c.Apply)
				}
			}
			if len(won) != 1 {
				r.errorf("race of %d writes (%s) at %v had %d winners; want 1", len(g), k.cond, k.at, len(won))
			}
		}
		if !created {
			r.errorf("the five nodes did not race to create the object at one instant")
		}
		// Every term's token is unique to its holder.
		holders := map[uint64]int{}
		for _, l := range r.events(sim.EvLead, anyNode) {
			if n, ok := holders[l.Token]; ok && n != l.Node {
				r.errorf("token %d led by n%d and n%d", l.Token, n, l.Node)
			}
			holders[l.Token] = l.Node
		}
	}
	t.Logf("create-race: %d races, one winner each", races)
}
