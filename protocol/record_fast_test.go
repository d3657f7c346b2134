package protocol

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// The hand-written codec of record_fast.go must be indistinguishable from
// encoding/json: these tests hold Encode to encodeRecordJSON and DecodeRecord
// to decodeRecordJSON, the encoding/json versions.

type fatalfer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkEncodeAgrees asserts that r.Encode() and encodeRecordJSON(r) give the
// same bytes or the same error, and returns the bytes.
func checkEncodeAgrees(t fatalfer, r Record) []byte {
	t.Helper()
	got, err := r.Encode()
	want, wantErr := encodeRecordJSON(r)
	if !reflect.DeepEqual(err, wantErr) {
		t.Fatalf("Encode(%#v) error:\n got %v\nwant %v", r, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode(%#v):\n got %s\nwant %s", r, got, want)
	}
	return got
}

// checkDecodeAgrees asserts that DecodeRecord(body) and
// decodeRecordJSON(body) give the same record, down to time zones, and the
// same error.
func checkDecodeAgrees(t fatalfer, body []byte) (Record, error) {
	t.Helper()
	in := string(body)
	got, err := DecodeRecord(body)
	want, wantErr := decodeRecordJSON(body)
	if string(body) != in {
		t.Fatalf("DecodeRecord modified its input %q to %q", in, body)
	}
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("DecodeRecord(%q) error:\n got %v\nwant %v", body, err, wantErr)
	}
	if !reflect.DeepEqual(err, wantErr) {
		t.Fatalf("DecodeRecord(%q) error:\n got %#v\nwant %#v", body, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeRecord(%q):\n got %#v\nwant %#v", body, got, want)
	}
	// reflect.DeepEqual follows *time.Location; json would compare zones
	// by what they say, so check that too.
	for _, tt := range [][2]time.Time{{got.AcquireTime, want.AcquireTime}, {got.RenewTime, want.RenewTime}} {
		if tt[0] != tt[1] && (!tt[0].Equal(tt[1]) || tt[0].Location().String() != tt[1].Location().String()) {
			t.Fatalf("DecodeRecord(%q) time %v, want %v", body, tt[0], tt[1])
		}
	}
	return got, err
}

// Generators.

const hexDigits = "0123456789abcdef"

// plainString generates strings that need no escaping.
func plainString(minLen, maxLen int) *rapid.Generator[string] {
	return rapid.StringOfN(rapid.SampledFrom([]rune("abcz-_.:/09 ~AZ!#$%'()*+,;=?@[]^`{|}")), minLen, maxLen, -1)
}

// oddString generates strings that json.Marshal escapes or rewrites.
func oddString() *rapid.Generator[string] {
	special := []rune{'"', '\\', '<', '>', '&', '\n', '\t', '\r', 0, 0x1f, 0x7f, 0x80, 'é', '€',
		0x2028, 0x2029, utf8.RuneError, 0x10ffff, '😀', 'ſ', 'K'}
	return rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.OneOf(rapid.SampledFrom(special), rapid.SampledFrom([]rune("ab-")))),
		// Not UTF-8.
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
}

func anyString() *rapid.Generator[string] {
	return rapid.OneOf(plainString(0, 40), plainString(0, 3), oddString())
}

// usually picks from the first generator, sometimes from any.
func usually[V any](common *rapid.Generator[V], rare ...*rapid.Generator[V]) *rapid.Generator[V] {
	return rapid.Custom(func(t *rapid.T) V {
		if rapid.IntRange(0, 3).Draw(t, "rare") > 0 {
			return common.Draw(t, "common")
		}
		return rapid.OneOf(append(rare, common)...).Draw(t, "any")
	})
}

func hexNonce() *rapid.Generator[string] {
	return rapid.StringOfN(rapid.SampledFrom([]rune(hexDigits)), NonceLen, NonceLen, -1)
}

func nonce() *rapid.Generator[string] {
	return usually(hexNonce(), anyString())
}

func location() *rapid.Generator[*time.Location] {
	locs := []*time.Location{time.UTC, time.Local, time.FixedZone("", 0), time.FixedZone("UTC", 0)}
	for _, name := range []string{"America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Dublin"} {
		if l, err := time.LoadLocation(name); err == nil {
			locs = append(locs, l)
		}
	}
	return rapid.OneOf(
		rapid.SampledFrom(locs),
		rapid.Map(rapid.IntRange(-14, 14), func(h int) *time.Location { return time.FixedZone("", h*3600) }),
		rapid.Map(rapid.IntRange(-15*60, 15*60), func(m int) *time.Location { return time.FixedZone("", m*60) }),
		// Seconds in the offset, and offsets of a day or more, which RFC 3339
		// cannot say.
		rapid.Map(rapid.IntRange(-30*3600, 30*3600), func(s int) *time.Location { return time.FixedZone("Odd", s) }),
	)
}

func timestamp() *rapid.Generator[time.Time] {
	return rapid.Custom(func(t *rapid.T) time.Time {
		var sec int64
		switch rapid.IntRange(0, 3).Draw(t, "era") {
		case 0: // now-ish
			sec = rapid.Int64Range(1.7e9, 1.9e9).Draw(t, "sec")
		case 1: // years 0 to 9999
			sec = rapid.Int64Range(-62167219200, 253402300799).Draw(t, "sec")
		case 2: // around the edges of years 0 and 9999, and beyond
			sec = rapid.SampledFrom([]int64{-62167219200, 253402300799}).Draw(t, "edge") +
				rapid.Int64Range(-2*86400, 2*86400).Draw(t, "off")
		default:
			sec = rapid.Int64Range(-1e12, 1e12).Draw(t, "sec")
		}
		nsec := rapid.OneOf(
			rapid.Just(int64(0)),
			rapid.Map(rapid.Int64Range(0, 999), func(ms int64) int64 { return ms * 1e6 }),
			rapid.Map(rapid.Int64Range(0, 999999), func(us int64) int64 { return us * 1e3 }),
			rapid.Int64Range(0, 999999999),
		).Draw(t, "nsec")
		at := time.Unix(sec, nsec).In(location().Draw(t, "loc"))
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			return time.Time{}
		case 1: // with a monotonic reading
			return time.Now().Add(time.Duration(rapid.Int64Range(-1e15, 1e15).Draw(t, "since")))
		}
		return at
	})
}

