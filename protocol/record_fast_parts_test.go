package protocol

import (
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The parts of the fast parser that replace a library call or a loop:
// utcTime against time.Time.UnmarshalJSON, plainWords against the
// byte-by-byte loop it shortens.

// checkUTCTime asserts that utcTime(s), where it reads s, gives what
// time.Time.UnmarshalJSON gives for the quoted s, down to the location.
func checkUTCTime(t fatalfer, s string) (read bool) {
	t.Helper()
	got, ok := utcTime([]byte(s))
	var want time.Time
	err := want.UnmarshalJSON([]byte(`"` + s + `"`))
	if !ok {
		if got != (time.Time{}) {
			t.Fatalf("utcTime(%q) declined but gave %v", s, got)
		}
		return false
	}
	if err != nil {
		t.Fatalf("utcTime(%q) = %v, but UnmarshalJSON fails: %v", s, got, err)
	}
	if got != want || !reflect.DeepEqual(got, want) {
		t.Fatalf("utcTime(%q) = %#v, UnmarshalJSON gives %#v", s, got, want)
	}
	return true
}

// checkPlainWords asserts that plainWords(b) never goes past the run of
// unmarshalsAsIs bytes at the start of b, counted byte by byte (the
// parser takes what it returns as plain without looking), and does not
// panic. That it finds the whole run, cut to whole 8-byte words, is a
// matter of speed (TestPlainWordsFindsTheRun).
func checkPlainWords(t fatalfer, b []byte) {
	t.Helper()
	if got, run := plainWords(b), plainRun(b); got < 0 || got > run {
		t.Fatalf("plainWords(%q) = %d, beyond the run of %d plain bytes", b, got, run)
	}
}

// plainRun is the length of the run of unmarshalsAsIs bytes at the start
// of b, counted byte by byte.
func plainRun(b []byte) int {
	n := 0
	for n < len(b) && unmarshalsAsIs[b[n]] {
		n++
	}
	return n
}

// utcTimeString generates what Encode writes for times in UTC, and strings
// a byte or two away from it.
func utcTimeString() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		s := timestamp().Draw(t, "at").UTC().Format(time.RFC3339Nano)
		b := []byte(s)
		for range rapid.IntRange(0, 2).Draw(t, "edits") {
			i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
			c := rapid.SampledFrom([]byte("0123456789:-.TZzt+, \x00\x7f\xc3")).Draw(t, "byte")
			switch rapid.IntRange(0, 2).Draw(t, "edit") {
			case 0:
				b[i] = c
			case 1:
				b = append(b[:i:i], append([]byte{c}, b[i:]...)...)
			default:
				b = append(b[:i:i], b[i+1:]...)
			}
			if len(b) == 0 {
				break
			}
		}
		return string(b)
	})
}

func TestUTCTimeMatchesUnmarshalJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkUTCTime(t, utcTimeString().Draw(t, "s"))
	})
	for _, s := range []string{
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2024-02-30T00:00:00Z", "2025-04-31T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z",
		"2025-01-01T23:59:60Z", "2025-13-01T00:00:00Z", "2025-00-01T00:00:00Z", "2025-01-00T00:00:00Z",
		"2025-01-01T00:00:00.Z", "2025-01-01T00:00:00.1234567891Z", "2025-01-01T00:00:00,5Z",
		"2025-01-01T00:00:00z", "2025-01-01t00:00:00Z", "2025-01-01T00:00:00+00:00", "+025-01-01T00:00:00Z",
		"2025-01-01T00:00:0aZ",
	} {
		checkUTCTime(t, s)
	}
	for _, s := range encodedUTCTimes {
		checkUTCTime(t, s)
	}
}

// encodedUTCTimes are times as Encode writes them in UTC, at the edges
// of the years, days and fractions utcTime reads.
var encodedUTCTimes = []string{
	"0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z", "2000-02-29T23:59:59Z", "2024-02-29T00:00:00.5Z",
	"9999-12-31T23:59:59.999999999Z", "1969-12-31T23:59:59.000000001Z", "1970-01-01T00:00:00Z",
	// The last day of each kind of month.
	"2025-01-31T12:00:00Z", "2025-02-28T12:00:00Z", "2024-02-29T12:00:00Z", "1900-02-28T12:00:00Z", "2025-04-30T12:00:00Z",
}

// TestUTCTimeReadsEncodedTimes guards the speed: utcTime reads every time
// Encode writes in UTC, years 0 to 9999. A speed guard, like
// TestRecordCodecFastPaths: the values are TestUTCTimeMatchesUnmarshalJSON's.
func TestUTCTimeReadsEncodedTimes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		at := timestamp().Draw(t, "at").UTC()
		if at.Year() < 0 || at.Year() > 9999 {
			return
		}
		if s := at.Format(time.RFC3339Nano); !utcTimeReads(s) {
			t.Fatalf("utcTime declined %q", s)
		}
	})
	for _, s := range encodedUTCTimes {
		if !utcTimeReads(s) {
			t.Errorf("utcTime declined %q", s)
		}
	}
}

// utcTimeReads reports whether utcTime reads s.
func utcTimeReads(s string) bool {
	_, ok := utcTime([]byte(s))
	return ok
}

// plainBytes generates byte strings of mostly plain bytes, an odd one
// in eight.
func plainBytes() *rapid.Generator[[]byte] {
	plain := rapid.SampledFrom([]byte(" !#09AZaz~\x7f/"))
	odd := rapid.OneOf(rapid.SampledFrom([]byte("\"\\\x00\x1f\x80\xc3\xff\x01")), rapid.Byte())
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) byte {
		if rapid.IntRange(0, 7).Draw(t, "odd?") == 0 {
			return odd.Draw(t, "odd")
		}
		return plain.Draw(t, "plain")
	}), 0, 40)
}

func TestPlainWordsStaysInTheRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkPlainWords(t, plainBytes().Draw(t, "b"))
	})
}

// TestPlainWordsFindsTheRun guards the speed: plainWords returns the
// whole run of plain bytes, cut to whole words (the parser reads what it
// leaves byte by byte). A speed guard, like TestRecordCodecFastPaths.
func TestPlainWordsFindsTheRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := plainBytes().Draw(t, "b")
		if got, run := plainWords(b), plainRun(b); got != run-run%8 {
			t.Fatalf("plainWords(%q) = %d, want %d", b, got, run-run%8)
		}
	})
}

func FuzzUTCTime(f *testing.F) {
	f.Add("2025-01-02T03:04:05.123456789Z")
	f.Add("0000-02-29T00:00:00Z")
	f.Fuzz(func(t *testing.T, s string) {
		checkUTCTime(t, s)
	})
}

func FuzzPlainWords(f *testing.F) {
	f.Add([]byte(`0123456789abcdef"`))
	f.Add([]byte(`0123"456789abcdef`))
	f.Add([]byte("sim-node-\x1f-nodes\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPlainWords(t, b)
	})
}
