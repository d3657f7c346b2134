package protocol

// A hand-written JSON codec for Record, for speed: the deterministic
// simulator encodes and decodes records thousands of times per second, and
// encoding/json's reflection dominated its profile.
//
// Both directions are exact stand-ins for encoding/json, never a dialect of
// their own. The encoder writes what json.Marshal writes, byte for byte, and
// hands anything it does not write itself (a string that needs escaping, a
// time that cannot be written as RFC 3339) to encoding/json. The parser takes
// only bodies in the shape Encode writes, in any key order and with any JSON
// whitespace, and reports any other body, valid or not, as not handled, for
// DecodeRecord to give to encoding/json; so results and errors are the ones
// encoding/json gives. record_fast_test.go checks both against encoding/json.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// encodedSizeHint is a capacity that fits the encoding of r in the common
// case, so that appendJSON allocates once.
func (r Record) encodedSizeHint() int {
	// The keys, punctuation, two 20-digit numbers and two RFC 3339 times
	// with nanoseconds and an offset come to under 200 bytes.
	n := 200 + len(r.Holder) + len(r.Nonce) + 60 + len(r.Updates)
	if p := r.Previous; p != nil {
		n += 80 + len(p.Holder) + len(p.Nonce) + len(p.Ended) + 60 + len(p.Updates)
	}
	return n
}

