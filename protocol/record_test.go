package protocol

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 23, 13, 52, 0, 123456789, time.UTC)
	for _, r := range []Record{
		{Holder: "a", Token: 1, LeaseDurationMS: 15000, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef"},
		{
			Holder: "node-b", Token: 1 << 40, LeaseDurationMS: 1, AcquireTime: at, RenewTime: at.Add(time.Hour),
			Nonce: "ffffffffffffffff", Released: true,
			Previous: &PreviousTerm{Holder: "a", Token: 7, Nonce: "0000000000000000", Ended: EndedExpired},
		},
	} {
		body, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRecord(body)
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", body, got, r)
		}
	}
}

func TestRecordWireFormat(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := Record{Holder: "a", Token: 2, LeaseDurationMS: 1500, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef",
		Previous: &PreviousTerm{Holder: "b", Token: 1, Nonce: "fedcba9876543210", Ended: EndedReleased}}
	body, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"holder":"a","token":2,"leaseDurationMs":1500,"acquireTime":"2025-01-02T03:04:05Z",` +
		`"renewTime":"2025-01-02T03:04:05Z","nonce":"0123456789abcdef",` +
		`"previous":{"holder":"b","token":1,"nonce":"fedcba9876543210","ended":"released"}}`
	if string(body) != want {
		t.Errorf("encoded\n %s\nwant\n %s", body, want)
	}
}

func TestDecodeMalformedRecord(t *testing.T) {
	ok := `"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"`
	tests := []struct {
		name, body string
		jsonErr    bool   // the encoding/json error is in the chain too
		field      string // RecordError.Field
	}{
		{"empty", ``, true, "body"},
		{"not json", `lock held by a`, true, "body"},
		{"truncated", `{"holder":"a","tok`, true, "body"},
		{"wrong type", `{"holder":"a","token":"3","leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, true, "body"},
		{"negative token", `{"holder":"a","token":-3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, true, "body"},
		{"no holder", `{"token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, false, "holder"},
		{"token 0", `{"holder":"a","token":0,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, false, "token"},
		{"no lease", `{"holder":"a","token":3,"nonce":"0123456789abcdef"}`, false, "leaseDurationMs"},
		{"lease too long", `{"holder":"a","token":3,"leaseDurationMs":86400001,"nonce":"0123456789abcdef"}`, false, "leaseDurationMs"},
		// Leases whose nanoseconds overflow a Duration: to a negative one,
		// and around to 448,384 ns.
		{"lease beyond a Duration", `{"holder":"a","token":3,"leaseDurationMs":9223372036854775807,"nonce":"0123456789abcdef"}`, false, "leaseDurationMs"},
		{"lease around a Duration", `{"holder":"a","token":3,"leaseDurationMs":18446744073710,"nonce":"0123456789abcdef"}`, false, "leaseDurationMs"},
		{"short nonce", `{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123"}`, false, "nonce"},
		{"upper-case nonce", `{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789ABCDEF"}`, false, "nonce"},
		{"previous token not lower", `{` + ok + `,"previous":{"holder":"b","token":3,"ended":"expired"}}`, false, "previous.token"},
		{"previous ending unknown", `{` + ok + `,"previous":{"holder":"b","token":2,"ended":"vanished"}}`, false, "previous.ended"},
		{"previous without holder", `{` + ok + `,"previous":{"token":2,"ended":"expired"}}`, false, "previous.holder"},
		{"updates too long", `{` + ok + `,"updates":"` + strings.Repeat("u", MaxUpdatesLen+1) + `"}`, false, "updates"},
		{"previous updates too long", `{` + ok + `,"previous":{"holder":"b","token":2,"ended":"expired","updates":"` + strings.Repeat("u", MaxUpdatesLen+1) + `"}}`, false, "previous.updates"},
		{"too large", `{` + ok + `,"pad":"` + strings.Repeat("p", maxRecordSize) + `"}`, false, "body"},
	}
	for _, tt := range tests {
		_, err := DecodeRecord([]byte(tt.body))
		if !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("%s: error %v does not wrap ErrMalformedRecord", tt.name, err)
			continue
		}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if got := errors.As(err, &syntax) || errors.As(err, &typ); got != tt.jsonErr {
			t.Errorf("%s: json error in chain = %v, want %v (%v)", tt.name, got, tt.jsonErr, err)
		}
		var re *RecordError
		if !errors.As(err, &re) || re.Field != tt.field {
			t.Errorf("%s: %v names field %q, want %q", tt.name, err, fieldOf(re), tt.field)
		}
	}
	if _, err := DecodeRecord([]byte(`{` + ok + `,"future":"field"}`)); err != nil {
		t.Errorf("unknown field rejected: %v", err)
	}
	if _, err := (Record{Holder: "a", Token: 1, LeaseDurationMS: 1}).Encode(); !errors.Is(err, ErrMalformedRecord) {
		t.Errorf("Encode of a record without nonce: %v", err)
	}
}

