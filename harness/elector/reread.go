package elector

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"time"

	"github.com/s3lease/s3lease/internal/judging"
	"github.com/s3lease/s3lease/sim"
)

// The elector reads a body that does not match its ETag again before it
// does anything with it (protocol.ETagMismatch): a torn read, the body of
// one version under another's ETag; or, on a store whose ETags are not
// MD5s, every read until it has seen the same bytes under the same ETag
// twice. It does not act on such a read: only the read after it shows
// what it then knew. A read so superseded is a GetObject answered 200
// whose node's incarnation sent its next request, a GetObject, the
// instant the answer came or, if the process stopped then (a pause), the
// instant it ran again; and that was torn, or, on a store whose ETags are
// not MD5s, did not repeat the read just before it (same ETag, sent so).
// A read that matched its ETag was acted on, even if a read followed at
// once (a leader that finds the object taken steps down and reads again
// to follow). And on such a store the elector gives up after three reads
// in a row of which none repeated the one before: the last of them is
// superseded too, though nothing follows it at once.

// reread reports whether read, a request of a node, was superseded by
// next, the node's next request; before is the node's request before
// read (nil if none), and opaque whether the store's ETags are not MD5s.
func reread(h *sim.History, before, read, next *sim.S3Op, opaque bool) bool {
	return next.Op == "GetObject" && atOnce(h, read, next) && (read.TornBodyETag != "" || opaque && !repeats(h, before, read))
}

// opaqueETags reports whether h's store gives ETags that are not the MD5s
// of the bodies: an applied write's ETag is not its body's MD5.
func opaqueETags(h *sim.History) bool {
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == "PutObject" && op.Body != "" && op.BodyETag != "" {
			sum := md5.Sum([]byte(op.Body))
			return strings.Trim(op.BodyETag, `"`) != hex.EncodeToString(sum[:])
		}
	}
	return false
}

// rereads are the superseded reads of a history (rereadsOf).
type rereads map[*sim.S3Op]bool

// rereadsKey is the key of h's rereads among what its judges share
// (judging.Shared).
type rereadsKey struct{}

// rereadsOf is findRereads(h), found once per run for all its judges.
func rereadsOf(h *sim.History) rereads {
	return judging.Shared(h, rereadsKey{}, findRereads)
}

// findRereads finds the superseded reads of h; nil if there are none.
func findRereads(h *sim.History) rereads {
	var out rereads
	opaque := opaqueETags(h)
	last, before := map[int]*sim.S3Op{}, map[int]*sim.S3Op{} // by node
	chain := map[int]int{}                                   // by node: reads in a row, sent at once, none repeating the one before
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node < 0 {
			continue
		}
		prev := last[op.Node]
		if prev != nil && reread(h, before[op.Node], prev, op, opaque) {
			out = out.mark(prev)
		}
		if opaque {
			// The elector gives up after paceMaxReads reads that never
			// repeated (protocol: errTornRead): it acted on none of them.
			switch {
			case op.Op != "GetObject" || op.Status != 200 || op.Return < 0:
				chain[op.Node] = 0
			case chain[op.Node] > 0 && atOnce(h, prev, op) && !repeats(h, prev, op):
				chain[op.Node]++
			default:
				chain[op.Node] = 1
			}
			if chain[op.Node] == paceMaxReads {
				out, chain[op.Node] = out.mark(op), 0
			}
		}
		before[op.Node], last[op.Node] = prev, op
	}
	return out
}

// resumed is when node looked at an answer that came at at: at, or the end
// of a stop of its process that the answer came in (an answer pause from
// at, a timed pause or a suspended VM that began before at). A pause
// before a write is the application's, after the elector acted.
func resumed(h *sim.History, node int, at time.Duration) time.Duration {
	for _, f := range h.Faults {
		if f.Node != node || at < f.From || at >= f.To {
			continue
		}
		switch f.Kind {
		case sim.FaultAnswerPause.String():
			if f.From == at {
				return resumed(h, node, f.To)
			}
		case sim.FaultPause.String(), sim.FaultClockStall.String():
			if f.From < at {
				return resumed(h, node, f.To)
			}
		}
	}
	return at
}

// paceMaxReads is how many reads in a row the elector makes of a body
// that does not match its ETag before it gives up (protocol maxReads).
const paceMaxReads = 3

// repeats reports whether read repeats before, the request its node sent
// before it: a GetObject of the same incarnation answered 200 with the
// same ETag, not torn, after which read was sent at once.
func repeats(h *sim.History, before, read *sim.S3Op) bool {
	return atOnce(h, before, read) && before.TornBodyETag == "" && before.ETag == read.ETag
}

// atOnce reports whether read was sent the instant its node looked at the
// answer of before, a GetObject of the same incarnation answered 200.
func atOnce(h *sim.History, before, read *sim.S3Op) bool {
	return before != nil && before.Op == "GetObject" && before.Status == 200 && before.Return >= 0 &&
		before.Incarnation == read.Incarnation && read.Call == resumed(h, read.Node, before.Return)
}

// mark adds op to rr, made if nil.
func (rr rereads) mark(op *sim.S3Op) rereads {
	if rr == nil {
		rr = rereads{}
	}
	rr[op] = true
	return rr
}