// record generates records, mostly valid, with odd strings and times.
func record() *rapid.Generator[Record] {
	return rapid.Custom(func(t *rapid.T) Record {
		r := Record{
			Holder: usually(plainString(1, 40), anyString()).Draw(t, "holder"),
			Token: rapid.OneOf(rapid.Uint64Range(1, 100), rapid.Uint64(),
				rapid.SampledFrom([]uint64{0, 1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64})).Draw(t, "token"),
			LeaseDurationMS: usually(rapid.Int64Range(1, MaxLeaseDuration.Milliseconds()), rapid.Int64(),
				rapid.SampledFrom([]int64{0, -1, math.MinInt64, math.MaxInt64})).Draw(t, "lease"),
			AcquireTime: timestamp().Draw(t, "acquire"),
			RenewTime:   timestamp().Draw(t, "renew"),
			Nonce:       nonce().Draw(t, "nonce"),
			Released:    rapid.Bool().Draw(t, "released"),
		}
		if rapid.Bool().Draw(t, "hasWatermark") {
			r.Watermark = timestamp().Draw(t, "watermark")
			r.Updates = rapid.OneOf(rapid.Just(""), plainString(1, 40), anyString()).Draw(t, "updates")
		}
		if rapid.Bool().Draw(t, "hasPrevious") {
			r.Previous = &PreviousTerm{
				Holder: usually(plainString(1, 40), anyString()).Draw(t, "prevHolder"),
				Token:  usually(rapid.Uint64Range(0, r.Token-min(r.Token, 1)), rapid.Uint64()).Draw(t, "prevToken"),
				Nonce:  nonce().Draw(t, "prevNonce"),
				Ended: usually(rapid.SampledFrom([]Ending{EndedReleased, EndedExpired}),
					rapid.Map(anyString(), func(s string) Ending { return Ending(s) })).Draw(t, "ended"),
			}
			if rapid.Bool().Draw(t, "prevHasWatermark") {
				r.Previous.Watermark = timestamp().Draw(t, "prevWatermark")
				r.Previous.Updates = rapid.OneOf(rapid.Just(""), plainString(1, 40), anyString()).Draw(t, "prevUpdates")
			}
		}
		return r
	})
}

