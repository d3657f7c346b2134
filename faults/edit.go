package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/s3lease/s3lease/sim"
)

// editLiterals are values an edit puts in a record's fields: numbers,
// literals, strings and times spelled as no elector writes them, values of
// other types, and text that is no JSON at all. A reader of records must
// read each exactly as encoding/json does: refuse the body, or take the
// same value.
// A number literal that would make a number larger is written negated
// (noLarger).
var editLiterals = []string{
	// Numbers.
	"0", "-1", "-0", "1.0", "1e3", "07", "1.5", "86400001",
	"1844674407370955161", "9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616",
	// Literals, and text that is no JSON.
	"true", "false", "null", "tru", "nul",
	// Strings.
	`""`, `"x"`, `"released"`, `"expired"`, `"rel\u0065ased"`, `"0123456789abcdef"`, `"0123456789ABCDEF"`,
	`"\u0030123456789abcdef"`, `"n\u0031"`, `"a\"b"`, `"é"`, "\"\u2028\"",
	// Times.
	`"2025-01-02T03:04:05Z"`, `"2025-01-02T03:04:05.000+05:30"`, `"2025-01-02T03:04:05-00:00"`,
	`"2025-01-02T03:04:05.1234567891Z"`, `"2025-01-02t03:04:05z"`, `"2025-01-02T03:04:05"`, `"10000-01-01T00:00:00Z"`, `"2025-01-02T03:04:05\u005a"`,
	// Other types.
	`[]`, `{}`, `[1]`, `{"holder":"x"}`,
}

// linkLiterals are links to a term before (the value of a record's
// "previous") as a tool that keeps the chain of terms might write them:
// valid ones (a term of token 0, one with a watermark and updates), one
// whose token is zero-padded (07, which JSON forbids), one whose updates
// are written in Latin-1 by a tool with a legacy code page (bytes that are
// no UTF-8: encoding/json reads each as U+FFFD, three bytes, which puts
// them past MaxUpdatesLen), and ones no record may hold: an unknown
// ending, no holder, null.
var linkLiterals = []string{
	`{"holder":"gone","token":1,"nonce":"0123456789abcdef","ended":"expired"}`,
	`{"holder":"old-deploy","token":0,"nonce":"fedcba9876543210","ended":"released","watermark":"2029-12-31T23:59:59.5Z","updates":"log/entries"}`,
	`{"holder":"gone","token":07,"nonce":"0123456789abcdef","ended":"expired"}`,
	`{"holder":"gone","token":1,"nonce":"0123456789abcdef","ended":"released","updates":"archives/` + strings.Repeat("\xe9\xe8\xe0\xfc", 100) + `"}`,
	`{"holder":"gone","token":1,"nonce":"0123456789abcdef","ended":"superseded"}`,
	`{"holder":"","token":1,"nonce":"0123456789abcdef","ended":"expired"}`,
	`null`,
}

// The kinds of edit.
const (
	editReplace   = iota // a field's value replaced by a literal
	editDuplicate        // a field written twice, once with a literal
	editRepeat           // a field written twice with its own value
	editCase             // a field's name in other letter case
	editUnknown          // an unknown field added
	editRemove           // a field removed
	editEscape           // every character of a string field escaped
	editEmpty            // a field's value left out
	editZeros            // every number written with one to three leading zeros
	editLink             // a link to a term before added, or put in place of the record's
	numEdits
)

// lateEdits is the first of the kinds of edit added after the others,
// which are drawn from a chooser of their own (salted with
// streamLateEdits) on one edit in three, so that the other edits keep
// the kind and the body they had.
const lateEdits = editEmpty

// streamLateEdits salts the chooser that draws the late kinds of edit.
const streamLateEdits = 0x6c617465_65646974

// Edit rewrites the JSON object body as another tool, another version of a
// protocol or an operator might leave it, chosen by edit (0: as it is):
// one field's value replaced by a literal (editLiterals), a field written
// twice (JSON readers such as encoding/json take the last), a field's name
// in other letter case (which encoding/json matches), an unknown field
// added, a field removed, every character of a string field escaped (the
// same value), a field's value left out ("released":, as a template whose
// placeholder came out empty leaves it), every number zero-padded (as
// fixed-width formats write them; JSON forbids a leading zero), or a link
// to a term before added (linkLiterals; it makes no number of the record
// larger). Fields are written in an order
// the edit chooses, with no whitespace; on one edit in eight something
// follows the object (trailers): a newline, or what makes the body no
// JSON value. The result may be no record, no JSON, or no UTF-8; a
// reader of records must make of it exactly what
// encoding/json makes of it. A body that is not one JSON object is
// returned as it is.
func Edit(body []byte, edit uint64) []byte {
	if edit == 0 {
		return body
	}
	out, ok := editObject(body, edit)
	if !ok {
		return body // no JSON object: as it is
	}
	return append(out, trailer(edit)...)
}

