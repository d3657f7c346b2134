package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// TestListRace: on every seed, each of nodes 1 to 4 had a listing that S3
// applied before node 0's create of epoch 1 applied and that answered after
// it (a listing missing a file that existed when it arrived), tried to
// create epoch 1 on it and got 412; the safe form survives.
func TestListRace(t *testing.T) {
	sweep(t, ListRace, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		cs := calls(o)
		var created *call
		for _, c := range cs {
			if c.isCreate() && c.key == key1 && c.applied(200) {
				created = c
				break
			}
		}
		if created == nil || created.node != 0 {
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
func missedThenRefused(cs []*call, node int, created *call) error {
	var list *call
	for _, c := range cs {
		switch {
		case c.node != node:
		case list == nil && c.op == "ListObjectsV2":
			list = c
			if c.apply == nil || c.ret == nil || !(c.apply.At < created.apply.At && created.apply.At < c.ret.At) {
				return fmt.Errorf("first listing #%d does not straddle the create #%d applied at %v", c.id, created.id, created.apply.At)
			}
		case list != nil && c.op == "PutObject":
			if !c.isCreate() || c.key != created.key || !c.applied(412) {
				return fmt.Errorf("after the stale listing it sent %s %s %s (#%d), applied %+v; want a create of %s refused 412",
					c.op, c.key, c.cond, c.id, c.apply, created.key)
			}
			return nil
		}
	}
	return fmt.Errorf("no create after the stale listing %+v", list)
}
