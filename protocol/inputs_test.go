package protocol

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// Every value the elector is given and writes into a record reads back
// exactly as given, or is refused where it is given: these tests draw the
// public inputs (Config's names and durations, a watermark's time and
// Updates, the wall clock) with arbitrary bytes and sizes up to the limits
// and beyond, and follow what is accepted through the records the elector
// writes and the next holder reads.

// anyText draws text of up to a little more than limit bytes: arbitrary
// bytes (mostly not UTF-8), text JSON must escape, cut anywhere (so
// perhaps inside a character), valid Unicode of any kind, and exactly
// limit bytes.
func anyText(limit int) *rapid.Generator[string] {
	sizes := rapid.OneOf(rapid.IntRange(0, limit+8), rapid.IntRange(limit-8, limit+8), rapid.IntRange(0, 40))
	return rapid.OneOf(
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, limit+8), func(b []byte) string { return string(b) }),
		identityOfLen(sizes),
		rapid.StringN(0, -1, limit+8),
		plainString(0, 40),
		rapid.Map(rapid.IntRange(0, 2), func(k int) string {
			return strings.Repeat("x", limit-k) + []string{"", "é", "💡"}[k]
		}),
	)
}

// validText reports whether a name or text of at most limit bytes is one
// the elector takes: UTF-8, and (if it must be set) not empty.
func validText(s string, limit int, required bool) bool {
	return utf8.ValidString(s) && len(s) <= limit && (s != "" || !required)
}

// wallClock is a RealClock whose wall clock reads a fixed time, in any zone.
type wallClock struct {
	*RealClock
	now time.Time
}

func (c wallClock) Now() time.Time { return c.now }

// writable reports whether at, in UTC, has an RFC 3339 form.
func writable(at time.Time) bool {
	_, err := at.UTC().MarshalJSON()
	return err == nil
}