// appendJSON appends json.Marshal(r) to b. It reports false, having appended
// part of it, if a time cannot be encoded; json.Marshal then gives the error.
// Its field order and omitempty rules are those of the struct tags.
func (r Record) appendJSON(b []byte) ([]byte, bool) {
	var ok bool
	b = append(b, `{"holder":`...)
	b = appendJSONString(b, r.Holder)
	b = append(b, `,"token":`...)
	b = strconv.AppendUint(b, r.Token, 10)
	b = append(b, `,"leaseDurationMs":`...)
	b = strconv.AppendInt(b, r.LeaseDurationMS, 10)
	b = append(b, `,"acquireTime":`...)
	if b, ok = appendJSONTime(b, r.AcquireTime); !ok {
		return b, false
	}
	b = append(b, `,"renewTime":`...)
	if b, ok = appendJSONTime(b, r.RenewTime); !ok {
		return b, false
	}
	b = append(b, `,"nonce":`...)
	b = appendJSONString(b, r.Nonce)
	if r.Released {
		b = append(b, `,"released":true`...)
	}
	if b, ok = appendWatermark(b, r.Watermark, r.Updates); !ok {
		return b, false
	}
	if p := r.Previous; p != nil {
		b = append(b, `,"previous":{"holder":`...)
		b = appendJSONString(b, p.Holder)
		b = append(b, `,"token":`...)
		b = strconv.AppendUint(b, p.Token, 10)
		b = append(b, `,"nonce":`...)
		b = appendJSONString(b, p.Nonce)
		b = append(b, `,"ended":`...)
		b = appendJSONString(b, string(p.Ended))
		if b, ok = appendWatermark(b, p.Watermark, p.Updates); !ok {
			return b, false
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendWatermark appends the watermark and updates fields as json.Marshal
// writes them: each omitted when zero (omitzero, omitempty).
func appendWatermark(b []byte, at time.Time, updates string) ([]byte, bool) {
	ok := true
	if !at.IsZero() {
		b = append(b, `,"watermark":`...)
		if b, ok = appendJSONTime(b, at); !ok {
			return b, false
		}
	}
	if updates != "" {
		b = append(b, `,"updates":`...)
		b = appendJSONString(b, updates)
	}
	return b, true
}

// appendJSONTime appends t as time.Time.MarshalJSON writes it. AppendText
// formats with the same function as MarshalJSON, RFC 3339 with nanoseconds,
// and fails in the same cases (a year outside [0,9999], a zone offset of a
// day or more); it reports false then.
func appendJSONTime(b []byte, t time.Time) ([]byte, bool) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return b, false
	}
	return append(b, '"'), true
}

// appendJSONString appends s quoted as json.Marshal quotes it. Printable
// ASCII is copied as it is, except for '"' and '\\', which need escaping,
// and '<', '>' and '&', which json.Marshal escapes for HTML; any string with
// one of those or another byte is quoted by json.Marshal itself.
func appendJSONString(b []byte, s string) []byte {
	for i := range len(s) {
		if !marshalsAsIs[s[i]] {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// marshalsAsIs and unmarshalsAsIs tell the bytes that json.Marshal copies
// into a string as they are (printable ASCII except '"', '\\', '<', '>' and
// '&'), and the ASCII bytes that json.Unmarshal copies out of a string as
// they are (all but control characters, '"' and '\\').
var marshalsAsIs, unmarshalsAsIs = func() (m, u [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		u[c] = c != '"' && c != '\\'
		m[c] = u[c] && c != 0x7f && c != '<' && c != '>' && c != '&'
	}
	return m, u
}()

// decodeRecordFast parses body if it is a JSON object in the shape Encode
// writes, where json.Unmarshal would give the same Record without error. It
// reports false for any other body, valid JSON or not, and for anything it is
// unsure of, leaving that body to encoding/json: a string with an escape
// unescape does not read, a key
// that is not exactly one of Record's (an unknown key, a key matching only
// case-insensitively), a repeated key, null, a number that is not a decimal
// integer in range, a time that time.Time.UnmarshalJSON rejects, trailing
// data. It does not check the record; DecodeRecord does.
func decodeRecordFast(body []byte) (Record, bool) {
	p := recordParser{b: body}
	var r Record
	var s stringSpans
	if !p.record(&r, &s) {
		return Record{}, false
	}
	p.space()
	if p.i != len(p.b) {
		return Record{}, false
	}
	s.copyStrings(&p, &r)
	return r, true
}

// A span is a string's content, not yet copied: body[start:end], or, if
// unquoted, the parser's unq[start:end], where a string with escapes is
// written unescaped.
type span struct {
	start, end int
	unquoted   bool
}

// stringSpans are the string fields of a record as found in the body. They
// are copied out together once the body has parsed, in one allocation.
type stringSpans struct {
	holder, nonce, prevHolder, prevNonce, prevEnded, updates, prevUpdates span
}

func (s *stringSpans) copyStrings(p *recordParser, r *Record) {
	// The endings Encode writes are constants; don't copy them.
	var ended Ending
	copied := [...]span{s.holder, s.nonce, s.prevHolder, s.prevNonce, s.prevEnded, s.updates, s.prevUpdates}
	switch string(p.content(s.prevEnded)) {
	case string(EndedReleased):
		ended = EndedReleased
		copied[4] = span{}
	case string(EndedExpired):
		ended = EndedExpired
		copied[4] = span{}
	}
	n := 0
	for _, sp := range copied {
		n += sp.end - sp.start
	}
	var all string
	if n > 0 {
		var sb strings.Builder
		sb.Grow(n)
		for _, sp := range copied {
			sb.Write(p.content(sp))
		}
		all = sb.String()
	}
	cut := func(sp span) string {
		v := all[:sp.end-sp.start]
		all = all[len(v):]
		return v
	}
	r.Holder = cut(copied[0])
	r.Nonce = cut(copied[1])
	prevHolder, prevNonce, prevEnded := cut(copied[2]), cut(copied[3]), cut(copied[4])
	r.Updates = cut(copied[5])
	if p := r.Previous; p != nil {
		p.Holder, p.Nonce = prevHolder, prevNonce
		if ended == "" {
			ended = Ending(prevEnded)
		}
		p.Ended = ended
		p.Updates = cut(copied[6])
	}
}

// recordParser reads a body from b[i:]; unq holds the strings with
// escapes, unescaped.
type recordParser struct {
	b   []byte
	i   int
	unq []byte
}

// content is the string sp spans, unescaped.
func (p *recordParser) content(sp span) []byte {
	if sp.unquoted {
		return p.unq[sp.start:sp.end]
	}
	return p.b[sp.start:sp.end]
}

// objectKeys are the keys of an object the parser reads, as it numbers
// them, and each as Encode writes it before its value: quoted, then a
// colon.
type objectKeys struct{ names, colons []string }

func newObjectKeys(names ...string) objectKeys {
	k := objectKeys{names: names}
	for _, n := range names {
		k.colons = append(k.colons, `"`+n+`":`)
	}
	return k
}

// The keys of Record and PreviousTerm: in the order Encode writes them,
// which the parser tries first.
var (
	recordKeys   = newObjectKeys("holder", "token", "leaseDurationMs", "acquireTime", "renewTime", "nonce", "released", "watermark", "updates", "previous")
	previousKeys = newObjectKeys("holder", "token", "nonce", "ended", "watermark", "updates")
)

// record parses the object of a Record into r, its strings into s.
func (p *recordParser) record(r *Record, s *stringSpans) bool {
	return p.object(recordKeys, func(key int) (ok bool) {
		switch key {
		case 0:
			s.holder, ok = p.str()
		case 1:
			r.Token, ok = p.uint64()
		case 2:
			var n uint64
			n, ok = p.uint64()
			r.LeaseDurationMS = int64(n)
			ok = ok && n <= math.MaxInt64
		case 3:
			ok = p.time(&r.AcquireTime)
		case 4:
			ok = p.time(&r.RenewTime)
		case 5:
			s.nonce, ok = p.str()
		case 6:
			r.Released, ok = p.bool()
		case 7:
			ok = p.time(&r.Watermark)
		case 8:
			s.updates, ok = p.str()
		case 9:
			r.Previous = new(PreviousTerm)
			ok = p.previous(r.Previous, s)
		}
		return ok
	})
}

// previous parses the object of a PreviousTerm into t, its strings into s.
func (p *recordParser) previous(t *PreviousTerm, s *stringSpans) bool {
	return p.object(previousKeys, func(key int) (ok bool) {
		switch key {
		case 0:
			s.prevHolder, ok = p.str()
		case 1:
			t.Token, ok = p.uint64()
		case 2:
			s.prevNonce, ok = p.str()
		case 3:
			s.prevEnded, ok = p.str()
		case 4:
			ok = p.time(&t.Watermark)
		case 5:
			s.prevUpdates, ok = p.str()
		}
		return ok
	})
}

// object parses an object, after optional whitespace, whose keys are among
// keys, each at most once, or are foreign to them (foreign) with a string
// for value, which it skips as json.Unmarshal ignores them. It calls value
// with the index of each key of keys, with p at its value, to read the
// value.
func (p *recordParser) object(keys objectKeys, value func(key int) bool) bool {
	p.space()
	if !p.byte('{') {
		return false
	}
	p.space()
	if p.byte('}') {
		return true
	}
	seen, next := 0, 0
	for {
		var key int
		if next < len(keys.colons) && bytes.HasPrefix(p.b[p.i:], []byte(keys.colons[next])) {
			// The next key as Encode writes it, with its colon.
			p.i += len(keys.colons[next])
			key = next
		} else {
			p.space()
			if key = p.key(keys.names, next); key == -1 {
				return false
			}
			p.space()
			if !p.byte(':') {
				return false
			}
		}
		p.space()
		switch {
		case key == foreignKey:
			if _, ok := p.str(); !ok {
				return false
			}
		case seen&(1<<key) != 0:
			return false
		default:
			next = key + 1
			seen |= 1 << key
			if !value(key) {
				return false
			}
		}
		p.space()
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// foreignKey is what key returns for a key that json.Unmarshal matches to
// no field: printable ASCII without escapes, not equal to any of keys when
// ASCII letters are folded to one case (json.Unmarshal matches keys to
// fields that way too).
const foreignKey = -2

// key reads a string that is exactly one of keys, with no escape, and
// returns its index, or foreignKey for a foreign key, or -1 for any other.
// It tries keys[next:] first, then the others: in a body Encode wrote, the
// next key present is the first one tried that matches.
func (p *recordParser) key(keys []string, next int) int {
	rest := p.b[p.i:]
	if len(rest) < 2 || rest[0] != '"' {
		return -1
	}
	rest = rest[1:]
	for n := range len(keys) {
		i := next + n
		if i >= len(keys) {
			i -= len(keys)
		}
		if k := keys[i]; len(rest) > len(k) && rest[0] == k[0] && rest[len(k)] == '"' && string(rest[:len(k)]) == k {
			p.i += 1 + len(k) + 1
			return i
		}
	}
	return p.foreign(keys)
}

// foreign reads a foreign key (foreignKey) and returns foreignKey, or
// returns -1, reading nothing.
func (p *recordParser) foreign(keys []string) int {
	rest := p.b[p.i+1:]
	n := 0
	for n < len(rest) && rest[n] != '"' {
		if c := rest[n]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' {
			return -1
		}
		n++
	}
	if n == len(rest) {
		return -1
	}
	for _, k := range keys {
		if strings.EqualFold(k, string(rest[:n])) {
			return -1
		}
	}
	p.i += 1 + n + 1
	return foreignKey
}

// space skips JSON whitespace.
func (p *recordParser) space() {
	for p.i < len(p.b) && p.b[p.i] <= ' ' {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte consumes c if it is next.
func (p *recordParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string that encoding/json would unquote to the bytes it
// spans: no control character, valid UTF-8, and escapes only of the
// forms unescape reads.
func (p *recordParser) str() (span, bool) {
	if !p.byte('"') {
		return span{}, false
	}
	b, start := p.b, p.i
	j := start + plainWords(b[start:])
	for j < len(b) && unmarshalsAsIs[b[j]] {
		j++
	}
	ascii := true
	for ; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:j]) {
				return span{}, false
			}
			p.i = j + 1
			return span{start: start, end: j}, true
		case c == '\\':
			return p.unescape(start, j)
		case c < 0x20:
			return span{}, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return span{}, false
}

// unescape reads the rest of the string that begins at b[start] and has
// its first escape at b[j], writing it unescaped to unq as
// json.Unmarshal would: the escapes of one character (\", \\, \/, \b,
// \f, \n, \r, \t) and \u escapes of runes that are not surrogates. It
// fails on anything else: a surrogate (json.Unmarshal pairs them or
// writes U+FFFD), a control character, bytes that are not UTF-8 (a rune
// an escape writes is whole, so the unescaped string is valid UTF-8 if
// and only if the bytes between escapes are).
func (p *recordParser) unescape(start, j int) (span, bool) {
	b := p.b
	from := len(p.unq)
	p.unq = append(p.unq, b[start:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			if !utf8.Valid(p.unq[from:]) {
				return span{}, false
			}
			p.i = j + 1
			return span{start: from, end: len(p.unq), unquoted: true}, true
		case c < 0x20:
			return span{}, false
		case c != '\\':
			p.unq = append(p.unq, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			return span{}, false
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/':
			p.unq = append(p.unq, e)
		case 'b':
			p.unq = append(p.unq, '\b')
		case 'f':
			p.unq = append(p.unq, '\f')
		case 'n':
			p.unq = append(p.unq, '\n')
		case 'r':
			p.unq = append(p.unq, '\r')
		case 't':
			p.unq = append(p.unq, '\t')
		case 'u':
			r, ok := hex4(b[j+2:])
			if !ok || utf16.IsSurrogate(r) {
				return span{}, false
			}
			p.unq = utf8.AppendRune(p.unq, r)
			j += 4
		default:
			return span{}, false
		}
		j += 2
	}
	return span{}, false
}

// hex4 reads the four hexadecimal digits at the start of b as a rune.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// plainWords returns the length of the longest run of whole 8-byte words
// at the start of b whose bytes are all ASCII that json.Unmarshal copies
// out of a string as they are (unmarshalsAsIs): the bulk of a string,
// checked a word at a time.
func plainWords(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for ; n+8 <= len(b); n += 8 {
		w := binary.LittleEndian.Uint64(b[n:])
		// A byte of 0x80 and up sets its high bit in w; one below 0x20
		// in the first difference, '"' and '\\' in the others (the xor
		// zeroes them). A borrow can set the high bit of a byte only
		// above one that sets its own: the run ends at or before the
		// first byte that is not plain, never after.
		if (w|(w-0x20*ones)|((w^'"'*ones)-ones)|((w^'\\'*ones)-ones))&highs != 0 {
			break
		}
	}
	return n
}

// uint64 reads a JSON number that is a decimal integer within uint64; it
// leaves a fraction or exponent, or a leading zero, unread, for the caller to
// fail on as it would on any character but ',', '}' or whitespace.
func (p *recordParser) uint64() (uint64, bool) {
	b, i := p.b, p.i
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return 0, false
	}
	if b[i] == '0' {
		p.i++
		return 0, true
	}
	var n uint64
	for ; i < len(b); i++ {
		d := uint64(b[i] - '0')
		if d > 9 {
			break
		}
		if n > (math.MaxUint64-d)/10 {
			return 0, false // out of range: an UnmarshalTypeError
		}
		n = n*10 + d
	}
	p.i = i
	return n, true
}

// bool reads true or false.
func (p *recordParser) bool() (bool, bool) {
	rest := p.b[p.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		p.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		p.i += 5
		return false, true
	}
	return false, false
}

// time reads a string into t as encoding/json does, by handing the quoted
// string to time.Time.UnmarshalJSON, failing if that does; a time in UTC
// in the form Encode writes is read by utcTime.
func (p *recordParser) time(t *time.Time) bool {
	sp, ok := p.str()
	if !ok || sp.unquoted {
		return false
	}
	if u, ok := utcTime(p.b[sp.start:sp.end]); ok {
		*t = u
		return true
	}
	return t.UnmarshalJSON(p.b[sp.start-1:sp.end+1]) == nil
}

// utcTime reads s if it is an RFC 3339 time in UTC as Encode writes it,
// "2006-01-02T15:04:05Z" with an optional fraction of one to nine digits,
// giving the time time.Time.UnmarshalJSON gives (the same instant, in
// UTC); it reports false for anything else, valid or not.
func utcTime(s []byte) (time.Time, bool) {
	const layout = "2006-01-02T15:04:05"
	if len(s) < len(layout)+1 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	y0, ok0 := digits2(s[0:2])
	y1, ok1 := digits2(s[2:4])
	month, ok2 := digits2(s[5:7])
	day, ok3 := digits2(s[8:10])
	hour, ok4 := digits2(s[11:13])
	minute, ok5 := digits2(s[14:16])
	sec, ok6 := digits2(s[17:19])
	year := y0*100 + y1
	if !(ok0 && ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[len(layout) : len(s)-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' {
			return time.Time{}, false
		}
		for _, c := range frac[1:] {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
			nsec = nsec*10 + int(c-'0')
		}
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	days := daysSinceEpoch(year, month, day)
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// digits2 reads two decimal digits.
func digits2(b []byte) (int, bool) {
	d0, d1 := b[0]-'0', b[1]-'0'
	return int(d0)*10 + int(d1), d0 <= 9 && d1 <= 9
}

// daysIn is the number of days in month of year.
func daysIn(month, year int) int {
	switch {
	case month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0):
		return 29
	case month == 2:
		return 28
	case month == 4 || month == 6 || month == 9 || month == 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the number of days from 1970-01-01 to the date in the
// proleptic Gregorian calendar (negative before it), for years 0 to 9999.
func daysSinceEpoch(year, month, day int) int64 {
	// Days from civil (H. Hinnant): years begin in March, so that the
	// leap day ends one.
	if month <= 2 {
		year--
	}
	era := (year + 400) / 400 // year >= -1: shifted by one era to stay positive
	yoe := year + 400 - era*400
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era-1)*146097 + int64(doe) - 719468
}
