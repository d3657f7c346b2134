package judging

import "strings"

// A run's bodies come mostly in chains: each renewal writes the record it
// replaces with a new renewal time, and nothing else changed. Reading
// each with json.Unmarshal is most of what the judges spend on records;
// sameFieldsAs reads such a body from the one before it instead, by a rule
// that needs no JSON parser of its own and holds for any body, not only
// an elector's.

// sameFieldsAs reports whether json.Unmarshal reads body into
// RecordFields' three fields without error and as it reads prev, given
// that it reads prev so without error: the two are alike outside their
// strings, byte for byte (the same structure, numbers, literals and
// spaces), with the same keys, and every string that differs is the value
// of a key of a nested object or array, or of a top-level key that is a
// plain ASCII name (plainName) folding to none of the three fields, and is
// printable ASCII with no escape in both. Such differences leave the
// document's validity and the three values as they were. It reports false
// where it cannot tell.
func sameFieldsAs(prev, body string) bool {
	a, b := docScanner{s: prev}, docScanner{s: body}
	for {
		ga, sa, oka := a.next()
		gb, sb, okb := b.next()
		switch {
		case ga != gb || oka != okb:
			return false
		case !oka:
			return true
		case sa == sb:
			continue
		case a.depth < 1 || a.isKey || !plainBytes(sa) || !plainBytes(sb):
			return false
		case a.depth == 1 && !(plainName(a.key) && !strings.EqualFold(a.key, "holder") &&
			!strings.EqualFold(a.key, "token") && !strings.EqualFold(a.key, "released")):
			return false
		}
	}
}

// plainBytes reports whether s is printable ASCII with no '"' or '\\'.
func plainBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// A docScanner reads a JSON document as the bytes between its strings
// and the strings' contents, keeping the depth of nesting and, at the top
// level of an object, whether a string is a key and the last key.
type docScanner struct {
	s     string
	i     int
	depth int
	// keyNext: at depth 1, the next string is a key (after '{' or ',').
	keyNext bool
	isKey   bool   // the string last read is a key at depth 1
	key     string // the last key read at depth 1
}

// next returns the bytes up to the next string and that string's content
// (escapes as written), or, at the end of s, the bytes left and false.
func (d *docScanner) next() (gap, str string, ok bool) {
	from := d.i
	for ; d.i < len(d.s); d.i++ {
		switch c := d.s[d.i]; c {
		case '{', '[':
			d.depth++
			d.keyNext = d.depth == 1 && c == '{'
		case '}', ']':
			d.depth--
		case ',':
			d.keyNext = d.depth == 1
		case '"':
			gap = d.s[from:d.i]
			start := d.i + 1
			j := start
			for {
				k := strings.IndexByte(d.s[j:], '"')
				if k < 0 {
					j = len(d.s)
					break
				}
				j += k
				if !escapedQuote(d.s[start:j]) {
					break
				}
				j++
			}
			if j >= len(d.s) {
				return d.s[from:], "", false // a string left open: unlike any end
			}
			str = d.s[start:j]
			d.i = j + 1
			d.isKey = d.depth == 1 && d.keyNext
			if d.isKey {
				d.key, d.keyNext = str, false
			}
			return gap, str, true
		}
	}
	return d.s[from:], "", false
}

// escapedQuote reports whether a quote that follows s is escaped: s
// ends in an odd number of backslashes.
func escapedQuote(s string) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// plainName reports whether key is ASCII letters and digits only: a name
// json.Unmarshal matches to a field by ASCII case folding alone.
func plainName(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return key != ""
}