// plain reports whether json.Marshal writes s as it is, between quotes.
func plain(s string) bool {
	q, _ := json.Marshal(s)
	return string(q) == `"`+s+`"`
}

// plainRecord reports whether the strings of r are plain and its times
// have an RFC 3339 form: what the fast paths must handle without falling
// back.
func plainRecord(r Record) bool {
	ok := plain(r.Holder) && plain(r.Nonce) && plain(r.Updates)
	times := []time.Time{r.AcquireTime, r.RenewTime, r.Watermark}
	if p := r.Previous; p != nil {
		ok = ok && plain(p.Holder) && plain(p.Nonce) && plain(string(p.Ended)) && plain(p.Updates)
		times = append(times, p.Watermark)
	}
	for _, at := range times {
		_, err := at.MarshalJSON()
		ok = ok && err == nil
	}
	return ok
}

// TestRecordCodecMatchesJSON: Encode and DecodeRecord give what
// encoding/json gives, values and errors, on generated records; a record
// Encode writes reads back exactly (times as instants), and one it refuses
// breaks a rule of the format, has a time with no RFC 3339 form, or one
// whose zone offset has seconds, which RFC 3339 drops. It judges values
// only; which path gave them is TestRecordCodecFastPaths's concern.
func TestRecordCodecMatchesJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := record().Draw(t, "record")
		body := checkEncodeAgrees(t, r)
		if body == nil {
			if _, err := r.Encode(); r.check() == nil && !unwritableTime(r) {
				t.Fatalf("Encode refused %#v: %v", r, err)
			}
			return
		}
		got, err := checkDecodeAgrees(t, body)
		if err != nil {
			t.Fatalf("DecodeRecord(%s) of an encoded record: %v", body, err)
		}
		if got.Holder != r.Holder || got.Token != r.Token || got.LeaseDurationMS != r.LeaseDurationMS ||
			got.Nonce != r.Nonce || got.Released != r.Released || !samePrevious(got.Previous, r.Previous) ||
			got.Updates != r.Updates || !got.Watermark.Equal(r.Watermark) ||
			!got.AcquireTime.Equal(r.AcquireTime) || !got.RenewTime.Equal(r.RenewTime) {
			t.Fatalf("round trip of %#v gave %#v", r, got)
		}
	})
}

// samePrevious reports whether the links are equal, their watermarks as
// instants.
func samePrevious(got, want *PreviousTerm) bool {
	if got == nil || want == nil {
		return got == want
	}
	g, w := *got, *want
	g.Watermark, w.Watermark = time.Time{}, time.Time{}
	return g == w && got.Watermark.Equal(want.Watermark)
}

// unwritableTime reports whether a time of r has no RFC 3339 form, or one
// that reads back as another instant (a zone offset with seconds).
func unwritableTime(r Record) bool {
	times := []time.Time{r.AcquireTime, r.RenewTime, r.Watermark}
	if r.Previous != nil {
		times = append(times, r.Previous.Watermark)
	}
	for _, at := range times {
		if _, off := at.Zone(); off%60 != 0 && !at.IsZero() {
			return true
		}
		if _, err := at.MarshalJSON(); err != nil {
			return true
		}
	}
	return false
}

