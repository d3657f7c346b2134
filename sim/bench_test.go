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

// BenchmarkS3CallPaced measures a GetObject with a per-call timeout as the
// elector's followers make it, one per node and simulated second, in runs
// of the reference scenario's size (five nodes, a minute): the request,
// its apply and answer events, the timer, the sleep that follows, and the
// run's fixed costs shared among its calls.
func BenchmarkS3CallPaced(b *testing.B) {
	calls := 0
	seed := uint64(0)
	for b.Loop() {
		seed++
		cfg := testConfig(5, time.Minute, func(ctx context.Context, env Env) error {
			in := &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)}
			_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: in.Bucket, Key: in.Key, Body: strings.NewReader(`{"holder":"n0"}`)})
			for ctx.Err() == nil {
				cctx, cancel := env.Clock.WithTimeout(ctx, 1500*time.Millisecond)
				_, _ = env.Store.GetObject(cctx, &s3.GetObjectInput{Bucket: in.Bucket, Key: in.Key})
				cancel()
				calls++
				_ = env.Clock.Sleep(ctx, time.Second)
			}
			return nil
		})
		cfg.Seed = seed
		cfg.KeepTrace = false
		if _, err := Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls), "ns/call")
}