// A body longer than DecodeRecord accepts is not written: it would let the
// next follower take the lease over as if it held no record.
func TestEncodeRefusesOverlongRecord(t *testing.T) {
	at := time.Date(2025, 3, 23, 13, 52, 0, 0, time.UTC)
	for _, holder := range []string{strings.Repeat("a", maxRecordSize), strings.Repeat("<", maxRecordSize/6+1)} {
		r := Record{Holder: holder, Token: 1, LeaseDurationMS: 15000, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef"}
		if _, err := r.Encode(); !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("Encode of a record with a %d-byte holder: %v, want ErrMalformedRecord", len(holder), err)
		}
		checkEncodeAgrees(t, r)
		body, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeAgrees(t, body)
		if _, err := DecodeRecord(body); !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("DecodeRecord of %d bytes: %v, want ErrMalformedRecord", len(body), err)
		}
	}
}

// Encode writes nothing that would read back otherwise: a string that is
// not UTF-8 (JSON would write U+FFFD for each such byte) or a time whose
// zone offset has seconds (RFC 3339 drops them) is refused with a
// RecordError that names the field.
func TestEncodeRefusesWhatDoesNotReadBack(t *testing.T) {
	at := time.Date(2025, 3, 23, 13, 52, 0, 0, time.UTC)
	lmt := time.Date(1850, 1, 1, 0, 0, 0, 0, time.FixedZone("LMT", 19*60+32))
	valid := func() Record {
		return Record{Holder: "a", Token: 2, LeaseDurationMS: 1500, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef",
			Previous: &PreviousTerm{Holder: "b", Token: 1, Nonce: "fedcba9876543210", Ended: EndedExpired}}
	}
	for _, tt := range []struct {
		field  string
		mutate func(*Record)
	}{
		{"holder", func(r *Record) { r.Holder = "node-\xff" }},
		{"updates", func(r *Record) { r.Updates = strings.Repeat("\xfe", 300) }},
		{"updates", func(r *Record) { r.Updates = "s3://logs/" + "é"[:1] }},
		{"previous.holder", func(r *Record) { r.Previous.Holder = "\x80" }},
		{"previous.nonce", func(r *Record) { r.Previous.Nonce = "\xc0\xaf" }},
		{"previous.updates", func(r *Record) { r.Previous.Updates = "\xff" }},
		{"acquireTime", func(r *Record) { r.AcquireTime = lmt }},
		{"renewTime", func(r *Record) { r.RenewTime = lmt }},
		{"watermark", func(r *Record) { r.Watermark = lmt }},
		{"previous.watermark", func(r *Record) { r.Previous.Watermark = lmt }},
	} {
		r := valid()
		tt.mutate(&r)
		body, err := r.Encode()
		var re *RecordError
		if !errors.As(err, &re) || re.Field != tt.field || !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("Encode with a bad %s: %s, %v; want a RecordError on %s", tt.field, body, err, tt.field)
		}
		checkEncodeAgrees(t, r)
	}
	// The same instant in a zone whose offset RFC 3339 holds reads back.
	r := valid()
	r.AcquireTime, r.Watermark = lmt.UTC(), at.In(time.FixedZone("", 5*3600+30*60))
	if _, err := r.Encode(); err != nil {
		t.Errorf("Encode with times in UTC and +05:30: %v", err)
	}
}