// Bodies near the shape Encode writes. Half are tame: JSON whitespace, the
// record's own keys in any order, each at most once, with well-formed values,
// mostly what the fast parser takes. The others are wild, with what
// encoding/json accepts or rejects around that shape: unknown, repeated and
// case-folded keys, escapes, null, odd numbers and times, other types, other
// whitespace, bad syntax.
func nearRecordBody() *rapid.Generator[string] {
	jsonSpace := rapid.OneOf(rapid.Just(""), rapid.Just(""), rapid.StringOf(rapid.SampledFrom([]rune(" \t\n\r"))))
	wildSpace := usually(jsonSpace, rapid.SampledFrom([]string{"\v", "\f", "\u00a0", "\x00", "\u2028"}))
	tameStr := rapid.OneOf(
		rapid.Map(plainString(0, 20), strconv.Quote),
		rapid.Map(hexNonce(), strconv.Quote),
		rapid.Map(rapid.StringOf(rapid.SampledFrom([]rune("aé€😀\u2028\ufffd\u007f"))), func(s string) string { return `"` + s + `"` }),
	)
	wildStr := rapid.OneOf(
		tameStr,
		rapid.Map(oddString(), func(s string) string { q, _ := json.Marshal(s); return string(q) }),
		rapid.Map(oddString(), func(s string) string { return `"` + s + `"` }), // raw, maybe invalid
		rapid.SampledFrom([]string{`"released"`, `"expired"`, `"rel\u0065ased"`, `"\/"`, `"a\"b"`, `""`, `"\u00e9"`}),
	)
	tameNum := rapid.OneOf(
		rapid.Map(rapid.Uint64(), func(n uint64) string { return strconv.FormatUint(n, 10) }),
		rapid.Map(rapid.Uint64Range(0, 100000), func(n uint64) string { return strconv.FormatUint(n, 10) }),
		rapid.SampledFrom([]string{"0", "9223372036854775807", "18446744073709551615", "86400000", "86400001"}),
	)
	wildNum := rapid.OneOf(
		tameNum,
		rapid.Map(rapid.Int64(), func(n int64) string { return strconv.FormatInt(n, 10) }),
		rapid.SampledFrom([]string{"-0", "00", "01", "1.0", "1e3", "1E3", "1.5", "-1", "2.", ".5", "+1", "0x10", "1_0",
			"9223372036854775808", "18446744073709551616", "99999999999999999999", "1e400", "0.0", "0e0"}),
	)
	tameTime := rapid.OneOf(
		rapid.Map(timestamp(), func(t time.Time) string { b, _ := t.MarshalJSON(); return string(b) }),
		rapid.Map(timestamp(), func(t time.Time) string { return strconv.Quote(t.Format(time.RFC3339)) }),
	)
	wildTime := rapid.OneOf(
		tameTime,
		rapid.SampledFrom([]string{`"2025-01-02T03:04:05Z"`, `"2025-01-02T03:04:05.000Z"`, `"2025-01-02T03:04:05+05:30"`,
			`"2025-01-02T03:04:05-00:00"`, `"2025-01-02T03:04:05.1234567891Z"`, `"2025-01-02T03:04:05,5Z"`,
			`"2025-01-02T3:04:05Z"`, `"2025-13-02T03:04:05Z"`, `"2025-02-29T03:04:05Z"`, `"2025-01-02T03:04:05+24:00"`,
			`"2025-01-02T03:04:05+01:60"`, `"2025-01-02t03:04:05z"`, `"2025-01-02 03:04:05Z"`, `"2025-01-02T03:04:05"`,
			`"0000-01-01T00:00:00Z"`, `"9999-12-31T23:59:59.999999999Z"`, `"10000-01-01T00:00:00Z"`, `"2025-01-02T03:04:05.Z"`,
			`"2025-01-02T03:04:05\u005a"`, `"2025-01-02T03:04:05Z\n"`, `""`, `"null"`, `"2025-01-02T03:04:05.123+05:30:00"`}),
	)
	wildScalar := rapid.OneOf(wildStr, wildNum, wildTime,
		rapid.SampledFrom([]string{"true", "false", "null", "tru", "True", "nul", "nulll", "[]", "[1]", "{}", `{"a":1}`}))
	wildKey := func(names []string) *rapid.Generator[string] {
		return rapid.OneOf(
			rapid.Map(rapid.SampledFrom(names), strconv.Quote),
			rapid.Map(rapid.SampledFrom(names), func(k string) string { return strconv.Quote(strings.ToUpper(k[:1]) + k[1:]) }),
			rapid.SampledFrom([]string{`"HOLDER"`, `"to\u212aen"`, `"toKen"`, `"relea\u017fed"`, `"previou\u017f"`,
				`"hold\u0065r"`, `"nonce "`, `"future"`, `""`, `"Ended"`, `"ended"`, `"leaseDurationMS"`,
				`"x-padding"`, `"wAtErMaRk"`, `"UPDATES"`, `"previous"`, `"tökén"`, "\"a\tb\"", `"\\"`}),
		)
	}
	return rapid.Custom(func(t *rapid.T) string {
		wild := rapid.Bool().Draw(t, "wild")
		space, str, num, tm := jsonSpace, tameStr, tameNum, tameTime
		if wild {
			space, str, num, tm = wildSpace, wildStr, wildNum, wildTime
		}
		odd := func() bool { return wild && rapid.IntRange(0, 7).Draw(t, "odd") == 0 }
		var object func(label string, names []string, value func(name string) string) string
		object = func(label string, names []string, value func(name string) string) string {
			w := func() string { return space.Draw(t, label+"space") }
			var b strings.Builder
			b.WriteString(w() + "{" + w())
			var keys []string
			if odd() {
				// Any keys, maybe repeated.
				n := rapid.IntRange(0, 5).Draw(t, label+"n")
				for range n {
					keys = append(keys, wildKey(names).Draw(t, label+"key"))
				}
			} else {
				// Known keys, some left out, in any order.
				perm := rapid.Permutation(names).Draw(t, label+"order")
				for _, name := range perm[:rapid.IntRange(0, len(perm)).Draw(t, label+"n")] {
					keys = append(keys, strconv.Quote(name))
				}
			}
			for i, k := range keys {
				if i > 0 {
					b.WriteString(w() + "," + w())
				}
				name, _ := strconv.Unquote(k)
				b.WriteString(k + w() + ":" + w() + value(name))
			}
			b.WriteString(w() + "}")
			if odd() {
				// No brace, a trailing comma, two braces...
				out := b.String()
				return out[:len(out)-1] + rapid.SampledFrom([]string{"", ",}", "}}", "]"}).Draw(t, label+"close")
			}
			return b.String()
		}
		prevValue := func(name string) string {
			if odd() {
				return wildScalar.Draw(t, "prevScalar")
			}
			switch name {
			case "token":
				return num.Draw(t, "prevToken")
			case "ended":
				return rapid.SampledFrom([]string{`"released"`, `"expired"`, `"vanished"`, `""`}).Draw(t, "ended")
			case "watermark":
				return tm.Draw(t, "prevWatermark")
			}
			return str.Draw(t, "prevStr")
		}
		value := func(name string) string {
			if odd() {
				return wildScalar.Draw(t, "scalar")
			}
			switch name {
			case "token", "leaseDurationMs":
				return num.Draw(t, name)
			case "acquireTime", "renewTime", "watermark":
				return tm.Draw(t, name)
			case "released":
				return rapid.SampledFrom([]string{"true", "false"}).Draw(t, name)
			case "previous":
				return object("prev", []string{"holder", "token", "nonce", "ended", "watermark", "updates"}, prevValue)
			}
			return str.Draw(t, name)
		}
		body := object("", []string{"holder", "token", "leaseDurationMs", "acquireTime", "renewTime", "nonce", "released", "previous", "watermark", "updates"}, value)
		if odd() {
			switch rapid.IntRange(0, 2).Draw(t, "end") {
			case 0:
				body = body[:rapid.IntRange(0, len(body)).Draw(t, "cut")]
			case 1:
				body += rapid.SampledFrom([]string{"x", "{}", " 1", "\x00", "}"}).Draw(t, "trailer")
			case 2:
				body = rapid.SampledFrom([]string{"null", "[]", "1", `"x"`, "true", ""}).Draw(t, "other")
			}
		}
		return body + space.Draw(t, "tail")
	})
}

func TestDecodeRecordMatchesJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkDecodeAgrees(t, []byte(nearRecordBody().Draw(t, "body")))
	})
}

// TestRecordCodecFastPaths guards the speed: a valid record whose strings
// are plain and whose times have an RFC 3339 form is encoded without
// falling back to encoding/json, and its body decoded without falling back
// either. A speed guard judges no value (TestRecordCodecMatchesJSON does):
// a mutant that fails only the speed guards is a slower elector, not a
// different one (mutation.KindSpeed).
func TestRecordCodecFastPaths(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := record().Draw(t, "record")
		if r.check() != nil || !plainRecord(r) {
			return
		}
		body, ok := r.appendJSON(nil)
		if !ok {
			t.Fatalf("appendJSON fell back on %#v", r)
		}
		if _, ok := decodeRecordFast(body); !ok {
			t.Fatalf("decodeRecordFast fell back on %s", body)
		}
	})
}

// fastBodies are bodies in Encode's shape, or in shapes the fast parser
// takes, which must not fall back to encoding/json.
var fastBodies = []string{
	`{"holder":"a","token":2,"leaseDurationMs":1500,"acquireTime":"2025-01-02T03:04:05Z",` +
		`"renewTime":"2025-01-02T03:04:05.123456789+05:30","nonce":"0123456789abcdef","released":true,` +
		`"previous":{"holder":"b","token":1,"nonce":"fedcba9876543210","ended":"released"}}`,
	`{"holder":"a","token":3,"leaseDurationMs":1500,"acquireTime":"2025-01-02T03:04:05Z",` +
		`"renewTime":"2025-01-02T03:04:06Z","nonce":"0123456789abcdef","watermark":"2025-01-02T03:04:08.5Z","updates":"s3://logs/a/",` +
		`"previous":{"holder":"b","token":2,"nonce":"fedcba9876543210","ended":"expired","watermark":"2025-01-02T03:03:00Z","updates":"s3://logs/b/"}}`,
	" {\n\t\"nonce\" : \"0123456789abcdef\",\r\n \"previous\":{ \"ended\":\"expired\",\"token\":0 },\"released\":false } \n",
	`{}`,
	`{"holder":"été 😀","token":18446744073709551615,"leaseDurationMs":9223372036854775807}`,
	`{"holder":"a\"b\\c\/\b\f\n\r\t\u003c\u0026\u003e\u00E9\u20ac\u0000é","nonce":"\u0030123456789abcdef",` +
		`"updates":"log/\"quoted\" \\ é \u003c\u0026\u003e ","previous":{"ended":"\u0065xpired","updates":"\\"}}`,
	`{"holder":"a","x-padding":"xxxxxxxxxxxxxxxxxxxxxxxx","":"","previous":{"previous":"\"","future":"é"}}`,
}

