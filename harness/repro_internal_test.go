package harness

import (
	"testing"

	"github.com/s3lease/s3lease/faults"
)

// TestTruncateNodesKeepsNodelessEvents: events of node-less kinds survive a
// cut to fewer nodes, moved to node 0; events of removed nodes are dropped.
func TestTruncateNodesKeepsNodelessEvents(t *testing.T) {
	p := truncateNodes(&faults.Plan{Events: []faults.Event{{Kind: faults.DeleteLock, Node: 3}, {Kind: faults.Crash, Node: 3}, {Kind: faults.Crash, Node: 1}}}, 2)
	if len(p.Events) != 2 || p.Events[0].Node != 0 || p.Events[1].Node != 1 {
		t.Fatalf("truncateNodes: %+v", p.Events)
	}
}
