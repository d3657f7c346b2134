package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/s3lease/s3lease/sim"
)

// Respell writes the JSON document body in another spelling, chosen by
// spelling (0: body as it is): every object's keys in another order, and
// whitespace between tokens; for an odd spelling, also the characters
// other encoders escape, each escaped or not: non-ASCII (\uXXXX, surrogate
// pairs beyond the Basic Multilingual Plane, as Python's ensure_ascii
// writes them), '/' (\/, as PHP writes it), and <, >, & and ' (as Go and
// Jackson write them). It is the same document to any JSON reader: what
// another version of a protocol, another language's JSON library or an
// operator's tool writes for the same record. (Plain letters and digits
// stay as they are: no encoder escapes them, and Go's time.Time reads a
// timestamp only unescaped.) A body that is not one JSON document is
// returned as it is.
func Respell(body []byte, spelling uint64) []byte {
	if spelling == 0 {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil || dec.More() {
		return body
	}
	r := respeller{c: sim.NewRandomChooser(spelling), escapes: spelling%2 == 1}
	r.value(doc)
	r.space()
	return r.out
}

// respeller writes one document in its spelling.
type respeller struct {
	c       *sim.RandomChooser
	escapes bool
	out     []byte
}

func (r *respeller) pick(n int) int { return int(r.c.Choose(sim.ChooseSetup, uint64(n))) }

// spaces are the whitespace put between tokens.
var spaces = []string{"", "", " ", "\n", "\t", "\r\n  "}

func (r *respeller) space() { r.out = append(r.out, spaces[r.pick(len(spaces))]...) }

func (r *respeller) value(v any) {
	r.space()
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // then shuffled by the spelling: map order is not the simulator's
		for i := len(keys) - 1; i > 0; i-- {
			j := r.pick(i + 1)
			keys[i], keys[j] = keys[j], keys[i]
		}
		r.out = append(r.out, '{')
		for i, k := range keys {
			if i > 0 {
				r.out = append(r.out, ',')
			}
			r.space()
			r.str(k)
			r.space()
			r.out = append(r.out, ':')
			r.value(v[k])
		}
		r.space()
		r.out = append(r.out, '}')
	case []any:
		r.out = append(r.out, '[')
		for i, e := range v {
			if i > 0 {
				r.out = append(r.out, ',')
			}
			r.value(e)
		}
		r.space()
		r.out = append(r.out, ']')
	case string:
		r.str(v)
	case json.Number:
		r.out = append(r.out, v...)
	case bool:
		r.out = fmt.Append(r.out, v)
	default: // nil
		r.out = append(r.out, "null"...)
	}
	r.space()
}

// str writes s quoted, escaping what JSON requires and, for a spelling
// with escapes, about half the characters other encoders escape.
func (r *respeller) str(s string) {
	r.out = append(r.out, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			r.out = append(r.out, '\\', byte(c))
		case c < 0x20 || c == utf8.RuneError:
			r.out = fmt.Appendf(r.out, `\u%04x`, c)
		case r.escapes && (c >= utf8.RuneSelf || c == '/' || c == '<' || c == '>' || c == '&' || c == '\'') && r.pick(2) == 0:
			switch {
			case c == '/':
				r.out = append(r.out, `\/`...)
			case c > 0xffff:
				c -= 0x10000
				r.out = fmt.Appendf(r.out, `\u%04x\u%04X`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			default:
				r.out = fmt.Appendf(r.out, `\u%04X`, c)
			}
		default:
			r.out = utf8.AppendRune(r.out, c)
		}
	}
	r.out = append(r.out, '"')
}