// TestDecodeRecordFastPath guards the speed: fastBodies do not fall back
// to encoding/json. A speed guard, like TestRecordCodecFastPaths.
func TestDecodeRecordFastPath(t *testing.T) {
	for _, body := range fastBodies {
		if _, ok := decodeRecordFast([]byte(body)); !ok {
			t.Errorf("decodeRecordFast fell back on %s", body)
		}
	}
}

// TestDecodeFastBodiesMatchJSON: DecodeRecord reads fastBodies as
// encoding/json does.
func TestDecodeFastBodiesMatchJSON(t *testing.T) {
	for _, body := range fastBodies {
		checkDecodeAgrees(t, []byte(body))
	}
}

// fieldValueLiterals are values to try in each field of a canonical body.
var fieldValueLiterals = []string{
	// Numbers.
	"0", "-0", "00", "01", "1", "7", "1.0", "1e3", "1E3", "1.5", "-1", "2.", ".5", "+1", "0x10", "1_0", "0.0", "0e0",
	"1000", "86400000", "86400001", "1844674407370955161", "1844674407370955162",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551609", "18446744073709551615", "18446744073709551616", "18446744073709551619",
	"18446744073709551620", "99999999999999999999", "1e400",
	// Other literals and types.
	"true", "false", "null", "tru", "True", "nul", "nulll", "truee", "[]", "[1]", "{}", `{"holder":"x"}`, `{"a":{}}`,
	// Strings.
	`""`, `"a"`, `"0123456789abcdef"`, `"released"`, `"expired"`, `"rel\u0065ased"`, `"\/"`, `"a\"b"`, `"\u00e9"`,
	`"é€😀"`, "\"\u2028\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"a\x7f\"", "\"a\x1f\"", "\"a\tb\"", `"<&>"`, `"a`,
	// Times.
	`"2025-01-02T03:04:05Z"`, `"2025-01-02T03:04:05.000Z"`, `"2025-01-02T03:04:05+05:30"`, `"2025-01-02T03:04:05-00:00"`,
	`"2025-01-02T03:04:05+00:00"`, `"2025-01-02T03:04:05.1234567891Z"`, `"2025-01-02T03:04:05,5Z"`, `"2025-01-02T3:04:05Z"`,
	`"2025-13-02T03:04:05Z"`, `"2025-02-29T03:04:05Z"`, `"2024-02-29T03:04:05Z"`, `"2025-01-02T03:04:05+24:00"`,
	`"2025-01-02T03:04:05+01:60"`, `"2025-01-02t03:04:05z"`, `"2025-01-02 03:04:05Z"`, `"2025-01-02T03:04:05"`,
	`"0000-01-01T00:00:00Z"`, `"9999-12-31T23:59:59.999999999Z"`, `"10000-01-01T00:00:00Z"`, `"2025-01-02T03:04:05.Z"`,
	`"2025-01-02T03:04:05\u005a"`, `"2025-01-02T03:04:05Z\n"`, `"null"`, `"2025-01-02T03:04:05.123+05:30:00"`,
}

