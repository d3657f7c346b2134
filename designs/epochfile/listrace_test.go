package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
)

// TestListRace: on every seed, each of nodes 1 to 4 had a listing that S3
// applied before node 0's create of epoch 1 applied and that answered after
// it (a listing missing a file that existed when it arrived), tried to
// create epoch 1 on it and got 412; the safe form survives.
func TestListRace(t *testing.T) {
	designtest.Sweep(t, ListRace, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		cs := designtest.Calls(o.Result.Trace)
		var created *designtest.Call
		for _, c := range cs {
			if isCreate(c) && c.Key == key1 && c.Applied(200) {
				created = c
				break
			}
		}
		if created == nil || created.Node != 0 {
			return fmt.Errorf("epoch 1 was created by %+v; want node 0", created)
		}
		for node := 1; node < o.Result.History.Nodes; node++ {
			if err := missedThenRefused(cs, node, created); err != nil {
				return fmt.Errorf("n%d: %w", node, err)
			}
		}
		return nil
	})
}

// missedThenRefused checks that node's first listing was applied before
// created applied and answered after it, and that the node's next write was
// a create of the same key, answered 412.
func missedThenRefused(cs []*designtest.Call, node int, created *designtest.Call) error {
	var list *designtest.Call
	for _, c := range cs {
		switch {
		case c.Node != node:
		case list == nil && c.Op == "ListObjectsV2":
			list = c
			if c.Apply == nil || c.Return == nil || !(c.Apply.At < created.Apply.At && created.Apply.At < c.Return.At) {
				return fmt.Errorf("first listing #%d does not straddle the create #%d applied at %v", c.ID, created.ID, created.Apply.At)
			}
		case list != nil && c.Op == "PutObject":
			if !isCreate(c) || c.Key != created.Key || !c.Applied(412) {
				return fmt.Errorf("after the stale listing it sent %s %s %s (#%d), applied %+v; want a create of %s refused 412",
					c.Op, c.Key, c.Cond, c.ID, c.Apply, created.Key)
			}
			return nil
		}
	}
	return fmt.Errorf("no create after the stale listing %+v", list)
}
