package zoo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// NaiveLock is the lock of the public S3 lock designs
// (docs/sources.md#quanttype-one-lock-object-with-if-match and
// docs/sources.md#a-client-go-style-elector-in-java) in its simplest form,
// with switches for the classic mistakes: read the lock; if it is absent,
// released, or its stored expiry has passed on the local wall clock, write
// it conditionally with token+1; lead for most of the lease; release. Even unswitched it compares a timestamp written by one
// node with another node's clock, so clock offsets make two leaders overlap.
type NaiveLock struct {
	// Lease is how long a holder's record claims the lock.
	Lease time.Duration
	// Unconditional acquires by read then unconditional write.
	Unconditional bool
	// SameToken hands out the previous token instead of token+1.
	SameToken bool
	// DeleteOnRelease releases by deleting the object, resetting the token.
	DeleteOnRelease bool
}

// Protocol returns the naive lock as a harness protocol. It declares no
// assumptions and promises no liveness bound.
func (p NaiveLock) Protocol() harness.Protocol {
	return harness.Protocol{Name: "naive", Candidate: p.candidate(), Assumptions: protocol.Assumptions{Lease: p.Lease}}
}

type naiveRecord struct {
	Holder   string    `json:"holder"`
	Token    uint64    `json:"token"`
	Expires  time.Time `json:"expires"`
	Released bool      `json:"released"`
}

func (p NaiveLock) candidate() sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		clk := env.Clock
		retry := p.Lease / 4
		for ctx.Err() == nil {
			out, err := env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &env.Bucket, Key: &env.Key})
			var rec naiveRecord
			etag := ""
			switch {
			case err == nil:
				body, _ := io.ReadAll(out.Body)
				_ = json.Unmarshal(body, &rec)
				etag = aws.ToString(out.ETag)
			case !protocol.ObjectMissing(err):
				_ = clk.Sleep(ctx, retry)
				continue
			}
			if etag != "" && !rec.Released && clk.Now().Before(rec.Expires) {
				_ = clk.Sleep(ctx, retry)
				continue
			}
			token := rec.Token + 1
			if p.SameToken && rec.Token > 0 {
				token = rec.Token
			}
			mine := naiveRecord{Holder: env.Identity, Token: token, Expires: clk.Now().Add(p.Lease)}
			body, _ := json.Marshal(mine)
			in := &s3.PutObjectInput{Bucket: &env.Bucket, Key: &env.Key, Body: bytes.NewReader(body)}
			if !p.Unconditional {
				if etag == "" {
					in.IfNoneMatch = aws.String("*")
				} else {
					in.IfMatch = aws.String(etag)
				}
			}
			put, err := env.Store.PutObject(ctx, in)
			if err != nil {
				_ = clk.Sleep(ctx, retry)
				continue
			}
			lctx, stop := context.WithCancel(ctx)
			done, markDone := context.WithCancel(context.Background())
			clk.Go(func() { defer markDone(); env.Lead(lctx, token) })
			_ = clk.Sleep(ctx, p.Lease*3/4)
			stop()
			_ = clk.Sleep(done, p.Lease)
			if p.DeleteOnRelease {
				_, _ = env.Store.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &env.Bucket, Key: &env.Key, IfMatch: put.ETag})
			} else {
				mine.Released = true
				body, _ = json.Marshal(mine)
				_, _ = env.Store.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &env.Bucket, Key: &env.Key, Body: bytes.NewReader(body), IfMatch: put.ETag})
			}
			// Let the others have a go before competing again.
			_ = clk.Sleep(ctx, p.Lease)
		}
		return nil
	}
}
