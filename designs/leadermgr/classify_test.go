package leadermgr

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// Causes of an overlap of the document's manager: what kept the older
// leader leading once its successor had begun. Each is the document's
// missing local deadline: a term ends only when a renewal returns false or
// an error, whatever the time.
const (
	// causeHung: during the overlap it was inside a WriteEntry that never
	// returned (an answer lost, a request dropped): with no request
	// timeout and no local deadline it leads for as long as the call hangs.
	causeHung = "renewal hung (no answer ever came)"
	// causeSlow: a WriteEntry was in flight when its successor began and
	// returned later (slow S3, SDK retries): it led until that renewal
	// returned false.
	causeSlow = "renewal in flight past the term"
	// causeTick: no call was in flight: it began leading on a late answer,
	// or was paused, and learns that the entry expired only at its next
	// renewal tick.
	causeTick = "late grant or pause, ousting learned at the next renewal tick"
)

// overlapCause says why the older leader of an overlap still led when its
// successor began.
func overlapCause(h *sim.History, ov linearizability.Overlap) (node int, cause string) {
	older := olderLeader(h, ov)
	cause = causeTick
	for _, op := range h.S3 {
		if op.Node != older || op.Call >= ov.To {
			continue
		}
		switch {
		case op.Return < 0 && op.Call < ov.To:
			return older, causeHung
		case op.Call <= ov.From && op.Return > ov.From:
			cause = causeSlow
		}
	}
	return older, cause
}

// olderLeader is the node of the overlap whose term began first.
func olderLeader(h *sim.History, ov linearizability.Overlap) int {
	start := func(n int) time.Duration {
		best := time.Duration(-1)
		for _, t := range h.Terms {
			if t.Node == n && t.Start <= ov.From && t.End > ov.From {
				best = t.Start
			}
		}
		return best
	}
	a, b := ov.Nodes[0], ov.Nodes[1]
	if start(a) <= start(b) {
		return a
	}
	return b
}

// unexcusedOverlaps are the overlaps of o that decided its verdict.
func unexcusedOverlaps(o *harness.Outcome) []linearizability.Overlap {
	var out []linearizability.Overlap
	for _, ov := range o.Overlaps {
		for _, v := range o.Violations {
			if v.Checker == "overlap" && v.At == ov.From && fmt.Sprint(v.Nodes) == fmt.Sprint(sortedPair(ov.Nodes)) {
				out = append(out, ov)
				break
			}
		}
	}
	return out
}

func sortedPair(p [2]int) []int {
	if p[0] > p[1] {
		return []int{p[1], p[0]}
	}
	return []int{p[0], p[1]}
}
