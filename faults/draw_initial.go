package faults

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// drawInitial draws the lock object's content before the run: none on two
// draws in five; a released record; the live record of a node that is
// gone (stating the nodes' lease or less); a record with a token of about
// 2^40 (native: electors could have written it); and, on one draw in
// twenty, content no elector wrote: bytes that are no record, or a record
// at the top of the token space (math.MaxUint64-1, which leaves one
// successor, or math.MaxUint64, which the elector refuses). To a record it
// may add what extendRecord draws; half the records are in another
// spelling of the same JSON (Object.Spelling), one in four is edited as
// another tool might leave it (Object.Edit, a foreign write), and a record
// not edited may state a lease at the edge of the longest (longLease).
func drawInitial(d *drawing, s stream) {
	small := func() uint64 { return uint64(s.Int(1, 1000)) }
	lease := func() Duration {
		if !s.OneIn(2) {
			return 0 // the protocol's own
		}
		return ms(s.Between(d.b.Lease/2, d.b.Lease))
	}
	var o *Object
	switch k := s.Pick(20); {
	case k < 8:
		return
	case k < 11:
		o = &Object{Record: &Record{Holder: s.holder(), Token: small(), Released: true}}
	case k < 14:
		o = &Object{Record: &Record{Holder: s.holder(), Token: small(), Lease: lease()}}
	case k < 19:
		o = &Object{Record: &Record{Holder: s.holder(), Token: 1<<40 + uint64(s.Int(0, 3)), Lease: lease(), Released: s.OneIn(2)}}
	case s.OneIn(2):
		o = &Object{Body: s.foreignBody()}
	default:
		o = &Object{Record: &Record{Holder: s.holder(), Token: math.MaxUint64 - uint64(s.Int(0, 1)), Lease: lease(), Released: s.OneIn(2)}}
	}
	d.plan.Initial = o
	if o.Record == nil {
		return
	}
	s.extendRecord(o)
	if s.OneIn(2) {
		o.Spelling = 1 + s.Choose(1<<62)
	}
	if s.OneIn(4) {
		o.Edit = 1 + s.Choose(1<<62)
	}
	if o.Edit == 0 {
		s.longLease(o.Record) // an edit could make a long lease live
	}
}

