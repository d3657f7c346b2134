package faults

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// streamLinks is the stream that draws what SwarmInitial adds to the
// record it drew: a watermark and updates, a link to a previous term, a
// long holder, padding. Drawn apart, so that the record's other fields,
// its spelling and its edit stay as they were drawn.
const streamLinks = 0x6c696e6b_73212121

// extendRecord adds to the record of o, drawn for seed: on a record in
// three a watermark and updates it publishes; on a record in three a link
// to a previous term, as electors write it; on one in twenty a holder of
// exactly MaxIdentityLen bytes (the longest an elector has), ending in a
// character of several bytes. On the seeds that draw foreign writes
// during the run (foreignWritesOn), and only there, so that the seeds
// judged within the assumptions stay as many as they were, it adds what
// no elector writes: on half the links one it must refuse (a token not
// below the record's, an ending other than "released" or "expired",
// updates of the link or of the record over MaxUpdatesLen); on a record
// in three a holder longer than MaxIdentityLen ending in characters of
// several bytes (LongHolder: cut at that length on a boundary or inside a
// character); on a record in three padding to near the largest body read
// as a record, or just beyond it (PadSize). Whether each is added is
// drawn first, on every seed, so that adding one does not decide another.
func extendRecord(seed uint64, sp SwarmSpace, o *Object) {
	s := newStream(seed, streamLinks, sp)
	r := o.Record
	publishes, links, longest := s.on(3), s.on(3), s.on(20)
	invalid, long, padded := s.on(2), s.on(3), s.on(3)
	if !foreignWritesOn(seed, sp) {
		invalid, long, padded = false, false, false
	}
	if publishes {
		r.Watermark, r.Updates = s.watermark(), s.updates()
	}
	if links && (r.Token > 1 || invalid) { // no token is below 1
		p := &Previous{Holder: s.holder(), Ended: []string{EndedReleased, EndedExpired}[s.pick(2)]}
		if s.on(2) {
			p.Watermark = s.watermark()
		}
		if s.on(2) {
			p.Updates = s.updates()
		}
		if r.Token > 1 {
			p.Token = r.Token - uint64(s.int(1, int64(min(r.Token-1, 1000))))
		}
		if r.Watermark.Before(p.Watermark) {
			r.Watermark = p.Watermark // as handed over, not yet raised
		}
		r.Previous = p
		if invalid {
			breakLink(s, r)
		}
	}
	char := s.pick(len(wideChars))
	switch {
	case long:
		r.Holder = LongHolder(r.Holder, char, s.pick(wideChars[char].n), int(s.int(1, 500)))
	case longest:
		r.Holder = LongHolder(r.Holder, char, wideChars[char].n, 0)
	}
	if padded {
		o.Size = PadSize(s.pick(4), int(s.int(1, 1000)))
	}
}

// foreignWritesOn reports whether the swarm draws foreign writes during
// the run for seed (streams.foreign, whose first draw this repeats): such
// a seed is outside the assumptions of a protocol that does not tolerate
// foreign writes, whatever the lock object held before the run.
func foreignWritesOn(seed uint64, sp SwarmSpace) bool {
	return newStream(seed, streamForeign, sp).on(6)
}

// breakLink makes r's link, or its updates, one no elector writes.
func breakLink(s stream, r *Record) {
	p := r.Previous
	switch s.pick(4) {
	case 0:
		p.Token = r.Token
		if s.on(2) && r.Token < math.MaxUint64 {
			p.Token++
		}
	case 1:
		p.Ended = []string{"", "Released", "EXPIRED", "abandoned", "released ", "expired\u0000"}[s.pick(6)]
	case 2:
		p.Updates = overlong(s)
	default:
		r.Updates = overlong(s)
	}
}

// overlong draws updates of more than MaxUpdatesLen bytes.
func overlong(s stream) string {
	n := MaxUpdatesLen + 1
	if s.on(2) {
		n += int(s.int(1, 2000))
	}
	return strings.Repeat("u", n-2) + "é"
}

// watermark draws a watermark: a time near the simulator's epoch, to the
// nanosecond, an hour before or after it (ahead of every node's clock, or
// behind it).
func (s stream) watermark() time.Time {
	return sim.Epoch.Add(s.between(-time.Hour, time.Hour)).UTC()
}

// updates draws the updates a record publishes: a short name, exactly
// MaxUpdatesLen bytes ending in a character of two, or text that JSON must
// escape.
func (s stream) updates() string {
	switch s.pick(3) {
	case 0:
		return fmt.Sprintf("log/entries-%d", s.int(0, 99))
	case 1:
		return strings.Repeat("u", MaxUpdatesLen-2) + "é"
	}
	return strings.Repeat("\"quoted\" \\ é <&> \u2028", int(s.int(1, 40)))
}

// wideChars are characters of two, three and four bytes.
var wideChars = []struct {
	c string
	n int
}{{"é", 2}, {"€", 3}, {"💡", 4}}

// LongHolder is a holder longer than MaxIdentityLen that starts with
// prefix and ends in repeat copies of the character wideChars[char], laid
// so that byte MaxIdentityLen is byte into of the first copy (0: its
// first byte, a cut on a character boundary; else inside it, a cut that
// must step back); or, for into at least the character's length,
// exactly MaxIdentityLen bytes, ending in that character (the longest
// holder electors write).
func LongHolder(prefix string, char, into, repeat int) string {
	c := wideChars[char%len(wideChars)].c
	if into >= len(c) {
		return prefix + "-" + strings.Repeat("x", max(MaxIdentityLen-len(prefix)-1-len(c), 0)) + c
	}
	head := prefix + "-" + strings.Repeat("x", max(MaxIdentityLen-into-len(prefix)-1, 0))
	return head + strings.Repeat(c, max(repeat, 1))
}

// PadSize is the size a record is padded to (Object.Size), by kind: 0
// exactly MaxBodyLen, 1 by bytes less, 2 one byte more, 3 by bytes more.
func PadSize(kind, by int) int {
	switch kind % 4 {
	case 0:
		return MaxBodyLen
	case 1:
		return MaxBodyLen - by
	case 2:
		return MaxBodyLen + 1
	}
	return MaxBodyLen + 1 + by
}
