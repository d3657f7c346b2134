package elector

import (
	"strings"
	"time"
)

// The record audit reads most bodies by their difference from the body
// they replaced. A renewal or a release rewrites only a run of a record's
// canonical JSON: its renewal time, nonce, release flag and watermark,
// which the record format writes one after the other. A body that is the
// body its If-Match names with that run written anew, in canonical form,
// holds that body's record with those four fields replaced: it is valid
// and canonical if that body is, and its holder, term and link are that
// body's. Reading it so costs a comparison of the bytes around the run and
// the parsing of two times, where encoding/json would read the whole body
// and json.Marshal write it again to be compared.
//
// The fast reading shares nothing with the elector's codec either: it
// knows only the canonical form json.Marshal writes, and reads the times
// with time.Time's own JSON methods, as encoding/json does. Every body it
// cannot read so (a takeover, a body in another form, a body written by
// someone other than the nodes) is read by the reference, readRecord, with
// encoding/json; a run in which the audit finds a violation is judged
// again with every body read so; and one body in 64 of the others is read
// by both, which must agree (RuleRecordReadings).

// renewalKey begins the run of a canonical record that a renewal rewrites.
// A canonical body holds it once, after the acquisition time: the strings
// before it (the holder) hold no unescaped quote.
const renewalKey = `,"renewTime":"`

// sampled reports whether the body with (unquoted) ETag etag is one the
// reference reads beside the fast reading: one in 64, chosen by the ETag
// (an MD5 sum, so a fraction of every run's bodies, and in one run in two
// or three at least one).
func sampled(etag string) bool {
	n := len(etag)
	return n >= 2 && etag[n-1] == '0' && etag[n-2] >= '0' && etag[n-2] <= '3'
}

// renewalRun is the run of a canonical record that a renewal rewrites,
// as scanRenewal finds it in a body: body[head:tail], and the values it
// holds.
type renewalRun struct {
	head, tail int
	renew      time.Time
	nonce      string
	released   bool
	watermark  time.Time
}

// scanRenewal reads the run that begins at body[head:] in canonical form:
// `,"renewTime":"T","nonce":"N"`, then `,"released":true` if released, then
// `,"watermark":"W"` if the watermark is not zero; T and W as
// time.Time.MarshalJSON writes them, N NonceLen lowercase hex digits. It
// reports false for anything else.
func scanRenewal(body string, head int) (renewalRun, bool) {
	run := renewalRun{head: head}
	rest, ok := strings.CutPrefix(body[head:], renewalKey[:len(renewalKey)-1])
	if !ok {
		return run, false
	}
	if run.renew, rest, ok = canonicalTime(rest); !ok {
		return run, false
	}
	const nonceKey = `,"nonce":"`
	if rest, ok = strings.CutPrefix(rest, nonceKey); !ok || len(rest) < nonceLen+1 || rest[nonceLen] != '"' || !lowerHex(rest[:nonceLen], nonceLen) {
		return run, false
	}
	run.nonce, rest = rest[:nonceLen], rest[nonceLen+1:]
	rest, run.released = strings.CutPrefix(rest, `,"released":true`)
	if r, ok := strings.CutPrefix(rest, `,"watermark":`); ok {
		if run.watermark, rest, ok = canonicalTime(r); !ok || run.watermark.IsZero() {
			return run, false
		}
	}
	run.tail = len(body) - len(rest)
	return run, true
}

// nonceLen is protocol.NonceLen, as the record documentation states it.
const nonceLen = 16

// canonicalTime reads the JSON string at the start of s as encoding/json
// reads a time.Time (time.Time.UnmarshalJSON, given the string's bytes: a
// string with an escape is no time), if it is in the form
// time.Time.MarshalJSON writes; it returns the time and what follows the
// string.
func canonicalTime(s string) (time.Time, string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return time.Time{}, s, false
	}
	end := strings.IndexByte(s[1:], '"') + 1
	if end < 1 {
		return time.Time{}, s, false
	}
	var t time.Time
	if t.UnmarshalText([]byte(s[1:end])) != nil {
		return time.Time{}, s, false
	}
	var buf [64]byte
	if b, err := t.AppendText(buf[:0]); err != nil || string(b) != s[1:end] {
		return time.Time{}, s, false
	}
	return t, s[end+1:], true
}

// fastReading is the reading of body as was's, the reading of the body it
// replaced, with the run a renewal rewrites written anew; false if body is
// not that (or was is no valid canonical record to read it by).
func fastReading(body string, was *auditedBody) (*auditedBody, bool) {
	if !was.fastBase() || len(body) > 64<<10 {
		return nil, false
	}
	head, tail := was.run.head, was.run.tail
	if !strings.HasPrefix(body, was.body[:head]) {
		return nil, false
	}
	run, ok := scanRenewal(body, head)
	if !ok || body[run.tail:] != was.body[tail:] {
		return nil, false
	}
	b := &auditedBody{rec: was.rec, body: body, run: run, canonical: canonicalYes}
	b.rec.RenewTime, b.rec.Nonce, b.rec.Released, b.rec.Watermark = run.renew, run.nonce, run.released, run.watermark
	return b, true
}

// fast reports whether bodies that differ from b in the run a renewal
// rewrites can be read by b: b is a valid record in canonical form, whose
// run was found.
func (b *auditedBody) fastBase() bool {
	return b.bad == "" && b.canonical == canonicalYes && b.run.tail > 0
}
