package elector

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// TestRereads: a read is superseded when its node's incarnation reads
// again the instant the answer came, or the instant its process ran again
// after a pause it came in; not when the next read is later, by another
// incarnation, follows a read that was not answered 200, or follows a
// pause of the application before its write (the elector acted first).
func TestRereads(t *testing.T) {
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	get := func(call, ret int, status, inc int) sim.S3Op {
		return sim.S3Op{Node: 0, Incarnation: inc, Op: "GetObject", Call: at(call), Return: at(ret), Status: status}
	}
	h := &sim.History{
		S3: []sim.S3Op{
			get(0, 10, 200, 1),  // superseded: read again at 10
			get(10, 20, 200, 1), // not: the next read is at 30
			get(30, 40, 200, 1), // superseded: paused 40..50, read again at 50
			get(50, 60, 503, 1), // not: answered 503
			get(60, 70, 200, 1), // not: the next read is another incarnation's
			get(70, 80, 200, 2), // not: paused before a write 80..90, read at 90
			get(90, 100, 200, 2),
		},
		Faults: []sim.FaultSpan{{Kind: sim.FaultAnswerPause.String(), Node: 0, From: at(40), To: at(50)},
			{Kind: sim.FaultPauseBeforeWrite.String(), Node: 0, From: at(80), To: at(90)}},
	}
	rr := rereadsOf(h)
	for i, want := range []bool{true, false, true, false, false, false, false} {
		if rr[&h.S3[i]] != want {
			t.Errorf("read %d (sent at %v): superseded %v, want %v", i, h.S3[i].Call, rr[&h.S3[i]], want)
		}
	}
}
