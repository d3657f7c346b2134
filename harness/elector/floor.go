package elector

import (
	"fmt"
	"math"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// floorViolations judges every acquisition a node made that S3 applied (a
// create, or a write whose token differs from the body it replaced)
// against the tokens that node had seen before it sent the write: valid
// records its reads returned, and its own earlier acquisitions. A crash,
// stop or restart of the node forgets them, as the process does: a
// request belongs to the incarnation that sent it (sim.S3Op.Incarnation),
// and an answer that came after its process ended taught the next one
// nothing.
func (a *recordAudit) floorViolations(h *sim.History) []linearizability.Violation {
	// The process that sent a request: a node's incarnation.
	type process struct{ node, incarnation int }
	type seen struct {
		token uint64
		at    time.Duration // when the process learned it
	}
	seenBy := map[process][]seen{}
	var out []linearizability.Violation
	for op := range answered(h) {
		switch op.Op {
		case "GetObject":
			b, ok := a.read(op.ETag)
			if ok && b.bad == "" && b.rec.Token < math.MaxUint64 {
				p := process{op.Node, op.Incarnation}
				seenBy[p] = append(seenBy[p], seen{b.rec.Token, op.Return})
			}
		case "PutObject":
			if op.Body == "" {
				continue
			}
			r, _ := a.read(op.BodyETag)
			if r.bad != "" {
				continue // the canonical rule judges it
			}
			if op.IfNoneMatch != "*" {
				was, ok := a.read(op.IfMatch)
				if !ok || (was.bad == "" && was.rec.Token == r.rec.Token) {
					continue // a renewal or release, or nothing to tell it by
				}
			}
			p := process{op.Node, op.Incarnation}
			var high uint64
			for _, s := range seenBy[p] {
				if s.at <= op.Call {
					high = max(high, s.token)
				}
			}
			var why string
			switch {
			case r.rec.Token <= high && r.rec.Token < math.MaxUint64:
				why = fmt.Sprintf("not above the token %d it had already seen", high)
			case r.rec.Token == math.MaxUint64 && high < math.MaxUint64-1:
				// Only the token of a record it read, plus one, can be the
				// largest: no wall clock reads that many milliseconds.
				why = fmt.Sprintf("the largest, when the highest token it had seen was %d", high)
			}
			if why != "" {
				out = append(out, auditViolation(RuleRecordFloor, op, op.Call, r.rec.Token,
					fmt.Sprintf("node %d (identity %q) acquired a term at %v with token %d, %s", op.Node, op.Identity, op.Call, r.rec.Token, why)))
			}
			seenBy[p] = append(seenBy[p], seen{r.rec.Token, op.Call})
		}
	}
	return out
}
