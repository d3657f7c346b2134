package relaxedlog

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// The checkers against hand-built histories and logs: each passes a
// correct one and catches the one broken thing named.

var t0 = sim.Epoch.Add(10 * time.Second)

// putOp is a PutObject S3 applied, of body at key, by node, sent at at.
func putOp(node int, key string, body any, at time.Duration) sim.S3Op {
	b, err := json.Marshal(body)
	if err != nil {
		panic(err)
	}
	sum := md5.Sum(b)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	return sim.S3Op{Node: node, Op: "PutObject", Key: key, BodyETag: etag, Call: at, Return: at + time.Millisecond,
		Status: 200, ETag: etag, Body: string(b)}
}

// msg is a message object at key in bag b of Default, stamped at stamp, under leases.
func msg(node int, name string, stamp time.Time, at time.Duration, leases ...Held) (sim.S3Op, string) {
	key := Default.DataPrefix(Default.BagOf(stamp)) + name
	return putOp(node, key, Message{Writer: name, Stamp: stamp, Leases: leases}, at), key
}

// lock is a lock object of the bag of stamp listing items.
func lock(node int, stamp time.Time, at time.Duration, items ...string) sim.S3Op {
	return putOp(node, Default.LockObject(Default.BagOf(stamp)), lockList{Closer: "c", N: uint64(at), Items: items}, at)
}

func only(t *testing.T, vs []linearizability.Violation, checker, rule string) {
	t.Helper()
	if len(vs) != 1 || vs[0].Checker != checker || vs[0].Rule != rule {
		t.Fatalf("got %v; want one violation of %s (%s)", vs, checker, rule)
	}
	if vs[0].Message == "" || vs[0].At <= 0 {
		t.Errorf("violation without evidence: %+v", vs[0])
	}
}

func none(t *testing.T, vs []linearizability.Violation) {
	t.Helper()
	if len(vs) != 0 {
		t.Fatalf("got %v; want none", vs)
	}
}

// TestCheckOrder: a later term's message stamped at or below an earlier
// term's is caught, per domain, also for a message under two leases; the
// order of stamps across terms passes, and a message left out of its
// closed bag does not count.
func TestCheckOrder(t *testing.T) {
	early, _ := msg(0, "0.1-1", t0.Add(3*time.Second), time.Second, Held{"a", 5}, Held{"b", 2})
	late, _ := msg(1, "1.1-1", t0.Add(2*time.Second), 2*time.Second, Held{"b", 3})
	fine, _ := msg(1, "1.1-2", t0.Add(4*time.Second), 3*time.Second, Held{"b", 3})
	h := &sim.History{S3: []sim.S3Op{early, fine}}
	none(t, checkOrder(Default, readStored(Default, h)))
	h.S3 = append(h.S3, late)
	vs := checkOrder(Default, readStored(Default, h))
	only(t, vs, OrderCheck, "")
	if !strings.Contains(vs[0].Message, "domain b") || vs[0].Token != 3 {
		t.Errorf("violation names the wrong domain or term: %+v", vs[0])
	}
	// Left out of its closed bag, the late message counts for nothing.
	h.S3 = append(h.S3, lock(2, t0.Add(2*time.Second), 4*time.Second))
	none(t, checkOrder(Default, readStored(Default, h)))
}

// TestCheckClosed: a lock object written again with another list, or
// deleted, is caught from the history; a reader that found the bag closed
// with another list, or accepted from the open bag a message the list
// leaves out, is caught from the log; a second write with the same list,
// and reads that agree, pass.
func TestCheckClosed(t *testing.T) {
	m, key := msg(0, "0.1-1", t0, time.Second, Held{"a", 1})
	b := Default.BagOf(t0)
	first := lock(1, t0, 2*time.Second)
	h := &sim.History{S3: []sim.S3Op{m, first, lock(2, t0, 3*time.Second)}}
	none(t, checkLocks(Default, readStored(Default, h)))
	h.S3 = append(h.S3, lock(3, t0, 4*time.Second, key))
	only(t, checkLocks(Default, readStored(Default, h)), ClosedCheck, RuleRewritten)
	h.S3 = append(h.S3[:3], sim.S3Op{Node: 3, Op: "DeleteObject", Key: Default.LockObject(b), Call: 5 * time.Second, Status: 204})
	only(t, checkLocks(Default, readStored(Default, h)), ClosedCheck, RuleDeleted)

	h.S3 = h.S3[:2]
	s := readStored(Default, h)
	agree := &Log{Reads: []LoggedRead{{Who: Who{Node: 2, At: 3 * time.Second}, Views: []BagView{{Bag: b, Closed: true}}}}}
	none(t, checkReads(Default, s, agree))
	changed := &Log{Reads: []LoggedRead{{Who: Who{Node: 2, At: 3 * time.Second}, Views: []BagView{{Bag: b, Closed: true, Items: []string{key}}}}}}
	only(t, checkReads(Default, s, changed), ClosedCheck, RuleChanged)
	retracted := &Log{Reads: []LoggedRead{{Who: Who{Node: 2, At: 1500 * time.Millisecond}, Views: []BagView{{Bag: b, Items: []string{key}}}}}}
	only(t, checkReads(Default, s, retracted), ClosedCheck, RuleRetracted)
}

