package judging

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// diffBases are bodies to change: records as electors and other tools
// write them, with links, escapes, repeated keys and keys that fold to a
// field's name.
var diffBases = []string{
	`{"holder":"n1","token":7,"leaseDurationMs":6000,"acquireTime":"2026-01-01T00:00:00.123456789Z","renewTime":"2026-01-01T00:00:01.5Z","nonce":"0123456789abcdef"}`,
	`{"holder":"n\"1\\","token":7,"renewTime":"2026-01-01T00:00:01Z","previous":{"holder":"n0","token":6,"ended":"expired","watermark":"2026-01-01T00:00:00Z"},"updates":"s3://b/k"}`,
	`{"renewTime":"2026-01-01T00:00:01Z","released":true,"token":9,"holder":"\u00e9t\u00e9","x":[1,"a",{"holder":"z"}]}`,
	`{"holder":"a","HOLDER":"b","Token":3,"token":4,"relea\u0073ed":false,"note":"plain text"}`,
	`{"holder":"a","token":1,"releaſed":true,"renewTime":"2026-01-01T00:00:01Z"}`,
	` { "holder" : "a" , "token" : 2 , "k\u0065y" : "value" , "tokeN" : 5 } `,
	`{"holder":null,"token":0,"renewTime":"x","released":null}`,
}

// diffBytes are the bytes an edit puts in: plain ones and the ones that
// change a document's shape.
const diffBytes = "09azAZ:.-T \"\\{}[],ſ\x01"

// TestSameFieldsAsMatchesUnmarshal: wherever sameFieldsAs says a changed
// body reads as the body it was changed from, json.Unmarshal reads it so,
// without error.
func TestSameFieldsAsMatchesUnmarshal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prev := rapid.SampledFrom(diffBases).Draw(t, "prev")
		want := readRecordFields(prev)
		if want.Err != nil {
			t.Fatalf("base %s: %v", prev, want.Err)
		}
		b := []byte(prev)
		for range rapid.IntRange(1, 3).Draw(t, "edits") {
			i := rapid.IntRange(0, len(b)).Draw(t, "at")
			c := []byte(string(rapid.SampledFrom([]rune(diffBytes)).Draw(t, "byte")))
			switch k := rapid.IntRange(0, 2).Draw(t, "edit"); {
			case k == 0 && i < len(b):
				b = append(b[:i:i], append(c, b[i+1:]...)...)
			case k == 1:
				b = append(b[:i:i], append(c, b[i:]...)...)
			case i < len(b):
				b = append(b[:i:i], b[i+1:]...)
			}
		}
		body := string(b)
		if !sameFieldsAs(prev, body) {
			return
		}
		if got := readRecordFields(body); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sameFieldsAs(%s, %s), but json.Unmarshal reads %+v, not %+v", prev, body, got, want)
		}
	})
}

// TestSameFieldsAsMatchesUnmarshalOnStrings: as
// TestSameFieldsAsMatchesUnmarshal, for bodies with one to three strings
// (keys or values, at any depth) written anew, as a renewal writes its
// time and nonce.
func TestSameFieldsAsMatchesUnmarshalOnStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prev := rapid.SampledFrom(diffBases).Draw(t, "prev")
		want := readRecordFields(prev)
		var spans [][2]int // the strings' contents
		for d := (docScanner{s: prev}); ; {
			_, str, ok := d.next()
			if !ok {
				break
			}
			spans = append(spans, [2]int{d.i - 1 - len(str), d.i - 1})
		}
		chosen := map[int]string{}
		for range rapid.IntRange(1, 3).Draw(t, "strings") {
			chosen[rapid.IntRange(0, len(spans)-1).Draw(t, "string")] = rapid.OneOf(
				rapid.StringOfN(rapid.SampledFrom([]rune(diffBytes)), 0, 12, -1),
				rapid.SampledFrom([]string{"holder", "Token", "released", "x", "n1", "7"})).Draw(t, "content")
		}
		body, at := "", 0
		for i, sp := range spans {
			if c, ok := chosen[i]; ok {
				body += prev[at:sp[0]] + c
				at = sp[1]
			}
		}
		body += prev[at:]
		if !sameFieldsAs(prev, body) {
			return
		}
		if got := readRecordFields(body); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sameFieldsAs(%s, %s), but json.Unmarshal reads %+v, not %+v", prev, body, got, want)
		}
	})
}

// TestSameFieldsAsReadsRenewals: a renewal's new time, of any length, and
// a new watermark are read from the body before; a change of a field, a
// key or an escape is not.
func TestSameFieldsAsReadsRenewals(t *testing.T) {
	prev := diffBases[0]
	for _, c := range []struct {
		old, new string
		same     bool
	}{
		{`"renewTime":"2026-01-01T00:00:01.5Z"`, `"renewTime":"2026-01-01T00:00:07.123Z"`, true},
		{`"renewTime":"2026-01-01T00:00:01.5Z"`, `"renewTime":"2026-01-01T00:00:01Z"`, true},
		{`"nonce":"0123456789abcdef"`, `"nonce":"fedcba9876543210"`, true},
		{`"holder":"n1"`, `"holder":"n2"`, false},
		{`"token":7`, `"token":8`, false},
		{`"renewTime"`, `"renewTimf"`, false},
		{`"renewTime":"2026-01-01T00:00:01.5Z"`, `"renewTime":"2026-01-01T00:00:01.5Z","released":true`, false},
		{`"nonce":"0123456789abcdef"`, `"nonce":"0123456789abcde\u0066"`, false},
	} {
		body := strings.Replace(prev, c.old, c.new, 1)
		if got := sameFieldsAs(prev, body); got != c.same {
			t.Errorf("sameFieldsAs with %s for %s = %v, want %v", c.new, c.old, got, c.same)
		}
	}
	link := diffBases[1]
	if !sameFieldsAs(link, strings.Replace(link, `"holder":"n0"`, `"holder":"n9"`, 1)) {
		t.Errorf("a link's holder, at depth two, is not read from the body before")
	}
}

func BenchmarkSameFieldsAs(b *testing.B) {
	prev := diffBases[0]
	body := strings.Replace(strings.Replace(prev, "01.5Z", "02.987654321Z", 1), "0123456789abcdef", "fedcba9876543210", 1)
	for b.Loop() {
		if !sameFieldsAs(prev, body) {
			b.Fatal("not the same")
		}
	}
}
