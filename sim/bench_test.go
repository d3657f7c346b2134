package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BenchmarkSchedulerStep measures the scheduler alone: five nodes whose only
// work is to sleep, so every step is an agenda pop, a coroutine resume and a
// yield. It reports nanoseconds per step.
func BenchmarkSchedulerStep(b *testing.B) {
	steps := 0
	for b.Loop() {
		cfg := testConfig(5, 10*time.Second, func(ctx context.Context, env Env) error {
			for ctx.Err() == nil {
				_ = env.Clock.Sleep(ctx, time.Millisecond)
			}
			return nil
		})
		cfg.KeepTrace = false
		res, err := Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
}

// BenchmarkS3Call measures one simulated GetObject with a per-call timeout,
// as the elector makes it: the request, the apply event, the answer.
func BenchmarkS3Call(b *testing.B) {
	calls := 0
	for b.Loop() {
		cfg := testConfig(5, 10*time.Second, func(ctx context.Context, env Env) error {
			in := &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)}
			_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: in.Bucket, Key: in.Key, Body: strings.NewReader(`{"holder":"n0"}`)})
			for ctx.Err() == nil {
				cctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
				_, _ = env.Store.GetObject(cctx, in)
				cancel()
				calls++
			}
			return nil
		})
		cfg.KeepTrace = false
		if _, err := Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
}
