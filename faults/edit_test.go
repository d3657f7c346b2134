package faults

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEditRewritesARecordEveryWay: over edits 1..3,000 of one record,
// every kind of edit happens: bodies that are no JSON, JSON whose fields
// encoding/json reads otherwise, the same record written otherwise (a
// field twice with its own value, a string escaped throughout), names in
// other case, unknown fields, fields missing. An edit is a function of
// its number, edit 0 leaves the body as it is, and a body that is no JSON
// object is left as it is.
func TestEditRewritesARecordEveryWay(t *testing.T) {
	body := []byte(`{"holder":"n1","token":7,"leaseDurationMs":6000,"nonce":"0123456789abcdef","released":true}`)
	var orig map[string]any
	if err := json.Unmarshal(body, &orig); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for e := uint64(1); e <= 3000; e++ {
		got := Edit(body, e)
		if !bytes.Equal(got, Edit(body, e)) {
			t.Fatalf("edit %d is not a function of its number", e)
		}
		var m map[string]any
		switch {
		case json.Unmarshal(got, &m) != nil:
			seen["no JSON object"]++
		case strings.Contains(string(got), `\u`):
			if equalJSON(m, orig) {
				seen["escaped, the same record"]++
			}
		case strings.Contains(string(got), `"x-`):
			seen["unknown field"]++
		case len(m) < len(orig):
			seen["field missing or renamed"]++
		case equalJSON(m, orig) && bytes.Count(got, []byte(":")) > len(orig):
			seen["a field twice, the same record"]++
		case !equalJSON(m, orig):
			seen["another value"]++
		}
	}
	for _, kind := range []string{"no JSON object", "escaped, the same record", "unknown field", "field missing or renamed",
		"a field twice, the same record", "another value"} {
		if seen[kind] == 0 {
			t.Errorf("no edit of 1..3000 gave %s (%v)", kind, seen)
		}
	}
	if got := Edit(body, 0); !bytes.Equal(got, body) {
		t.Errorf("edit 0 changed the body to %s", got)
	}
	for _, other := range []string{"", "no json", "[1,2]", `"x"`, "{}", `{"a":1} {"b":2}`} {
		if got := Edit([]byte(other), 5); string(got) != other {
			t.Errorf("edit 5 of %q gave %q", other, got)
		}
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestEditLateKinds: over edits 1..3,000 of one record, every late kind of
// edit happens and keeps its promise: a value left out (no JSON), every
// number zero-padded (no JSON, but the same digits: without the zeros, the
// same record), a link to a term before added (the record's own fields as
// they were), among them one whose updates are Latin-1 (no UTF-8; longer
// than MaxUpdatesLen once encoding/json has read each byte as U+FFFD) and
// one whose token is zero-padded: each another body than any elector
// writes for the record (a foreign write). Edits whose late draw picks no late kind give the
// bodies they gave before the late kinds were added.
func TestEditLateKinds(t *testing.T) {
	body := []byte(`{"holder":"n1","token":7,"leaseDurationMs":6000,"nonce":"0123456789abcdef","released":true}`)
	var orig map[string]any
	if err := json.Unmarshal(body, &orig); err != nil {
		t.Fatal(err)
	}
	leftOut := regexp.MustCompile(`"[a-zA-Z]+":[,}]`)
	allPadded, allPadded2 := regexp.MustCompile(`"token":0+7[,}]`), regexp.MustCompile(`"leaseDurationMs":0+6000[,}]`)
	seen := map[string]int{}
	for e := uint64(1); e <= 3000; e++ {
		got := bytes.TrimSuffix(Edit(body, e), []byte(trailer(e)))
		var m map[string]any
		isJSON := json.Unmarshal(got, &m) == nil
		switch {
		case leftOut.Match(got):
			if isJSON {
				t.Fatalf("edit %d left a value out, and %s is JSON", e, got)
			}
			seen["a value left out"]++
		case !utf8.Valid(got):
			var r struct {
				Previous struct{ Updates string }
			}
			if err := json.Unmarshal(got, &r); err != nil || len(r.Previous.Updates) <= 1024 || !utf8.ValidString(r.Previous.Updates) {
				t.Fatalf("edit %d: %q: a link's Latin-1 updates read as %d bytes (%v)", e, got, len(r.Previous.Updates), err)
			}
			seen["Latin-1 updates"]++
		case strings.Contains(string(got), `"token":07,`):
			seen["a link with a zero-padded token"]++
		case allPadded.Match(got) && allPadded2.Match(got):
			var back map[string]any
			if isJSON || json.Unmarshal(unpad(got), &back) != nil || !equalJSON(back, orig) {
				t.Fatalf("edit %d: zero-padded %s is JSON, or another record without its zeros", e, got)
			}
			seen["numbers zero-padded"]++
		case isJSON && m["previous"] != nil && !strings.Contains(string(got), `"x-`):
			delete(m, "previous")
			if equalJSON(m, orig) {
				seen["a link added"]++
			}
		}
	}
	for _, kind := range []string{"a value left out", "numbers zero-padded", "a link added", "Latin-1 updates", "a link with a zero-padded token"} {
		if seen[kind] == 0 {
			t.Errorf("no edit of 1..3000 gave %s (%v)", kind, seen)
		}
	}
	// Written before the late kinds: these edits' late draw picks none.
	for e, want := range map[uint64]string{
		2: `{"nonce":"0123456789abcdef","holder":"n1","token":7,"released":true,"released":true,"leaseDurationMs":6000}`,
		3: `{"token":7,"released":true,"holder":"n1","nonce":"0123456789abcdef","leaseDurationMs":6000,"token":7}`,
		9: `{"token":7,"released":true,"nonce":"0123456789abcdef","LEASEDURATIONMS":6000,"holder":"n1"}`,
	} {
		if got := Edit(body, e); string(got) != want {
			t.Errorf("edit %d gave %s, where it gave %s", e, got, want)
		}
		if trailer(e) != "" {
			t.Errorf("edit %d leaves %q after the object", e, trailer(e))
		}
	}
}

// jsonTokens splits a JSON text into its strings and what lies between.
var jsonTokens = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|[^"]+`)

// padded matches a number with a leading zero, outside strings.
var padded = regexp.MustCompile(`([:,\[-])0+([0-9])`)

// unpad is b with the leading zeros of its numbers taken away.
func unpad(b []byte) []byte {
	return jsonTokens.ReplaceAllFunc(b, func(tok []byte) []byte {
		if tok[0] == '"' {
			return tok
		}
		return padded.ReplaceAll(tok, []byte("$1$2"))
	})
}

// TestZeroPad: zeroPad puts the zeros before the first digit of every
// number, after its sign, and nowhere else: not in strings (whatever they
// escape), not in an exponent.
func TestZeroPad(t *testing.T) {
	for in, want := range map[string]string{
		`7`:                      `007`,
		`-12.5e+3`:               `-0012.5e+3`,
		`[1,-0,true,null]`:       `[001,-000,true,null]`,
		`"2030-01-01T00:00:00Z"`: `"2030-01-01T00:00:00Z"`,
		`{"a\"1":"x\\","b":2}`:   `{"a\"1":"x\\","b":002}`,
	} {
		if got := zeroPad(in, 2); got != want {
			t.Errorf("zeroPad(%s, 2) = %s, want %s", in, got, want)
		}
	}
}

// TestEditTrailers: on about one edit in eight something follows the
// object, each of the trailers over edits 1..3,000; the object before it
// is the edit without one, and the body is JSON only when the trailer is
// a newline.
func TestEditTrailers(t *testing.T) {
	body := []byte(`{"holder":"n1","token":7,"leaseDurationMs":6000,"nonce":"0123456789abcdef","released":true}`)
	seen := map[string]int{}
	n := 0
	for e := uint64(1); e <= 3000; e++ {
		tr := trailer(e)
		if tr == "" {
			continue
		}
		n++
		seen[tr]++
		got := Edit(body, e)
		obj, ok := editObject(body, e)
		if !ok || string(got) != string(obj)+tr {
			t.Fatalf("edit %d: %q is not the edited object %q and %q", e, got, obj, tr)
		}
		var v any
		objJSON := json.Unmarshal(obj, &v) == nil
		if isJSON := json.Unmarshal(got, &v) == nil; isJSON != (objJSON && tr == "\n") {
			t.Errorf("edit %d: %q is JSON: %v", e, got, isJSON)
		}
	}
	if n < 300 || n > 450 || len(seen) != len(trailers) {
		t.Errorf("%d of 3000 edits leave a trailer, of %d kinds: %v", n, len(trailers), seen)
	}
	if got := Edit([]byte("no record"), 8); string(got) != "no record" {
		t.Errorf("an edit of a body that is no JSON object gave %q", got)
	}
}
