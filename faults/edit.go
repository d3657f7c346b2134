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

// streamEdit is the stream that draws the edit of the lock object's record
// before the run.
const streamEdit = 0x65646974_65646974

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
	`"2025-01-02t03:04:05z"`, `"2025-01-02T03:04:05"`, `"10000-01-01T00:00:00Z"`, `"2025-01-02T03:04:05\u005a"`,
	// Other types.
	`[]`, `{}`, `[1]`, `{"holder":"x"}`,
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
	numEdits
)

// Edit rewrites the JSON object body as another tool, another version of a
// protocol or an operator might leave it, chosen by edit (0: as it is):
// one field's value replaced by a literal (editLiterals), a field written
// twice (JSON readers such as encoding/json take the last), a field's name
// in other letter case (which encoding/json matches), an unknown field
// added, a field removed, or every character of a string field escaped
// (the same value). Fields are written in an order the edit chooses, with
// no whitespace. The result may be no record, or no JSON; a reader of
// records must make of it exactly what encoding/json makes of it. A body
// that is not one JSON object is returned as it is.
func Edit(body []byte, edit uint64) []byte {
	if edit == 0 {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]json.RawMessage
	if err := dec.Decode(&doc); err != nil || dec.More() || len(doc) == 0 {
		return body
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
	switch pick(numEdits) {
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
	default:
		fields[i].value = escapeAll(fields[i].value)
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
	return append(out, '}')
}

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