// TestAcceptedInputsReadBack: NewElector takes exactly the names that are
// UTF-8 and within their limits, refusing any other with a ConfigError on
// its field; SetWatermark takes exactly the watermarks that are UTF-8,
// within MaxUpdatesLen and writable in UTC, refusing any other with
// ErrInvalidWatermark. What both took goes into the renewal the elector
// writes (its identity, its lease, its wall clock in any zone, the
// watermark), which encodes and reads back exactly; the next holder's
// record links to it and hands the watermark on, and its holder reads
// exactly what was published.
func TestAcceptedInputsReadBack(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := validDurations(t)
		cfg.Bucket = anyText(64).Draw(t, "bucket")
		cfg.Key = anyText(MaxKeyLen).Draw(t, "key")
		cfg.Identity = anyText(MaxIdentityLen).Draw(t, "identity")
		// A wall clock in any zone, often one whose offset has seconds
		// (local mean time, as the zone database gives for old dates).
		lmt := rapid.Custom(func(t *rapid.T) time.Time {
			off := rapid.IntRange(-12*3600, 12*3600).Draw(t, "offset s")
			return time.Unix(rapid.Int64Range(-62135596800, 253402214400).Draw(t, "lmt sec"), 0).In(time.FixedZone("LMT", off))
		})
		wall := rapid.OneOf(timestamp(), lmt).Draw(t, "wall clock")
		cfg.Clock = wallClock{NewRealClock(), wall}
		e, err := NewElector(cfg)
		bad := map[string]bool{
			"Bucket":   !validText(cfg.Bucket, math.MaxInt, true),
			"Key":      !validText(cfg.Key, MaxKeyLen, true),
			"Identity": !validText(cfg.Identity, MaxIdentityLen, true),
		}
		var ce *ConfigError
		if bad["Bucket"] || bad["Key"] || bad["Identity"] {
			if !errors.As(err, &ce) || !bad[ce.Field] || !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("NewElector(bucket %q, key %q, identity %q) = %v; want a ConfigError on one of %v", cfg.Bucket, cfg.Key, cfg.Identity, err, bad)
			}
			return
		}
		if err != nil {
			t.Fatalf("NewElector(bucket %q, key %q, identity %q): %v", cfg.Bucket, cfg.Key, cfg.Identity, err)
		}
		if !writable(wall) {
			return // a wall clock beyond the year 9999 writes no record
		}

		// A term whose record handed it a watermark (or none).
		token := rapid.Uint64Range(1, math.MaxUint64-1).Draw(t, "token")
		var inherited time.Time
		if rapid.Bool().Draw(t, "inherits a watermark") {
			inherited = time.Unix(rapid.Int64Range(-62135596800, 253402300799).Draw(t, "inherited"), 0).UTC()
		}
		tm := &term{lease: Lease{Token: token}, pending: Watermark{At: inherited}}
		e.cur = tm
		w := Watermark{At: timestamp().Draw(t, "watermark"), Updates: anyText(MaxUpdatesLen).Draw(t, "updates")}
		err = e.SetWatermark(token, w)
		if !validText(w.Updates, MaxUpdatesLen, false) || !writable(w.At) {
			if !errors.Is(err, ErrInvalidWatermark) {
				t.Fatalf("SetWatermark(%v, %q) = %v; want ErrInvalidWatermark", w.At, w.Updates, err)
			}
			if tm.pending != (Watermark{At: inherited}) {
				t.Fatalf("a refused watermark changed the pending one to %+v", tm.pending)
			}
			return
		}
		if err != nil {
			t.Fatalf("SetWatermark(%v, %q): %v", w.At, w.Updates, err)
		}
		published := Watermark{At: inherited, Updates: w.Updates}
		if at := w.At.UTC(); at.After(inherited) {
			published.At = at
		}

		// The renewal, as the elector builds it, and its encoding.
		rec := e.withWatermark(tm, Record{Holder: e.cfg.Identity, Token: token, LeaseDurationMS: ceilMillis(e.cfg.LeaseDuration),
			AcquireTime: e.wallTime(), RenewTime: e.wallTime(), Nonce: "0123456789abcdef", Watermark: inherited})
		body, err := rec.Encode()
		if err != nil {
			t.Fatalf("Encode of the renewal %+v: %v", rec, err)
		}
		got, err := DecodeRecord(body)
		if err != nil {
			t.Fatalf("DecodeRecord(%s): %v", body, err)
		}
		if got.Holder != cfg.Identity || got.Updates != published.Updates || !got.Watermark.Equal(published.At) ||
			!got.RenewTime.Equal(wall) || got.LeaseDuration() < cfg.LeaseDuration || got.LeaseDuration()-cfg.LeaseDuration >= time.Millisecond {
			t.Fatalf("the renewal reads back as %+v; want holder %q, watermark %+v, renewed at %v, a lease of %v rounded up to a millisecond",
				got, cfg.Identity, published, wall, cfg.LeaseDuration)
		}

		// The next holder's record, after a release, and what it hands.
		link := endOf(got, EndedReleased)
		next := Record{Holder: "next", Token: token + 1, LeaseDurationMS: 1000, Nonce: "fedcba9876543210", Previous: link, Watermark: link.Watermark}
		nb, err := next.Encode()
		if err != nil {
			t.Fatalf("Encode of the next record %+v: %v", next, err)
		}
		ng, err := DecodeRecord(nb)
		if err != nil {
			t.Fatalf("DecodeRecord(%s): %v", nb, err)
		}
		if handed := handedOver(ng); !handed.At.Equal(published.At) || handed.Updates != published.Updates || ng.Previous.Holder != cfg.Identity {
			t.Fatalf("the next holder was handed %+v by holder %q; want %+v by %q", handed, ng.Previous.Holder, published, cfg.Identity)
		}
	})
}

// The case a reviewer found: a few hundred bytes of Updates that are not
// UTF-8, which JSON would have written as U+FFFD, six bytes each, making
// the record too long for every reader (the next holder took over without
// a link, and with no watermark); and one such byte, which would have
// handed the next holder other bytes than were published. SetWatermark
// refuses both, and the term's watermark is unchanged.
func TestSetWatermarkRefusesUpdatesThatAreNotUTF8(t *testing.T) {
	e, err := NewElector(validConfig())
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{lease: Lease{Token: 9}}
	e.cur = tm
	good := Watermark{At: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Updates: "s3://logs/é/"}
	if err := e.SetWatermark(9, good); err != nil {
		t.Fatal(err)
	}
	for _, updates := range []string{strings.Repeat("\xff", 300), "s3://logs/" + "é"[:1], "\xed\xa0\x80"} {
		err := e.SetWatermark(9, Watermark{At: good.At.Add(time.Hour), Updates: updates})
		if !errors.Is(err, ErrInvalidWatermark) {
			t.Errorf("SetWatermark with %d bytes of updates that are not UTF-8: %v; want ErrInvalidWatermark", len(updates), err)
		}
		if tm.pending != good {
			t.Errorf("after the refusal the watermark to write is %+v; want %+v", tm.pending, good)
		}
	}
}
