package faults_test

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/s3lease/s3lease/faults"
)

// linkKind names what the swarm added to a record before the run.
func linkKind(o *faults.Object) []string {
	r := o.Record
	var out []string
	if !r.Watermark.IsZero() || r.Updates != "" {
		out = append(out, "publishes")
	}
	if len(r.Updates) > faults.MaxUpdatesLen {
		out = append(out, "invalid: record updates")
	}
	if p := r.Previous; p != nil {
		switch {
		case p.Token >= r.Token:
			out = append(out, "invalid: previous token")
		case p.Ended != faults.EndedReleased && p.Ended != faults.EndedExpired:
			out = append(out, "invalid: ending")
		case len(p.Updates) > faults.MaxUpdatesLen:
			out = append(out, "invalid: previous updates")
		case len(r.Updates) <= faults.MaxUpdatesLen:
			out = append(out, "valid link "+p.Ended)
			if !p.Watermark.IsZero() {
				out = append(out, "valid link with a watermark")
			}
			if p.Updates != "" {
				out = append(out, "valid link with updates")
			}
		}
	}
	switch h := r.Holder; {
	case len(h) == faults.MaxIdentityLen:
		out = append(out, "holder of exactly the limit")
	case len(h) > faults.MaxIdentityLen && utf8.RuneStart(h[faults.MaxIdentityLen]):
		out = append(out, "long holder cut on a boundary")
	case len(h) > faults.MaxIdentityLen:
		back := 0
		for !utf8.RuneStart(h[faults.MaxIdentityLen-back]) {
			back++
		}
		_, size := utf8.DecodeRuneInString(h[faults.MaxIdentityLen-back:])
		out = append(out, fmt.Sprintf("long holder cut %d bytes into a character of %d", back, size))
	}
	switch s := o.Size; {
	case s == 0:
	case s == faults.MaxBodyLen:
		out = append(out, "padded to the limit")
	case s < faults.MaxBodyLen:
		out = append(out, "padded under the limit")
	case s == faults.MaxBodyLen+1:
		out = append(out, "padded one byte over")
	default:
		out = append(out, "padded over the limit")
	}
	return out
}

// TestSwarmDrawsLinksLongHoldersAndPadding: across seeds, the records the
// swarm writes before the run publish watermarks and updates, link to a
// previous term (ended either way, with that term's watermark and
// updates), and on some seeds link as no elector writes (each way), have
// holders of exactly the identity limit or longer with the cut at the
// limit on a boundary or 1, 2 or 3 bytes into a character, and are padded
// to exactly the largest body read, under it, one byte over and more;
// every plan is valid, a record is foreign exactly when it is invalid,
// longer-held than an elector's identity, states a lease over the
// longest, is padded or edited, and what no
// elector writes is added only on seeds with foreign writes during the
// run (which leave the assumptions anyway).
func TestSwarmDrawsLinksLongHoldersAndPadding(t *testing.T) {
	seen := map[string]int{}
	for seed := uint64(1); seed <= 6000; seed++ {
		p := swarm(seed)
		if err := p.Validate(5, 90*time.Second); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		o := p.Initial
		if o == nil || o.Record == nil {
			continue
		}
		kinds := linkKind(o)
		invalid, long := false, len(o.Record.Holder) > faults.MaxIdentityLen
		for _, k := range kinds {
			seen[k]++
			invalid = invalid || strings.HasPrefix(k, "invalid")
		}
		if r := o.Record; r.Previous != nil && !invalid && r.Watermark.Before(r.Previous.Watermark) {
			t.Errorf("seed %d: a valid link hands over %v, above the record's watermark %v", seed, r.Previous.Watermark, r.Watermark)
		}
		top, over := o.Record.Token > faults.MaxNativeToken, o.Record.Lease.D() > faults.MaxLease
		if want := invalid || long || top || over || o.Size != 0 || o.Edit != 0; o.Foreign() != want {
			t.Errorf("seed %d: foreign %v for %q (edit %d, token %d)", seed, o.Foreign(), kinds, o.Edit, o.Record.Token)
		}
		writes := false
		for _, e := range p.Events {
			writes = writes || e.Kind == faults.DeleteLock || e.Kind == faults.Overwrite || e.Kind == faults.Restore
		}
		if (invalid || long || o.Size != 0) && !writes {
			t.Errorf("seed %d: %q on a seed without foreign writes", seed, kinds)
		}
	}
	t.Logf("%v", seen)
	for _, want := range []string{
		"publishes", "valid link released", "valid link expired", "valid link with a watermark", "valid link with updates",
		"invalid: previous token", "invalid: ending", "invalid: previous updates", "invalid: record updates",
		"holder of exactly the limit", "long holder cut on a boundary",
		"long holder cut 1 bytes into a character of 2", "long holder cut 1 bytes into a character of 3",
		"long holder cut 2 bytes into a character of 3", "long holder cut 1 bytes into a character of 4",
		"long holder cut 2 bytes into a character of 4", "long holder cut 3 bytes into a character of 4",
		"padded to the limit", "padded under the limit", "padded one byte over", "padded over the limit",
	} {
		if seen[want] < 3 {
			t.Errorf("%q: %d plans in 6000 seeds", want, seen[want])
		}
	}
}

