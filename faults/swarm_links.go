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

// extendRecord adds to the record of o, drawn for seed, on a record in
// three a watermark and updates it publishes; on a record in three a link
// to a previous term, on one link in four one no elector writes (a token
// not below the record's, an ending other than "released" or "expired",
// updates of the link or of the record over MaxUpdatesLen); on one in ten
// a holder longer than MaxIdentityLen (or exactly that long) that ends in
// characters of several bytes (LongHolder); and on one in ten padding to
// near the largest body read as a record or just beyond it (PadSize).
// Whether each is added is drawn first, on every seed, so that adding one
// does not decide another.
func extendRecord(seed uint64, sp SwarmSpace, o *Object) {
	s := newStream(seed, streamLinks, sp)
	r := o.Record
	publishes, links, invalid, long, padded := s.on(3), s.on(3), s.pick(4), s.on(10), s.on(10)
	if publishes {
		r.Watermark, r.Updates = s.watermark(), s.updates()
	}
	if links {
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
		if invalid == 0 || r.Token <= 1 {
			breakLink(s, r)
		}
	}
	if long {
		r.Holder = LongHolder(r.Holder, s.pick(len(wideChars)), s.pick(4), int(s.int(1, 500)))
	}
	if padded {
		o.Size = PadSize(s.pick(4), int(s.int(1, 1000)))
	}
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
var wideChars = []string{"é", "€", "💡"}

// LongHolder is a holder longer than MaxIdentityLen that starts with
// prefix and ends in repeat copies of the character wideChars[char], laid
// so that byte MaxIdentityLen is byte into of the first copy (0: its
// first byte, a cut on a character boundary; else inside it, a cut that
// must step back); or, for into at least the character's length,
// exactly MaxIdentityLen bytes, ending in that character (the longest
// holder electors write).
func LongHolder(prefix string, char, into, repeat int) string {
	c := wideChars[char%len(wideChars)]
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
