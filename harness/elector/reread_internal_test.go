package elector

import (
	"testing"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// TestRereads: a torn read is superseded when its node's incarnation
// reads again the instant the answer came, or the instant its process ran
// again after a pause it came in; not when the next read is later, by
// another incarnation, follows a read that was not answered 200, or
// follows a pause of the application before its write (the elector acted
// first); nor is a read that matched its ETag, read again at once.
func TestRereads(t *testing.T) {
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	get := func(call, ret int, status, inc int) sim.S3Op {
		return sim.S3Op{Node: 0, Incarnation: inc, Op: "GetObject", Call: at(call), Return: at(ret), Status: status, ETag: `"e1"`, TornBodyETag: `"e0"`}
	}
	whole := get(100, 110, 200, 2)
	whole.TornBodyETag = ""
	h := &sim.History{
		S3: []sim.S3Op{
			get(0, 10, 200, 1),  // superseded: read again at 10
			get(10, 20, 200, 1), // not: the next read is at 30
			get(30, 40, 200, 1), // superseded: paused 40..50, read again at 50
			get(50, 60, 503, 1), // not: answered 503
			get(60, 70, 200, 1), // not: the next read is another incarnation's
			get(70, 80, 200, 2), // not: paused before a write 80..90, read at 90
			get(90, 100, 200, 2),
			whole, // not: it matched its ETag, though read again at 110
			get(110, 120, 200, 2),
		},
		Faults: []sim.FaultSpan{{Kind: sim.FaultAnswerPause.String(), Node: 0, From: at(40), To: at(50)},
			{Kind: sim.FaultPauseBeforeWrite.String(), Node: 0, From: at(80), To: at(90)}},
	}
	rr := rereadsOf(h)
	for i, want := range []bool{true, false, true, false, false, false, true, false, false} {
		if rr[&h.S3[i]] != want {
			t.Errorf("read %d (sent at %v): superseded %v, want %v", i, h.S3[i].Call, rr[&h.S3[i]], want)
		}
	}
}

// TestRereadsOpaque: on a store whose ETags are not MD5s, a read is
// superseded when read again at once, unless it repeated the read just
// before it (the same ETag, sent at once): the elector acted on it.
func TestRereadsOpaque(t *testing.T) {
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	get := func(call, ret int, etag string) sim.S3Op {
		return sim.S3Op{Node: 0, Incarnation: 1, Op: "GetObject", Call: at(call), Return: at(ret), Status: 200, ETag: etag}
	}
	put := sim.S3Op{Node: 1, Incarnation: 1, Op: "PutObject", Call: 0, Return: at(5), Status: 200, Body: "{}", BodyETag: `"0123456789abcdef0123456789abcdef"`}
	h := &sim.History{S3: []sim.S3Op{
		put,
		get(10, 20, `"a"`),   // superseded: read again at once
		get(20, 30, `"a"`),   // not: it repeats the read before, though read again at once
		get(30, 40, `"b"`),   // superseded: a new ETag, read again at once
		get(40, 50, `"c"`),   // superseded: not the ETag before
		get(50, 60, `"c"`),   // not: it repeats the read before
		get(90, 100, `"d"`),  // superseded: read again at once
		get(100, 110, `"e"`), // superseded: not the ETag before
		get(110, 120, `"f"`), // superseded: the third in a row that never repeated (the elector gives up)
		get(500, 510, `"f"`), // not: a new read, followed by nothing
	}}
	rr := rereadsOf(h)
	for i, want := range []bool{false, true, false, true, true, false, true, true, true, false} {
		if rr[&h.S3[i]] != want {
			t.Errorf("op %d (sent at %v): superseded %v, want %v", i, h.S3[i].Call, rr[&h.S3[i]], want)
		}
	}
	h.S3[0].BodyETag = `"99914b932bd37a50b983c5e7c90ae93b"` // the MD5 of {}: a store of MD5s
	rr = rereadsOf(h)
	for i := range h.S3 {
		if rr[&h.S3[i]] {
			t.Errorf("op %d on a store of MD5s: superseded, though it matched its ETag", i)
		}
	}
}
