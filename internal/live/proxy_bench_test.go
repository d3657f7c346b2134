package live

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The proxy's overhead: the same S3 calls against the embedded gofakes3,
// directly and through the proxy with no faults, from as many goroutines as
// GOMAXPROCS. Each reports requests per second; ns/op is the wall time of
// one call divided by the parallelism.
//
//	go test ./internal/live/ -run '^$' -bench Proxy

var benchBody = []byte(strings.Repeat("x", 300)) // about a lock record's size

func benchClient(b *testing.B, viaProxy bool) (*s3.Client, Config) {
	b.Helper()
	cfg, err := Config{}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	tgt, err := startTarget(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(tgt.close)
	direct := tgt.client(cfg, 0, nil)
	if err := tgt.createBucket(context.Background(), direct, cfg.Bucket); err != nil {
		b.Fatal(err)
	}
	if _, err := direct.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(cfg.Key), Body: bytes.NewReader(benchBody)}); err != nil {
		b.Fatal(err)
	}
	if !viaProxy {
		return direct, cfg
	}
	px, err := startProxy(tgt.urls, Faults{}, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(px.close)
	return tgt.client(cfg, 0, nodeHTTPClient(px.addr())), cfg
}

func benchGet(b *testing.B, viaProxy bool) {
	c, cfg := benchClient(b, viaProxy)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(cfg.Key)})
			if err != nil {
				b.Error(err)
				return
			}
			out.Body.Close()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func benchPut(b *testing.B, viaProxy bool) {
	c, cfg := benchClient(b, viaProxy)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(cfg.Key), Body: bytes.NewReader(benchBody)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func BenchmarkProxyGetDirect(b *testing.B) { benchGet(b, false) }
func BenchmarkProxyGetVia(b *testing.B)    { benchGet(b, true) }
func BenchmarkProxyPutDirect(b *testing.B) { benchPut(b, false) }
func BenchmarkProxyPutVia(b *testing.B)    { benchPut(b, true) }