// TestPadBringsBodiesToSize: a padded body is exactly the size asked,
// the same JSON object with one unknown field more; a body too long, or
// no object, is left as it is.
func TestPadBringsBodiesToSize(t *testing.T) {
	for _, body := range []string{`{"holder":"a","token":1}`, "{}", "{ \"a\" : [1] }\n\t", `{"x":"}"}`} {
		for _, size := range []int{faults.MaxBodyLen - 1, faults.MaxBodyLen, faults.MaxBodyLen + 1, len(body) + 16} {
			out, err := faults.Pad([]byte(body), size)
			if err != nil || len(out) != size {
				t.Errorf("Pad(%q, %d): %d bytes, %v", body, size, len(out), err)
				continue
			}
			var was, got map[string]any
			if err := json.Unmarshal([]byte(body), &was); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Errorf("Pad(%q, %d) is no JSON: %v", body, size, err)
				continue
			}
			pad, ok := got["x-padding"].(string)
			delete(got, "x-padding")
			if !ok || strings.Trim(pad, "x") != "" || !reflect.DeepEqual(was, got) {
				t.Errorf("Pad(%q, %d) changed the object: %.80q", body, size, out)
			}
		}
	}
	for _, c := range []struct {
		body string
		size int
	}{{`{"holder":"a"}`, 20}, {`[1]`, 100}, {`{"a":1} x`, 100}, {"", 100}} {
		if out, err := faults.Pad([]byte(c.body), c.size); err == nil || string(out) != c.body {
			t.Errorf("Pad(%q, %d) = %q, %v; want it as it was, and an error", c.body, c.size, out, err)
		}
	}
}

// TestLongHolderCutsWhereAsked: a long holder is longer than the limit
// with byte MaxIdentityLen the asked byte of a character of the asked
// width, or exactly the limit long, and always UTF-8.
func TestLongHolderCutsWhereAsked(t *testing.T) {
	for char, width := range []int{2, 3, 4} {
		for into := range 4 {
			h := faults.LongHolder("gone", char, into, 7)
			if !utf8.ValidString(h) || !strings.HasPrefix(h, "gone-") {
				t.Errorf("LongHolder(%d, %d) = %.40q...", char, into, h)
			}
			if into >= width {
				if len(h) != faults.MaxIdentityLen {
					t.Errorf("LongHolder(%d, %d): %d bytes, want exactly %d", char, into, len(h), faults.MaxIdentityLen)
				}
				continue
			}
			back := 0
			for !utf8.RuneStart(h[faults.MaxIdentityLen-back]) {
				back++
			}
			_, w := utf8.DecodeRuneInString(h[faults.MaxIdentityLen-back:])
			if back != into || w != width || len(h) != faults.MaxIdentityLen-into+7*width {
				t.Errorf("LongHolder(%d, %d): byte %d is %d into a character of %d (length %d)", char, into, faults.MaxIdentityLen, back, w, len(h))
			}
		}
	}
}