// holder draws the holder of a record written before or outside the run:
// a process that is gone (one named after a directory with a backslash
// left at its end, as a Windows path joined to nothing leaves it, which
// JSON writes as the string's one escape, at its very end), or (one in 2)
// one of the nodes' own names (a process that restarted under the same
// identity).
func (s stream) holder() string {
	if s.OneIn(2) {
		return fmt.Sprintf("n%d", s.node())
	}
	return []string{"gone", "old-deploy", "intruder", `deploy-agent\`}[s.Pick(4)]
}

// foreignBody draws bytes that are no lock record: one of foreignBodies,
// or, one draw in two, a near record (nearRecord).
func (s stream) foreignBody() string {
	if s.OneIn(2) {
		return s.nearRecord()
	}
	return foreignBodies[s.Pick(len(foreignBodies))]
}

// foreignBodies are bytes that are no lock record: empty, text, JSON that
// is no record, a record-shaped object with no lease, control bytes, and a
// record cut off right after a key (a truncated upload), which a parser
// must refuse without reading past the end. (Every body is valid UTF-8, so
// that a plan's JSON holds it exactly.)
var foreignBodies = []string{
	"",
	"# lifecycle-rule placeholder: this key is managed by ops\n",
	"{}",
	`{"holder":"intruder","token":1}`,
	"\x00\x01 binary \x7f",
	`{"holder":"intruder","token":`,
}

// extendRecord adds to the record of o: on a record in three a watermark
// and updates it publishes; on a record in three a link to a previous
// term, as electors write it; on one in twenty a holder of exactly
// MaxIdentityLen bytes (the longest an elector has), ending in a
// character of several bytes. On the draws with foreign writes during the
// run, and only there, so that the draws judged within the assumptions
// stay as many, it adds what no elector writes: on half the links one it
// must refuse (breakLink); on a record in three a holder longer than
// MaxIdentityLen ending in characters of several bytes (LongHolder: cut
// at that length on a boundary or inside a character); on a record in
// three padding to near the largest body read as a record, or just beyond
// it (PadSize). Whether each is added is drawn first, every time, so that
// adding one does not decide another.
func (s stream) extendRecord(o *Object) {
	r := o.Record
	publishes, links, longest := s.OneIn(3), s.OneIn(3), s.OneIn(20)
	invalid, long, padded := s.OneIn(2), s.OneIn(3), s.OneIn(3)
	if !s.d.foreign {
		invalid, long, padded = false, false, false
	}
	if publishes {
		r.Watermark, r.Updates = s.watermark(), s.updates()
	}
	if links && (r.Token > 1 || invalid) { // no token is below 1
		p := &Previous{Holder: s.holder(), Ended: []string{EndedReleased, EndedExpired}[s.Pick(2)]}
		if s.OneIn(2) {
			p.Watermark = s.watermark()
		}
		if s.OneIn(2) {
			p.Updates = s.updates()
		}
		if r.Token > 1 {
			p.Token = r.Token - uint64(s.Int(1, int64(min(r.Token-1, 1000))))
		}
		if r.Watermark.Before(p.Watermark) {
			r.Watermark = p.Watermark // as handed over, not yet raised
		}
		r.Previous = p
		if invalid {
			s.breakLink(r)
		}
	}
	char := s.Pick(len(wideChars))
	switch {
	case long:
		r.Holder = LongHolder(r.Holder, char, s.Pick(wideChars[char].n), int(s.Int(1, 500)))
	case longest:
		r.Holder = LongHolder(r.Holder, char, wideChars[char].n, 0)
	}
	if padded {
		o.Size = PadSize(s.Pick(4), int(s.Int(1, 1000)))
	}
}

// breakLink makes r's link, or its updates, one no elector writes: a
// token not below the record's, an ending other than "released" or
// "expired", updates of the link or of the record over MaxUpdatesLen.
func (s stream) breakLink(r *Record) {
	p := r.Previous
	switch s.Pick(4) {
	case 0:
		p.Token = r.Token
		if s.OneIn(2) && r.Token < math.MaxUint64 {
			p.Token++
		}
	case 1:
		p.Ended = []string{"", "Released", "EXPIRED", "abandoned", "released ", "expired\u0000"}[s.Pick(6)]
	case 2:
		p.Updates = s.overlong()
	default:
		r.Updates = s.overlong()
	}
}

// overlong draws updates of more than MaxUpdatesLen bytes.
func (s stream) overlong() string {
	n := MaxUpdatesLen + 1
	if s.OneIn(2) {
		n += int(s.Int(1, 2000))
	}
	return strings.Repeat("u", n-2) + "é"
}

// watermark draws a watermark a record publishes: within an hour of the
// run's start, or, one draw in two, an instant anywhere in the sixty years
// before it, to the nanosecond (what a deployment long gone left), so
// that the records read hold dates from every part of the calendar (month
// ends, leap days, other centuries' years), which the run's own clocks,
// all near sim.Epoch, never write.
func (s stream) watermark() time.Time {
	if s.OneIn(2) {
		return sim.Epoch.Add(-time.Duration(s.Int(0, 60*365*24*int64(time.Hour)))).UTC()
	}
	return sim.Epoch.Add(time.Duration(s.Signed(int64(time.Hour)))).UTC()
}

// updates draws the updates a record publishes: a short name, exactly
// MaxUpdatesLen bytes ending in a character of two, or text that JSON must
// escape.
func (s stream) updates() string {
	switch s.Pick(3) {
	case 0:
		return fmt.Sprintf("log/entries-%d", s.Int(0, 99))
	case 1:
		return strings.Repeat("u", MaxUpdatesLen-2) + "é"
	}
	return strings.Repeat("\"quoted\" \\ é <&> \u2028", int(s.Int(1, 40)))
}

// longLease gives the record, on one draw in three of those with foreign
// writes during the run, and only there, a lease at the edge of the
// longest a record may state (MaxLease): a whole number of milliseconds
// in (MaxLease - 1 h, MaxLease], exactly MaxLease, or a millisecond more,
// which the elector must refuse as malformed (and the record is then
// foreign: Native). The record is released, and drawInitial draws such a
// lease only for a record it does not edit (an edit may leave the release
// out): a live record would hold every node off for the whole run, past
// any liveness bound (a protocol without the elector's bound honours even
// the lease beyond it), and so would a record at the top of the token
// space, which the elector times for the lease it states, released or
// not: such a record keeps its lease. Electors take a released record
// over at once, linking to it if they read it as a valid record: whether
// they read its lease as valid shows in the link.
func (s stream) longLease(r *Record) {
	if !s.OneIn(3) || !s.d.foreign || r.Token > MaxNativeToken {
		return
	}
	switch s.Pick(3) {
	case 0:
		r.Lease = ms(s.Between(MaxLease-time.Hour+time.Millisecond, MaxLease+time.Millisecond))
	case 1:
		r.Lease = Duration(MaxLease)
	default:
		r.Lease = Duration(MaxLease + time.Millisecond)
	}
	r.Released = true
}
