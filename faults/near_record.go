package faults

import "strings"

// nearRecordBase is a record as another tool writes it: its holder's
// last letter escaped (\u00e9, as Python's ensure_ascii writes é), its
// times in UTC with fractions of nine digits and of one.
const nearRecordBase = `{"holder":"intruder-\u00e9","token":7,"leaseDurationMs":5000,` +
	`"acquireTime":"2025-01-02T03:04:05.123456789Z","renewTime":"2025-01-02T03:04:06.5Z","nonce":"0123456789abcdef"}`

// nearRecordValues are the string values of nearRecordBase, quoted.
var nearRecordValues = []string{`"intruder-\u00e9"`, `"2025-01-02T03:04:05.123456789Z"`, `"2025-01-02T03:04:06.5Z"`, `"0123456789abcdef"`}

// nearRecordTime is the time in nearRecordBase that a bad time replaces.
const nearRecordTime = `"2025-01-02T03:04:05.123456789Z"`

// badTimes are times no JSON reader of time.Time takes, each one
// mistake from a valid one: a month, day, hour, minute or second out of
// range (a day past its month's end, February 29 of a year that has
// none), a fraction of no digits or with a letter, a time with no zone or
// two. (A fraction of ten digits or more is valid: the reader drops
// what is below a nanosecond.)
var badTimes = []string{
	`"2025-00-02T03:04:05Z"`, `"2025-13-02T03:04:05Z"`, `"2025-01-00T03:04:05Z"`, `"2025-01-32T03:04:05Z"`,
	`"2025-02-29T03:04:05Z"`, `"2024-02-30T03:04:05Z"`, `"2025-04-31T03:04:05Z"`, `"2100-02-29T03:04:05Z"`,
	`"2025-01-02T24:04:05Z"`, `"2025-01-02T03:60:05Z"`, `"2025-01-02T03:04:60Z"`,
	`"2025-01-02T03:04:05.Z"`, `"2025-01-02T03:04:05.12a4Z"`,
	`"2025-01-02T03:04:05"`, `"2025-01-02T03:04:05ZZ"`, `"2025-01-02T03:04:05.5"`,
}

// notDigits are the bytes badDigit puts in place of a time's digit: the
// ones just below '0' and above '9', and others a hand or a tool slips in.
const notDigits = "/: aO"

// badEscapes are what a near record's escape of é may become: a \u
// escape with a byte that is no hexadecimal digit in one of its places
// (the bytes on either side of the digits' ranges), an escape JSON does
// not have, and a lone surrogate's neighbour spelled wrong.
var badEscapes = []string{
	`\u00g9`, `\u00G9`, `\u00/9`, `\u00:9`, `\u00@9`, "\\u00`9", `\u0g09`, `\ug0e9`, `\u00eg`,
	`\x00e9`, `\U00e9`, `\'`, `\u00e`, `\u 0e9`,
}

// nearRecordNonce is the nonce in nearRecordBase, quoted.
const nearRecordNonce = `"0123456789abcdef"`

// badNonces are nonces a record may not hold, each one mistake from one:
// hexadecimal in upper case, a digit short or over, a letter past f,
// none.
var badNonces = []string{`"0123456789ABCDEF"`, `"0123456789abcdeF"`, `"0123456789abcde"`, `"0123456789abcdef0"`, `"0123456789abcdeg"`, `""`}

// The kinds of near record.
const (
	nearTime   = iota // a time replaced by one of badTimes
	nearDigit         // a digit of a time replaced by one of notDigits
	nearEscape        // the holder's escape replaced by one of badEscapes
	nearNonce         // the nonce replaced by one of badNonces
	nearCut           // the body cut at a byte (a truncated upload)
	nearInStr         // the body cut inside a string's content
	nearInEsc         // the body cut inside the holder's escape
	numNear
)

// nearRecord draws a body shaped like a lock record that is none: one
// mistake in nearRecordBase, of a kind that a reader of records written
// for speed checks apart from encoding/json's rules (times, escapes, the
// end of the body) or that the record format forbids (a nonce that is not
// sixteen lower-case hexadecimal digits), which it must refuse as the
// reference does without reading past the end. (Every body is valid UTF-8, so that a plan's
// JSON holds it exactly.)
func (s stream) nearRecord() string {
	body := nearRecordBase
	switch s.Pick(numNear) {
	case nearTime:
		body = strings.Replace(body, nearRecordTime, badTimes[s.Pick(len(badTimes))], 1)
	case nearDigit:
		body = strings.Replace(body, nearRecordTime, badDigit(nearRecordTime, s.Pick(14), s.Pick(len(notDigits))), 1)
	case nearEscape:
		body = strings.Replace(body, `\u00e9`, badEscapes[s.Pick(len(badEscapes))], 1)
	case nearNonce:
		body = strings.Replace(body, nearRecordNonce, badNonces[s.Pick(len(badNonces))], 1)
	case nearCut:
		body = body[:s.Int(1, int64(len(body)-1))]
	case nearInStr:
		v := nearRecordValues[s.Pick(len(nearRecordValues))]
		at := strings.Index(body, v) + 1 // after the opening quote
		body = body[:at+s.Pick(len(v)-1)]
	default:
		esc := strings.Index(body, `\u00e9`)
		body = body[:esc+2+s.Pick(4)] // after \u and zero to three digits
	}
	return body
}

// badDigit is the quoted time t with its k-th digit (0 <= k < 14, in
// year, month, day, hour, minute, second) replaced by notDigits[c].
func badDigit(t string, k, c int) string {
	b := []byte(t)
	for i, n := range b {
		if n >= '0' && n <= '9' {
			if k == 0 {
				b[i] = notDigits[c]
				break
			}
			k--
		}
	}
	return string(b)
}