// TestRecordFieldsNativeAndValid: a link electors write, updates within
// the bound and a holder of the identity limit keep a record native; a
// link they never write, updates over the bound, a longer holder or
// padding make it foreign; a plan whose record cannot be written as it
// says is refused; and a record without the new fields keeps its nonce.
func TestRecordFieldsNativeAndValid(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 1, 5, time.UTC)
	link := func(change func(*faults.Record)) *faults.Record {
		r := &faults.Record{Holder: "gone", Token: 10, Watermark: at, Updates: "log",
			Previous: &faults.Previous{Holder: "older", Token: 9, Ended: faults.EndedExpired, Watermark: at, Updates: "log/0"}}
		if change != nil {
			change(r)
		}
		return r
	}
	for name, r := range map[string]*faults.Record{
		"a link":                   link(nil),
		"a released link":          link(func(r *faults.Record) { r.Previous.Ended = faults.EndedReleased }),
		"the longest holder":       link(func(r *faults.Record) { r.Holder = strings.Repeat("h", faults.MaxIdentityLen) }),
		"the longest updates":      link(func(r *faults.Record) { r.Updates = strings.Repeat("u", faults.MaxUpdatesLen) }),
		"a raised watermark":       link(func(r *faults.Record) { r.Watermark = at.Add(time.Second) }),
		"no link, a watermark":     link(func(r *faults.Record) { r.Previous = nil }),
		"a link with no watermark": link(func(r *faults.Record) { r.Watermark, r.Previous.Watermark = time.Time{}, time.Time{} }),
	} {
		if o := (&faults.Object{Record: r}); o.Foreign() {
			t.Errorf("%s: foreign", name)
		}
	}
	for name, o := range map[string]*faults.Object{
		"a previous token as high":  {Record: link(func(r *faults.Record) { r.Previous.Token = 10 })},
		"a previous token above":    {Record: link(func(r *faults.Record) { r.Previous.Token = 11 })},
		"an unknown ending":         {Record: link(func(r *faults.Record) { r.Previous.Ended = "Released" })},
		"no ending":                 {Record: link(func(r *faults.Record) { r.Previous.Ended = "" })},
		"previous updates too long": {Record: link(func(r *faults.Record) { r.Previous.Updates = strings.Repeat("u", faults.MaxUpdatesLen+1) })},
		"updates too long":          {Record: link(func(r *faults.Record) { r.Updates = strings.Repeat("u", faults.MaxUpdatesLen+1) })},
		"no previous holder":        {Record: link(func(r *faults.Record) { r.Previous.Holder = "" })},
		"a lowered watermark":       {Record: link(func(r *faults.Record) { r.Watermark = at.Add(-1) })},
		"a holder too long":         {Record: link(func(r *faults.Record) { r.Holder = strings.Repeat("h", faults.MaxIdentityLen+1) })},
		"padded":                    {Record: link(nil), Size: faults.MaxBodyLen},
	} {
		if !o.Foreign() {
			t.Errorf("%s: native", name)
		}
	}
	for name, o := range map[string]*faults.Object{
		"a size for raw bytes":   {Body: "x", Size: 100},
		"a negative size":        {Record: link(nil), Size: -1},
		"a size far too large":   {Record: link(nil), Size: 1 << 30},
		"a holder not UTF-8":     {Record: link(func(r *faults.Record) { r.Holder = "n\xff" })},
		"an ending not UTF-8":    {Record: link(func(r *faults.Record) { r.Previous.Ended = "\xc3" })},
		"a year JSON cannot say": {Record: link(func(r *faults.Record) { r.Previous.Watermark = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })},
	} {
		p := &faults.Plan{HealAt: faults.Duration(30 * time.Second), Initial: o}
		if err := p.Validate(5, time.Minute); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	bad := &faults.Plan{HealAt: faults.Duration(30 * time.Second), Events: []faults.Event{
		{Kind: faults.Overwrite, At: faults.Duration(time.Second), Record: link(func(r *faults.Record) { r.Updates = "\xff" })}}}
	if err := bad.Validate(5, time.Minute); err == nil {
		t.Error("an overwrite with updates not UTF-8: accepted")
	}
	plain := faults.Record{Holder: "gone", Token: 7, Lease: faults.Duration(time.Second), Released: true}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%t", plain.Holder, plain.Token, plain.Lease, plain.Released)
	if want := fmt.Sprintf("%016x", h.Sum64()); plain.Nonce() != want {
		t.Errorf("a plain record's nonce is %s, was %s", plain.Nonce(), want)
	}
	if link(nil).Nonce() == link(func(r *faults.Record) { r.Previous.Token = 8 }).Nonce() {
		t.Error("records that link to different terms have one nonce")
	}
}