// TestCheckAcked: a message reported committed that S3 never applied, or
// that its closed bag's list leaves out, is caught; one its list holds, or
// in a bag still open, or reported not committed, passes.
func TestCheckAcked(t *testing.T) {
	m, key := msg(0, "0.1-1", t0, time.Second, Held{"a", 1})
	committed := func(key string) *Log {
		return &Log{Settled: []LoggedVerdict{{Who: Who{Node: 0, At: 2 * time.Second}, Key: key, Committed: true}}}
	}
	open := &sim.History{S3: []sim.S3Op{m}}
	none(t, checkAcked(Default, readStored(Default, open), committed(key)))
	only(t, checkAcked(Default, readStored(Default, open), committed(key+"x")), AckedCheck, RuleNeverWritten)
	listed := &sim.History{S3: []sim.S3Op{m, lock(1, t0, 3*time.Second, key)}}
	none(t, checkAcked(Default, readStored(Default, listed), committed(key)))
	left := &sim.History{S3: []sim.S3Op{m, lock(1, t0, 3*time.Second)}}
	only(t, checkAcked(Default, readStored(Default, left), committed(key)), AckedCheck, RuleLeftOut)
	refused := &Log{Settled: []LoggedVerdict{{Who: Who{Node: 0, At: 2 * time.Second}, Key: key}}}
	none(t, checkAcked(Default, readStored(Default, left), refused))
}

// TestCheckExpiry: the term's deadline is the send of its last write S3
// applied (not a release) plus the term length; a stamp or a watermark at
// that expiry, as the writer's clock read it then, is caught, one just
// below passes, and writes S3 never applied or releases do not move it.
func TestCheckExpiry(t *testing.T) {
	term := Default.termLength()
	renew := putOp(0, "leader.json", map[string]any{"token": 5}, 9*time.Second)
	late := putOp(0, "leader.json", map[string]any{"token": 5, "n": 2}, 10*time.Second)
	late.Body = "" // never applied
	release := putOp(0, "leader.json", map[string]any{"token": 5, "released": true}, 11*time.Second)
	h := &sim.History{S3: []sim.S3Op{renew, late, release}}
	sends := []LoggedSend{
		{Who: Who{Node: 0, Incarnation: 1}, Domain: "a", ETag: renew.BodyETag, Token: 5, Mono: 100 * time.Second},
		{Who: Who{Node: 0, Incarnation: 1}, Domain: "a", ETag: late.BodyETag, Token: 5, Mono: 101 * time.Second},
		{Who: Who{Node: 0, Incarnation: 1}, Domain: "a", ETag: release.BodyETag, Token: 5, Released: true, Mono: 102 * time.Second},
	}
	// At monotonic 100 s + 1 s the clock reads t0: the expiry is t0 + term - 1 s.
	at := Readings{Wall: t0, Mono: 101 * time.Second}
	expiry := t0.Add(term - time.Second)
	who := Who{Node: 0, Incarnation: 1, At: 12 * time.Second}
	stamp := func(s time.Time) *Log {
		return &Log{Sends: sends, Stamps: []LoggedStamp{{Who: who, Readings: at, Message: Message{Key: "k", Stamp: s, Leases: []Held{{"a", 5}}}}}}
	}
	none(t, checkExpiry(Default, h, stamp(expiry.Add(-time.Nanosecond))))
	only(t, checkExpiry(Default, h, stamp(expiry)), ExpiryCheck, RuleStampExpiry)
	wm := func(w time.Time) *Log {
		return &Log{Sends: sends, Watermarks: []LoggedWatermark{{Who: who, Readings: at, Domain: "a", Token: 5, At: w}}}
	}
	none(t, checkExpiry(Default, h, wm(expiry.Add(-time.Nanosecond))))
	only(t, checkExpiry(Default, h, wm(expiry.Add(time.Second))), ExpiryCheck, RuleWatermarkExpiry)
	// A term of which S3 applied nothing has no deadline to be below.
	other := &Log{Sends: sends, Watermarks: []LoggedWatermark{{Who: who, Readings: at, Domain: "a", Token: 6, At: t0}}}
	only(t, checkExpiry(Default, h, other), ExpiryCheck, RuleWatermarkExpiry)
}

// TestCheckLeases: the election checkers judge the second domain's terms
// from the log, under checker names that say the domain.
func TestCheckLeases(t *testing.T) {
	h := &sim.History{Nodes: 2, End: 10 * time.Second}
	l := &Log{Terms: []LoggedTerm{
		{Who: Who{Node: 0, Incarnation: 1, At: time.Second}, Domain: "b", Identity: "n0", Token: 7, End: 2 * time.Second},
		{Who: Who{Node: 1, Incarnation: 1, At: 3 * time.Second}, Domain: "b", Identity: "n1", Token: 7, End: 4 * time.Second},
		{Who: Who{Node: 1, Incarnation: 1, At: 3 * time.Second}, Domain: "a", Identity: "n1", Token: 7, End: 4 * time.Second},
	}}
	vs := Default.checkLeases(h, l)
	if len(vs) == 0 || !strings.HasPrefix(vs[0].Checker, "domain b ") {
		t.Fatalf("got %v; want the second domain's shared token caught", vs)
	}
	l.Terms[1].Token = 8
	none(t, Default.checkLeases(h, l))
}