// TestDecodeRecordFieldValues tries every literal of fieldValueLiterals in
// every field of a canonical body, and some whitespace around it.
func TestDecodeRecordFieldValues(t *testing.T) {
	body := fuzzSeeds[0]
	var fields []int // where each value starts
	for i := 0; i < len(body); i++ {
		if body[i] == ':' && body[i-1] == '"' && body[i+1] != '{' {
			fields = append(fields, i+1)
		}
	}
	if len(fields) != 10 {
		t.Fatalf("found %d fields in %s", len(fields), body)
	}
	for _, at := range fields {
		end := at + strings.IndexAny(body[at+1:], ",}") + 1
		for _, v := range fieldValueLiterals {
			for _, ws := range []string{"", " \t\r\n", "\v"} {
				checkDecodeAgrees(t, []byte(body[:at]+ws+v+ws+body[end:]))
			}
		}
	}
}

var fuzzSeeds = []string{
	`{"holder":"a","token":2,"leaseDurationMs":1500,"acquireTime":"2025-01-02T03:04:05Z",` +
		`"renewTime":"2025-01-02T03:04:05Z","nonce":"0123456789abcdef",` +
		`"previous":{"holder":"b","token":1,"nonce":"fedcba9876543210","ended":"released"}}`,
	`{"holder":"node-b","token":1099511627776,"leaseDurationMs":1,"acquireTime":"2025-03-23T13:52:00.123456789Z",` +
		`"renewTime":"2025-03-23T14:52:00.123456789-07:00","nonce":"ffffffffffffffff","released":true}`,
	" { \"nonce\" : \"0123456789abcdef\" , \"holder\" : \"a\" , \"token\" : 3 , \"leaseDurationMs\" : 1000 }\n",
	`{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef","future":"field"}`,
	`{"holder":"a","holder":"b","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`,
	`{"Holder":"a","TOKEN":3,"leaseDurationMS":1000,"nonce":"0123456789abcdef","to\u212aen":4}`,
	`{"holder":"\u0061\n<>&","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`,
	`{"holder":"a","token":3.0,"leaseDurationMs":1e3,"nonce":"0123456789abcdef"}`,
	`{"holder":"a","token":-3,"leaseDurationMs":-1000,"nonce":"0123456789abcdef"}`,
	`{"holder":"a","token":18446744073709551616,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`,
	`{"holder":"a","token":3,"leaseDurationMs":9223372036854775808,"nonce":"0123456789abcdef"}`,
	`{"holder":"a","token":03,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`,
	`{"holder":null,"token":null,"acquireTime":null,"previous":null,"released":null}`,
	`{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef","previous":{"holder":"b","token":2,"ended":"expired"},"previous":{"nonce":"x"}}`,
	`{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef","previous":{"holder":"b","token":2,"ended":"expired","extra":[1,{}]}}`,
	`{"holder":"a","acquireTime":"2025-01-02T03:04:05.1234567891+05:30","renewTime":"2025-02-30T03:04:05Z"}`,
	`{"holder":"a","acquireTime":"2025-01-02T03:04:05,5Z","renewTime":"2025-01-02T03:04:05+24:00"}`,
	`{"holder":"a","acquireTime":"2025-01-02T03:04:05\u005a"}`,
	`{"holder":"a","acquireTime":20250102,"renewTime":{}}`,
	`{"holder":"a","released":"true"}`,
	`{"holder":"a"} x`,
	`{"holder":"a",}`,
	`{"holder":"a"`,
	"{\"holder\":\"\xff\xfe\"}",
	"{\"holder\":\"a\x01\"}",
	`null`,
	`[]`,
	``,
	`lock held by a`,
}