// editObject is Edit without what follows the object; false if body is no
// JSON object.
func editObject(body []byte, edit uint64) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]json.RawMessage
	if err := dec.Decode(&doc); err != nil || dec.More() || len(doc) == 0 {
		return nil, false
	}
	c := sim.NewRandomChooser(edit)
	pick := func(n int) int { return int(c.Choose(sim.ChooseSetup, uint64(n))) }
	type field struct{ name, value string }
	var fields []field
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		fields = append(fields, field{k, string(doc[k])})
	}
	i := pick(len(fields))
	literal := editLiterals[pick(len(editLiterals))]
	kind := pick(lateEdits)
	late := sim.NewRandomChooser(edit ^ streamLateEdits)
	if late.Choose(sim.ChooseSetup, 3) == 0 {
		kind = lateEdits + int(late.Choose(sim.ChooseSetup, numEdits-lateEdits))
	}
	switch kind {
	case editReplace:
		fields[i].value = noLarger(literal, fields[i].value)
	case editDuplicate:
		fields = append(fields, field{fields[i].name, noLarger(literal, fields[i].value)})
	case editRepeat:
		fields = append(fields, fields[i])
	case editCase:
		fields[i].name = otherCase(fields[i].name, pick(2) == 0)
	case editUnknown:
		fields = append(fields, field{"x-" + fields[i].name, literal})
	case editRemove:
		fields = slices.Delete(fields, i, i+1)
	case editEscape:
		fields[i].value = escapeAll(fields[i].value)
	case editEmpty:
		fields[i].value = ""
	case editZeros:
		zeros := 1 + int(late.Choose(sim.ChooseSetup, 3))
		for j := range fields {
			fields[j].value = zeroPad(fields[j].value, zeros)
		}
	default: // editLink
		link := linkLiterals[late.Choose(sim.ChooseSetup, uint64(len(linkLiterals)))]
		fields = slices.DeleteFunc(fields, func(f field) bool { return f.name == "previous" })
		fields = append(fields, field{"previous", link})
	}
	for j := len(fields) - 1; j > 0; j-- {
		k := pick(j + 1)
		fields[j], fields[k] = fields[k], fields[j]
	}
	out := []byte{'{'}
	for j, f := range fields {
		if j > 0 {
			out = append(out, ',')
		}
		name, _ := json.Marshal(f.name)
		out = append(append(append(out, name...), ':'), f.value...)
	}
	return append(out, '}'), true
}

// trailer returns what edit leaves after the object (trailers), "" for
// none: on one edit in eight.
func trailer(edit uint64) string {
	t := sim.NewRandomChooser(edit ^ streamTrailing)
	if t.Choose(sim.ChooseSetup, 8) != 0 {
		return ""
	}
	return trailers[t.Choose(sim.ChooseSetup, uint64(len(trailers)))]
}

// streamTrailing salts the chooser that draws what an edit leaves after
// the object, on one edit in eight.
const streamTrailing = 0x74726169_6c696e67

// trailers are what a writer may leave after a record: a newline (still
// one JSON value), the record's closing brace twice, a NUL of a buffer
// written whole, a second value (a writer that appends), a comma.
var trailers = []string{"\n", "}", "\x00", "\n{\"holder\":\"x\"}", " null", ","}

// noLarger returns literal, or its negation if both it and the value it
// stands in for are numbers and it is the larger: an edit never makes a
// number larger, so that no edited record states a longer lease than the
// record it edits (a correct protocol honours the lease a record states,
// and a record of a day's lease would rightly hold every node off for a
// day, past any liveness bound). The negation keeps the literal's digits
// for a reader to refuse.
func noLarger(literal, value string) string {
	var l, v json.Number
	if json.Unmarshal([]byte(literal), &l) != nil || json.Unmarshal([]byte(value), &v) != nil {
		return literal
	}
	lf, err1 := l.Float64()
	vf, err2 := v.Float64()
	if err1 != nil || err2 != nil || lf <= vf {
		return literal
	}
	return "-" + literal
}

// zeroPad writes every number in the JSON value with zeros more leading
// zeros (after its sign): the same digits, which JSON forbids.
func zeroPad(value string, zeros int) string {
	var b strings.Builder
	const (
		outside  = iota // between tokens, or in a literal
		inString        // in a string
		escaped         // in a string, after a backslash
		signed          // after a number's minus sign
		inNumber        // in a number, past its first digit
	)
	state := outside
	for i := range len(value) {
		c := value[i]
		digit := c >= '0' && c <= '9'
		switch state {
		case inString:
			if c == '\\' {
				state = escaped
			} else if c == '"' {
				state = outside
				b.WriteByte(c)
				continue // the closing quote
			}
		case escaped:
			state = inString
		case signed:
			state = outside
			if digit {
				b.WriteString(strings.Repeat("0", zeros))
				state = inNumber
			}
		case inNumber:
			if !digit && strings.IndexByte(".eE+-", c) < 0 {
				state = outside
			}
		}
		if state == outside {
			switch {
			case c == '"':
				state = inString
			case c == '-':
				state = signed
			case digit:
				b.WriteString(strings.Repeat("0", zeros))
				state = inNumber
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// otherCase returns name with its first letter, or every letter, in the
// other case.
func otherCase(name string, all bool) string {
	if all {
		return strings.ToUpper(name)
	}
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}

// escapeAll writes the JSON string value with every character escaped
// (\uXXXX, surrogate pairs beyond the Basic Multilingual Plane): the same
// string to a JSON reader. Any other value, and a timestamp (Go's time.Time
// reads only unescaped ones), is returned as it is.
func escapeAll(value string) string {
	var s string
	if json.Unmarshal([]byte(value), &s) != nil {
		return value
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return value
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c > 0xffff {
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, c)
	}
	b.WriteByte('"')
	return b.String()
}
