package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/harness"
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
	for _, o := range naive {
		if o.Verdict != harness.Unsafe {
			continue
		}
		for _, v := range o.Violations {
			if v.Checker == "unique-holder" && len(v.Nodes) >= 2 {
				caught++
				break
			}
		}
	}
	t.Logf("unconditional-write: unique-holder violation on %d of %d seeds", caught, len(naive))
	if caught < len(naive)*3/4 {
		t.Errorf("unconditional-write: unique-holder violation on only %d of %d seeds; want most", caught, len(naive))
	}

	races := 0
	for _, o := range runSeeds(t, CreateRace, 20) {
		checkSurvives(t, o)
		calls := s3Calls(o)
		// A race: acquisition attempts of several nodes sent at one instant
		// under one precondition.
		type key struct {
			at   int64
			cond string
		}
		groups := map[key][]*s3Call{}
		for _, c := range puts(calls, anyNode) {
			if _, leading := termAt(o, c.Node, c.Send.At); !leading {
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
			won := 0
			for _, c := range g {
				switch {
				case c.applied200():
					won++
				case c.Apply == nil || c.Apply.Status != 412:
					t.Errorf("seed %d: racing write #%d of n%d: %+v; want 200 or 412", o.Seed, c.ID, c.Node, c.Apply)
				}
			}
			if won != 1 {
				t.Errorf("seed %d: race of %d writes (%s) at %v had %d winners; want 1", o.Seed, len(g), k.cond, k.at, won)
			}
		}
		if !created {
			t.Errorf("seed %d: the five nodes did not race to create the object at one instant", o.Seed)
		}
		// Every term's token is unique to its holder.
		holders := map[uint64]int{}
		for _, l := range events(o, sim.EvLead, anyNode) {
			if n, ok := holders[l.Token]; ok && n != l.Node {
				t.Errorf("seed %d: token %d led by n%d and n%d", o.Seed, l.Token, n, l.Node)
			}
			holders[l.Token] = l.Node
		}
	}
	t.Logf("create-race: %d races, one winner each", races)
}
