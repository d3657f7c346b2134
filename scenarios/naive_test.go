package scenarios

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// naiveLock is a deliberately simple lock protocol with switches for the
// classic mistakes. Correctly switched it is the If-Match lock of seed 002
// with a token: read; if the lock is absent, released or its expiry has
// passed on the local wall clock, write it conditionally with token+1; lead
// for most of the lease; release. Each switch breaks one thing.
type naiveLock struct {
	lease time.Duration
	// unconditional acquires by read then unconditional write.
	unconditional bool
	// sameToken hands out the previous token instead of token+1.
	sameToken bool
	// deleteOnRelease releases by deleting the object, resetting the token.
	deleteOnRelease bool
}

type naiveRecord struct {
	Holder   string    `json:"holder"`
	Token    uint64    `json:"token"`
	Expires  time.Time `json:"expires"`
	Released bool      `json:"released"`
}

func (p naiveLock) candidate() sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		clk := env.Clock
		retry := p.lease / 4
		for ctx.Err() == nil {
			out, err := env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &env.Bucket, Key: &env.Key})
			var rec naiveRecord
			etag := ""
			switch {
			case err == nil:
				body, _ := io.ReadAll(out.Body)
				_ = json.Unmarshal(body, &rec)
				etag = aws.ToString(out.ETag)
			case protocol.ClassifyError(err) != protocol.ClassNotFound:
				_ = clk.Sleep(ctx, retry)
				continue
			}
			if etag != "" && !rec.Released && clk.Now().Before(rec.Expires) {
				_ = clk.Sleep(ctx, retry)
				continue
			}
			token := rec.Token + 1
			if p.sameToken && rec.Token > 0 {
				token = rec.Token
			}
			mine := naiveRecord{Holder: env.Identity, Token: token, Expires: clk.Now().Add(p.lease)}
			body, _ := json.Marshal(mine)
			in := &s3.PutObjectInput{Bucket: &env.Bucket, Key: &env.Key, Body: bytesReader(body)}
			if !p.unconditional {
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
			_ = clk.Sleep(ctx, p.lease*3/4)
			stop()
			_ = clk.Sleep(done, p.lease)
			if p.deleteOnRelease {
				_, _ = env.Store.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &env.Bucket, Key: &env.Key, IfMatch: put.ETag})
			} else {
				mine.Released = true
				body, _ = json.Marshal(mine)
				_, _ = env.Store.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &env.Bucket, Key: &env.Key, Body: bytesReader(body), IfMatch: put.ETag})
			}
			// Let the others have a go before competing again.
			_ = clk.Sleep(ctx, p.lease)
		}
		return nil
	}
}