func FuzzDecodeRecord(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecodeAgrees(t, body)
	})
}

func FuzzEncodeRecord(f *testing.F) {
	f.Add("a", uint64(2), int64(1500), int64(1735787045), int64(0), 0, "0123456789abcdef", false,
		true, "b", uint64(1), "fedcba9876543210", "released")
	f.Add("<é\n>", uint64(math.MaxUint64), int64(-1), int64(-62167219201), int64(999999999), 86400, "x", true,
		false, "", uint64(0), "", "")
	f.Fuzz(func(t *testing.T, holder string, token uint64, lease, sec, nsec int64, offset int, nonce string, released bool,
		hasPrevious bool, prevHolder string, prevToken uint64, prevNonce, ended string) {
		r := Record{
			Holder: holder, Token: token, LeaseDurationMS: lease, Nonce: nonce, Released: released,
			AcquireTime: time.Unix(sec, nsec).In(time.FixedZone("", offset)),
			RenewTime:   time.Unix(sec, nsec).UTC(),
		}
		if hasPrevious {
			r.Previous = &PreviousTerm{Holder: prevHolder, Token: prevToken, Nonce: prevNonce, Ended: Ending(ended)}
		}
		if body := checkEncodeAgrees(t, r); body != nil {
			checkDecodeAgrees(t, body)
		}
	})
}

// Benchmarks: json is the encoding/json path the fast one replaced.

func benchRecord() Record {
	at := time.Date(2025, 3, 23, 13, 52, 0, 123456789, time.UTC)
	return Record{
		Holder: "sim-node-3", Token: 1234567, LeaseDurationMS: 15000,
		AcquireTime: at, RenewTime: at.Add(7*time.Second + 654321*time.Nanosecond),
		Nonce:    "0123456789abcdef",
		Previous: &PreviousTerm{Holder: "sim-node-1", Token: 1234566, Nonce: "fedcba9876543210", Ended: EndedExpired},
	}
}

func BenchmarkDecodeRecord(b *testing.B) {
	body, err := benchRecord().Encode()
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name   string
		decode func([]byte) (Record, error)
	}{{"json", decodeRecordJSON}, {"fast", DecodeRecord}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bm.decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeRecord(b *testing.B) {
	r := benchRecord()
	for _, bm := range []struct {
		name   string
		encode func(Record) ([]byte, error)
	}{{"json", encodeRecordJSON}, {"fast", Record.Encode}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bm.encode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeRecordCutInEscape: a body that ends inside a \u escape, with
// nothing in memory after it, is refused as encoding/json refuses it: no
// read past its end.
func TestDecodeRecordCutInEscape(t *testing.T) {
	for _, s := range []string{`{"holder":"\u`, `{"holder":"\u1`, `{"holder":"\u12`, `{"holder":"\u123`, `{"holder":"a\u00e`} {
		b := []byte(s)
		b = b[:len(b):len(b)] // no capacity beyond the body
		if _, err := DecodeRecord(b); err == nil {
			t.Errorf("DecodeRecord(%q) accepted a body cut inside an escape", s)
		}
	}
}

// TestDecodeRecordBadEscapeDigit: a \u escape with a digit that is not
// hexadecimal is refused, as encoding/json refuses it, in every position.
func TestDecodeRecordBadEscapeDigit(t *testing.T) {
	for _, esc := range []string{`\uG000`, `\u0g00`, `\u00:0`, `\u000/`, `\u00 1`} {
		body := `{"holder":"a` + esc + `","token":1,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`
		if _, err := DecodeRecord([]byte(body)); err == nil {
			t.Errorf("DecodeRecord(%s) accepted an escape with a digit that is not hexadecimal", body)
		}
	}
}