// identityOfLen generates strings of about n bytes that are hard to encode:
// repetitions of a few pieces, many of which JSON escapes into 6 bytes.
func identityOfLen(n *rapid.Generator[int]) *rapid.Generator[string] {
	pieces := []string{"a", "-", "\x00", "\x1f", "\x7f", "<", ">", "&", `"`, `\`, "\xff", "é", "\u2028", "😀"}
	return rapid.Custom(func(t *rapid.T) string {
		size := n.Draw(t, "size")
		pattern := rapid.SliceOfN(rapid.SampledFrom(pieces), 1, 6).Draw(t, "pattern")
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(pattern[b.Len()%len(pattern)])
		}
		return b.String()[:size]
	})
}

// Any identity NewElector accepts makes records that fit, with room to
// spare, whatever the previous holder, token or times, and that decode to
// exactly what they say; an identity that is not UTF-8, which JSON cannot
// carry, or is too long, is refused as a ConfigError on Identity.
func TestIdentityRecordsFit(t *testing.T) {
	lengths := rapid.OneOf(rapid.IntRange(1, MaxIdentityLen+64), rapid.IntRange(MaxIdentityLen-8, MaxIdentityLen+8))
	latest := time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60)))
	rapid.Check(t, func(t *rapid.T) {
		cfg := validConfig()
		cfg.Identity = identityOfLen(lengths).Draw(t, "identity")
		e, err := NewElector(cfg)
		if len(cfg.Identity) > MaxIdentityLen || !utf8.ValidString(cfg.Identity) {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != "Identity" {
				t.Fatalf("NewElector with identity %q: %v, want a ConfigError on Identity", cfg.Identity, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		// The record replaced: decoded, so valid UTF-8; its holder may be
		// longer than the limit (an older version, or someone else).
		prev := Record{
			Holder: string([]rune(identityOfLen(lengths).Draw(t, "previous holder"))),
			Token:  rapid.Uint64Range(1, math.MaxUint64-1).Draw(t, "previous token"),
			Nonce:  "fedcba9876543210",
		}
		r := Record{
			Holder:          e.cfg.Identity,
			Token:           rapid.Uint64Range(prev.Token+1, math.MaxUint64).Draw(t, "token"),
			LeaseDurationMS: MaxLeaseDuration.Milliseconds(),
			AcquireTime:     latest,
			RenewTime:       latest,
			Nonce:           "0123456789abcdef",
			Released:        true,
			Previous:        endOf(prev, EndedReleased),
		}
		body, err := r.Encode()
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if len(body) > 13<<10 {
			t.Fatalf("record of %d bytes, more than 13 KiB", len(body))
		}
		got, err := DecodeRecord(body)
		if err != nil {
			t.Fatalf("DecodeRecord: %v", err)
		}
		want := r
		if got.Holder != want.Holder || got.Token != want.Token || got.LeaseDurationMS != want.LeaseDurationMS ||
			got.Nonce != want.Nonce || got.Released != want.Released || !reflect.DeepEqual(got.Previous, want.Previous) ||
			!got.AcquireTime.Equal(want.AcquireTime) || !got.RenewTime.Equal(want.RenewTime) {
			t.Fatalf("round trip of\n %+v\ngave\n %+v", want, got)
		}
	})
}

// The audit link names at most MaxIdentityLen bytes of the previous holder,
// cut at a character boundary.
func TestEndOfClipsHolder(t *testing.T) {
	for _, tt := range []struct{ holder, want string }{
		{strings.Repeat("a", MaxIdentityLen), strings.Repeat("a", MaxIdentityLen)},
		{strings.Repeat("a", MaxIdentityLen+1), strings.Repeat("a", MaxIdentityLen)},
		{"a" + strings.Repeat("€", MaxIdentityLen), "a" + strings.Repeat("€", (MaxIdentityLen-1)/3)},
		{strings.Repeat("€", MaxIdentityLen), strings.Repeat("€", MaxIdentityLen/3)},
	} {
		if got := endOf(Record{Holder: tt.holder, Token: 1}, EndedExpired).Holder; got != tt.want {
			t.Errorf("endOf of a %d-byte holder names %d bytes %q..., want %d", len(tt.holder), len(got), got[:min(len(got), 8)], len(tt.want))
		}
	}
}

func fieldOf(re *RecordError) string {
	if re == nil {
		return "(no RecordError)"
	}
	return re.Field
}
