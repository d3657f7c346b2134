package live

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/htmlreport"
	"github.com/s3lease/s3lease/sim"
)

// TestEveryAttemptIsRecorded sends one PutObject through the proxy with one
// fault on every request and checks what the history holds: each HTTP
// attempt of the SDK's retry loop is a request of its own, answered as the
// proxy answered it, with the body's ETag and the client's conditions.
func TestEveryAttemptIsRecorded(t *testing.T) {
	body := []byte(`{"holder":"x"}`)
	sum := md5.Sum(body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	for _, c := range []struct {
		name     string
		faults   Faults
		attempts int
		status   int // 0: no answer
		code     string
	}{
		{"500", Faults{InternalError: 1}, 3, http.StatusInternalServerError, "InternalError"},
		{"500-after", Faults{InternalErrorAfter: 1}, 3, http.StatusInternalServerError, "InternalError"},
		{"503", Faults{Unavailable: 1}, 3, http.StatusServiceUnavailable, "SlowDown"},
		{"409", Faults{Conflict: 1}, 1, http.StatusConflict, "ConditionalRequestConflict"},
		{"drop", Faults{DropAnswer: 1}, 3, 0, ""},
		{"cut", Faults{Cut: 1}, 3, 0, ""},
		{"none", Faults{}, 1, http.StatusOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Config{}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			tgt, err := startTarget(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer tgt.close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := tgt.createBucket(ctx, tgt.client(cfg, 0, nil), cfg.Bucket); err != nil {
				t.Fatal(err)
			}
			px, err := startProxy(tgt.urls, c.faults, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer px.close()
			rec := newRecorder(1)
			client := tgt.client(cfg, 0, nodeHTTPClient(px.addr()), rec.apiOption(0))
			_, err = client.PutObject(ctx, &s3.PutObjectInput{
				Bucket: aws.String(cfg.Bucket), Key: aws.String(cfg.Key), Body: bytes.NewReader(body), IfNoneMatch: aws.String("*"),
			}, func(o *s3.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = time.Millisecond })
			})
			if (err == nil) != (c.status == http.StatusOK) {
				t.Errorf("PutObject: %v", err)
			}
			h := rec.stop()
			if len(h.S3) != c.attempts {
				t.Fatalf("%d requests recorded, want %d: %+v", len(h.S3), c.attempts, h.S3)
			}
			for _, op := range h.S3 {
				want := sim.S3Op{Node: 0, Op: sim.OpPutObject, Key: cfg.Key, IfNoneMatch: "*", BodyETag: etag,
					Call: op.Call, Return: op.Return, Applied: -1, Status: c.status, Code: c.code}
				if c.status == http.StatusOK {
					want.ETag = etag
				}
				if c.status == 0 {
					want.Return, want.Code = -1, op.Code // the reason, for humans
				}
				if op != want {
					t.Errorf("recorded %+v\nwant     %+v", op, want)
				}
				if op.Return >= 0 && op.Return < op.Call {
					t.Errorf("returned before its call: %+v", op)
				}
			}
		})
	}
}

// TestTornReadIsRecordedAsSuch: a GetObject answered with the body of one
// version and the ETag of another keeps the ETag it received and names
// the version whose body came (TornBodyETag); it teaches the recorder
// nothing about what the store calls a body, so no write is relabelled;
// the judge reports it as the store's fault and leaves it out of the S3
// check, and the page marks it. A store whose ETags are not MD5s still has
// them learned from reads that are whole.
func TestTornReadIsRecordedAsSuch(t *testing.T) {
	sum := func(body string) string {
		s := md5.Sum([]byte(body))
		return hex.EncodeToString(s[:])
	}
	a, b := sum(`{"token":1}`), sum(`{"token":2}`)
	rec := newRecorder(2)
	put := func(node int, body, etag string) {
		i := rec.s3Call(node, &opInfo{op: sim.OpPutObject, key: "k", bodyETag: quoted(body), bodyMD5: body})
		rec.s3Return(i, answer{answered: true, status: http.StatusOK, etag: etag})
	}
	get := func(node int, body, etag string) {
		i := rec.s3Call(node, &opInfo{op: sim.OpGetObject, key: "k"})
		rec.s3Return(i, answer{answered: true, status: http.StatusOK, etag: etag})
		rec.read(i, body)
	}
	put(0, a, quoted(a))
	get(1, a, quoted(a)) // whole
	put(0, b, quoted(b))
	get(1, a, quoted(b)) // torn: a's body with b's ETag
	h := rec.stop()
	for i, want := range []string{"", "", "", quoted(a)} {
		if got := h.S3[i].TornBodyETag; got != want {
			t.Errorf("S3[%d] (%s): TornBodyETag %q, want %q", i, h.S3[i].Op, got, want)
		}
	}
	if h.S3[3].ETag != quoted(b) {
		t.Errorf("the torn read's ETag is %s, want the one it received, %s", h.S3[3].ETag, quoted(b))
	}
	if h.S3[0].BodyETag != quoted(a) || h.S3[2].BodyETag != quoted(b) {
		t.Errorf("writes relabelled: %s, %s", h.S3[0].BodyETag, h.S3[2].BodyETag)
	}

	cfg, err := Config{Phases: Steady(time.Second)}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{History: h}
	judge(res, cfg)
	if c, _ := res.Check(CheckTornReads); c.Verdict != CheckStoreFault || len(c.Violations) != 1 || !strings.Contains(c.Violations[0].Message, "store fault") {
		t.Errorf("check %s: %s %v, want one store fault", CheckTornReads, c.Verdict, c.Violations)
	}
	if c, _ := res.Check(CheckS3Linearizable); c.Verdict != CheckPass {
		t.Errorf("check %s: %s (%s), want pass: the torn read is left out", CheckS3Linearizable, c.Verdict, c.Note)
	}
	if res.Verdict != harness.Pass {
		t.Errorf("verdict %s, want pass: the torn read is the store's fault, reported as such", res.Verdict)
	}
	var page bytes.Buffer
	if err := htmlreport.WriteOptions(&page, "torn", res.Outcome(), htmlreport.Options{Replay: "simrun live"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "torn read") {
		t.Errorf("the page does not mark the torn read")
	}

	// A store whose ETags are not MD5s: a whole read teaches the body's ETag.
	rec = newRecorder(1)
	i := rec.s3Call(0, &opInfo{op: sim.OpPutObject, key: "k", bodyETag: quoted(a), bodyMD5: a})
	rec.s3Return(i, answer{}) // no answer
	get(0, a, `"kms-1"`)
	h = rec.stop()
	if h.S3[0].BodyETag != `"kms-1"` || h.S3[1].TornBodyETag != "" {
		t.Errorf("non-MD5 ETag: write %s, read torn %q; want the write's ETag learned and the read whole", h.S3[0].BodyETag, h.S3[1].TornBodyETag)
	}
}
