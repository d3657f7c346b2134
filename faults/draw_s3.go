package faults

import (
	"time"

	"github.com/s3lease/s3lease/sim"
)

// drawSlowS3 draws windows of slow S3, on one draw in 3: one or two, each
// of a second to two leases, adding 50 ms to half a lease to every
// request on each leg.
func drawSlowS3(d *drawing, s stream) {
	if !s.OneIn(3) {
		return
	}
	s.Repeat(1, 2, func(int) {
		p := s.timed(time.Second, 2*d.b.Lease)
		d.add(Event{Kind: SlowS3, At: s.at(p), For: Duration(p), By: Duration(s.Between(50*time.Millisecond, d.b.Lease/2))})
	})
}

// aimedOps are the operations faults aimed at a node's Nth request hit.
var aimedOps = []string{sim.OpGetObject, sim.OpPutObject}

// drawRequests draws faults aimed at a node's Nth GetObject or PutObject,
// on one draw in 3: one to four, each at one of the node's first 8
// requests of that operation or (one draw in 2) its first 50: the answer
// lost, replaced by a 500 or 503, refused with a 500, 503 or 409, delayed
// by 100 ms to two leases, or followed by a pause within the node's bound.
func drawRequests(d *drawing, s stream) {
	if !s.OneIn(3) {
		return
	}
	late := s.OneIn(2) // some aim at the run's first requests, some later
	s.Repeat(1, 4, func(int) {
		e := Event{Kind: []Kind{AnswerLost, AnswerFailed, Refused, AnswerDelayed, AnswerPause}[s.Pick(5)], Node: s.node(),
			Op: aimedOps[s.Pick(len(aimedOps))], Nth: int(s.Int(1, 8))}
		if late {
			e.Nth = int(s.Int(1, 50))
		}
		s.answer(&e, Duration(s.Between(0, max(d.b.pauseBound(e.Node), 0))))
		d.add(e)
	})
}

// answer draws what an answer fault needs besides its kind: the code of a
// failed or refused answer, the delay of a late one, and the pause after
// an answer, which is pause (drawn by the caller, so that it draws it
// always, whatever the kind).
func (s stream) answer(e *Event, pause Duration) {
	switch e.Kind {
	case AnswerFailed:
		e.Code = []string{"InternalError", "SlowDown"}[s.Pick(2)]
	case Refused:
		e.Code = []string{"InternalError", "SlowDown", "ConditionalRequestConflict"}[s.Pick(3)]
	case AnswerDelayed, RequestDelayed:
		e.By = ms(s.Between(100*time.Millisecond, 2*s.d.b.Lease))
	case AnswerPause:
		e.For = pause
	}
}

// drawKnobs draws the S3 knobs, each on one draw in 3 (409s on overlap
// and otherwise, 500s before applying, 503s, 500s after applying, lost
// answers; 0.1% to 10% of the requests), the SDK's standard retries (one
// in 2), and a long tail of latency (one in 3: up to 5% of the requests,
// slow by up to a lease).
func drawKnobs(d *drawing, s stream) {
	knob := func() int64 {
		if s.OneIn(3) {
			return s.Int(1_000, 100_000)
		}
		return 0
	}
	k := &d.plan.S3
	for _, v := range []*int64{&k.ConflictOnOverlapPPM, &k.ConflictPPM, &k.InternalBeforePPM, &k.SlowDownPPM, &k.InternalAfterPPM, &k.LostPPM} {
		*v = knob()
	}
	if s.OneIn(2) {
		d.plan.SDKAttempts = 3
	}
	if s.OneIn(3) {
		k.SlowPPM, k.SlowMax = s.Int(1_000, 50_000), Duration(s.Between(100*time.Millisecond, d.b.Lease))
	}
}

// drawPages draws how the nodes receive S3's error answers
// (Plan.ErrorPages). On one draw in six a proxy answers every error with
// a plain page of its own, which keeps the status but not S3's error
// code: the SDK derives the code from the status text ("Conflict",
// "InternalServerError"). On one of the other draws in ten its pages are
// HTML the SDK cannot read at all ("html"): the nodes see the status and
// no code, so a missing lock object reads as a 404 without a code
// (docs/s3-semantics.md, "Error pages"). On the rest the nodes read S3's
// own error documents ("").
func drawPages(d *drawing, s stream) {
	switch {
	case s.OneIn(6):
		d.plan.ErrorPages = sim.ErrorPagesPlain.String()
	case s.OneIn(10):
		d.plan.ErrorPages = sim.ErrorPagesHTML.String()
	}
}

// drawBeyond draws, rarely, faults that leave the assumptions in ways
// other than drift and pauses, each of the node outside the assumptions:
// a VM suspend that stops its monotonic clock for one to three leases
// (one draw in 20), a pause of one to three leases between its lease
// check and one of its 2nd to 20th fenced writes (one in 20), a delete of
// the lock object (one in 30), and an application that goes on for up to
// a lease after its term (one in 30).
func drawBeyond(d *drawing, s stream) {
	lease := d.b.Lease
	if s.OneIn(20) {
		p := s.timed(lease, 3*lease)
		d.add(Event{Kind: ClockStall, At: s.at(p), Node: d.outside, For: Duration(p)})
	}
	if s.OneIn(20) {
		d.add(Event{Kind: PauseBefore, Node: d.outside, Nth: int(s.Int(2, 20)), For: Duration(s.Between(lease, 3*lease))})
	}
	if s.OneIn(30) {
		d.add(Event{Kind: DeleteLock, At: s.at(0)})
	}
	if s.OneIn(30) {
		d.add(Event{Kind: Linger, At: s.at(0), Node: d.outside, By: Duration(s.Between(time.Second, lease))})
	}
}

// drawETags draws, for a protocol that works with them
// (Assumptions.OpaqueETags), a store whose ETags are not the MD5s of the
// bodies (Knobs.OpaqueETags: a bucket under SSE-KMS), on one draw in 6 of
// those without torn reads, which no reader could tell from a read then.
func drawETags(d *drawing, s stream) {
	if d.b.OpaqueETags && d.plan.S3.TornPPM == 0 && s.OneIn(6) {
		d.plan.S3.OpaqueETags = true
	}
}

// drawTornReads draws a store that tears reads (Knobs.TornPPM): of the
// GetObjects a write races, every one on half the draws that have it,
// else 10% to all of them. A protocol that tolerates torn reads
// (Assumptions.TornReads) gets it on one draw in 4, as a fault inside its
// assumptions; any other on one in 20, beyond them.
func drawTornReads(d *drawing, s stream) {
	n := uint64(20)
	if d.b.TornReads {
		n = 4
	}
	if !s.OneIn(n) {
		return
	}
	d.plan.S3.TornPPM = 1_000_000
	if s.OneIn(2) {
		d.plan.S3.TornPPM = s.Int(100_000, 1_000_000)
	}
}
