package sim

import (
	"context"
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// naiveLease is a small election protocol for benchmarks: try to create the
// lock object; on success lead for a while under a token taken from the
// wall clock, then delete the object; either way sleep a jittered interval.
// It exercises what real protocols do: conditional writes, timeouts, the
// application's fenced writes and cancellation.
func naiveLease(ctx context.Context, env Env) error {
	b, k := aws.String(env.Bucket), aws.String(env.Key)
	var jitter [8]byte
	for ctx.Err() == nil {
		cctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
		_, err := env.Store.PutObject(cctx, &s3.PutObjectInput{Bucket: b, Key: k,
			Body: strings.NewReader(env.Identity), IfNoneMatch: aws.String("*")})
		cancel()
		if err == nil {
			lctx, lcancel := env.Clock.WithTimeout(ctx, 2*time.Second)
			env.Lead(lctx, uint64(env.Clock.Now().UnixNano()))
			lcancel()
			dctx, dcancel := env.Clock.WithTimeout(ctx, time.Second)
			_, _ = env.Store.DeleteObject(dctx, &s3.DeleteObjectInput{Bucket: b, Key: k})
			dcancel()
		}
		_, _ = io.ReadFull(env.Entropy, jitter[:])
		_ = env.Clock.Sleep(ctx, 200*time.Millisecond+time.Duration(binary.LittleEndian.Uint64(jitter[:])%uint64(100*time.Millisecond)))
	}
	return nil
}

// BenchmarkWholeRun measures complete runs of five nodes running naiveLease
// for a minute of true time, one seed per run, as a campaign makes them.
func BenchmarkWholeRun(b *testing.B) {
	seed := uint64(0)
	steps := 0
	for b.Loop() {
		seed++
		cfg := testConfig(5, time.Minute, naiveLease)
		cfg.Seed = seed
		cfg.KeepTrace = false
		res, err := Run(cfg)
		if err != nil || res.Failure != nil {
			b.Fatal(err, res.Failure)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/run")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/run")
}

// BenchmarkTinyRun measures the fixed cost of a run: one node that sleeps
// once, as the short executions of an exploration are.
func BenchmarkTinyRun(b *testing.B) { benchTinyRun(b, 0) }

// BenchmarkTinyRunInline is BenchmarkTinyRun without the watchdog, on the
// caller's goroutine: the difference is the watchdog's cost per run.
func BenchmarkTinyRunInline(b *testing.B) { benchTinyRun(b, -1) }

func benchTinyRun(b *testing.B, blockedAfter time.Duration) {
	for b.Loop() {
		cfg := testConfig(1, time.Second, func(ctx context.Context, env Env) error {
			return env.Clock.Sleep(ctx, time.Millisecond)
		})
		cfg.KeepTrace = false
		cfg.BlockedAfter = blockedAfter
		if _, err := Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
