package live

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
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
			if err := tgt.createBucket(ctx, tgt.client(cfg, nil), cfg.Bucket); err != nil {
				t.Fatal(err)
			}
			px, err := startProxy(tgt.url, c.faults, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer px.close()
			rec := newRecorder(1)
			client := tgt.client(cfg, nodeHTTPClient(px.addr()), rec.apiOption(0))
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
					Call: op.Call, Return: op.Return, Status: c.status, Code: c.code}
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
