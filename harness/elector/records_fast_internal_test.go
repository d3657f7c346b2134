package elector

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// agreesWithReference reports what the reference reads of body otherwise
// than fast reading b does, or "" if it reads it alike: a valid record,
// the same values, in canonical form.
func agreesWithReference(body string, b *auditedBody) string {
	r := readRecord(body)
	switch ok, _ := r.isCanonical(); {
	case r.bad != "":
		return "no valid record: " + r.bad
	case !sameRecord(r.rec, b.rec):
		return "another record"
	case !ok:
		return "not canonical"
	}
	return ""
}

// TestFastReadingAgreesOnTheSwarm: every body a node wrote in swarm seeds
// 1..60 that the fast reading reads by the body it replaced is the record
// the reference reads, valid and canonical; and the fast reading reads
// most renewals.
func TestFastReadingAgreesOnTheSwarm(t *testing.T) {
	sc := harness.Swarm("swarm", Protocol(DefaultSettings))
	var fast, renewals int
	for seed := uint64(1); seed <= 60; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		h := o.Result.History
		ref := newRecordAudit(h, nil)
		ref.referenceOnly = true
		for i := range h.S3 {
			op := &h.S3[i]
			if op.Node < 0 || op.Op != "PutObject" || op.Body == "" {
				continue
			}
			was, ok := ref.read(op.IfMatch)
			if !ok || was.bad != "" {
				continue
			}
			if canonical, _ := was.isCanonical(); !canonical {
				continue
			}
			r, _ := ref.read(op.BodyETag)
			if r.bad == "" && r.rec.Token == was.rec.Token {
				renewals++
			}
			b, ok := fastReading(op.Body, was)
			if !ok {
				continue
			}
			fast++
			if why := agreesWithReference(op.Body, b); why != "" {
				t.Fatalf("seed %d: the fast reading of %q by %q: the reference reads %s", seed, op.Body, was.body, why)
			}
		}
	}
	if renewals == 0 || fast < renewals*9/10 {
		t.Errorf("the fast reading read %d bodies of %d renewals", fast, renewals)
	}
}

// TestFastReadingRefusesWhatItCannotRead: every body one byte away from a
// renewal of a record (each byte replaced by one of a few others, or cut,
// or doubled) that the fast reading reads by that record is read alike by
// the reference; and the fast reading refuses the ways a renewal's run can
// be written otherwise than json.Marshal writes it.
func TestFastReadingRefusesWhatItCannotRead(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 1, 500_000_000, time.UTC)
	was := protocol.Record{Holder: `n1 "é"`, Token: 7, LeaseDurationMS: 2000, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef",
		Watermark: at, Updates: "log/", Previous: &protocol.PreviousTerm{Holder: "n0", Token: 6, Nonce: "fedcba9876543210", Ended: protocol.EndedExpired}}
	base := readRecord(mustMarshal(t, was))
	if ok, _ := base.isCanonical(); !ok || base.bad != "" || !base.fastBase() {
		t.Fatalf("the base record %q: %q, canonical %v, run %+v", base.body, base.bad, ok, base.run)
	}
	renewal := was
	renewal.RenewTime, renewal.Nonce, renewal.Released, renewal.Watermark = at.Add(time.Second), "00112233445566aa", true, at.Add(2*time.Second)
	body := mustMarshal(t, renewal)
	b, ok := fastReading(body, base)
	if !ok || agreesWithReference(body, b) != "" {
		t.Fatalf("the renewal %q: read %v", body, ok)
	}
	var variants []string
	for i := range len(body) {
		variants = append(variants, body[:i]+body[i+1:], body[:i]+body[i:i+1]+body[i:])
		for _, c := range []string{"0", "9", "a", "F", "Z", "+", ".", `"`, `\`, " ", ",", "}"} {
			variants = append(variants, body[:i]+c+body[i+1:])
		}
	}
	accepted := 0
	for _, v := range variants {
		if b, ok := fastReading(v, base); ok {
			accepted++
			if why := agreesWithReference(v, b); why != "" {
				t.Errorf("the fast reading read %q, which the reference reads as %s", v, why)
			}
		}
	}
	if accepted == 0 {
		t.Error("the fast reading read none of the variants")
	}
	for _, c := range []struct{ old, new string }{
		{`Z","nonce"`, `+00:00","nonce"`},
		{`"2030-01-01T00:00:02.5Z"`, `"2030-01-01T00:00:02.500Z"`},
		{`"00112233445566aa"`, `"00112233445566AA"`},
		{`"released":true`, `"released":false`},
		{`,"released":true`, ``},
		{`"watermark":"2030-01-01T00:00:03.5Z"`, `"watermark":"0001-01-01T00:00:00Z"`},
		{`"watermark":"2030-01-01T00:00:03.5Z"`, `"watermark":"2030-01-01T00:00:03.5\u005a"`},
		{`,"nonce"`, `, "nonce"`},
	} {
		v := strings.Replace(body, c.old, c.new, 1)
		if v == body {
			t.Fatalf("%q is not in %q", c.old, body)
		}
		if b, ok := fastReading(v, base); ok && agreesWithReference(v, b) != "" {
			t.Errorf("the fast reading read %q", v)
		}
	}
}

func mustMarshal(t *testing.T, r protocol.Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestUnquote: unquote strips all the quotes around an ETag, as
// strings.Trim does, whatever the ETag.
func TestUnquote(t *testing.T) {
	for _, etag := range []string{`"abc"`, `abc`, `""`, `"`, ``, `""abc""`, `"abc`, `abc"`, `"a"b"`, `"""`, `"a"`} {
		if got, want := unquote(etag), strings.Trim(etag, `"`); got != want {
			t.Errorf("unquote(%q) = %q, want %q", etag, got, want)
		}
	}
}

// TestReleasedTrue: releasedTrue finds `"released":true` wherever
// strings.Contains does, and only there.
func TestReleasedTrue(t *testing.T) {
	pieces := []string{`"released":true`, `"released":tru`, `"released":false`, `u`, `:`, `"`, `true`, `released`, `::`, `x`, `"token":1`}
	for n := range 20000 {
		var b strings.Builder
		for k := n; k > 0; k /= len(pieces) + 1 {
			if i := k % (len(pieces) + 1); i > 0 {
				b.WriteString(pieces[i-1])
			}
		}
		body := b.String()
		if got, want := releasedTrue(body), strings.Contains(body, `"released":true`); got != want {
			t.Fatalf("releasedTrue(%q) = %v, want %v", body, got, want)
		}
	}
}
