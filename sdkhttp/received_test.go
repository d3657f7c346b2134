package sdkhttp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/s3lease/s3lease/sdkhttp"
	"github.com/s3lease/s3lease/sim"
)

// TestTracePrintsWhatTheSDKReceived: behind each kind of error pages, the
// trace's s3.return of every failed call prints the error code the real
// SDK returned to the node ("no code" when it found none), not S3's; its
// s3.apply prints S3's. The printing changes no hash.
func TestTracePrintsWhatTheSDKReceived(t *testing.T) {
	for _, pages := range []sim.ErrorPages{sim.ErrorPagesS3, sim.ErrorPagesPlain, sim.ErrorPagesHTML} {
		t.Run(pages.String(), func(t *testing.T) {
			var got []string // the codes the SDK returned, call by call
			cfg := sim.Config{Seed: 1, Nodes: 1, Duration: time.Second, Bucket: "b", Key: "k", WriteInterval: time.Second,
				S3Request: sim.Latency{Min: time.Millisecond, Max: time.Millisecond}, S3Response: sim.Latency{Min: time.Millisecond, Max: time.Millisecond},
				ErrorPages: pages, WrapStore: sdkhttp.Wrap,
				Candidate: func(ctx context.Context, env sim.Env) error {
					code := func(err error) {
						var api smithy.APIError
						switch {
						case errors.As(err, &api):
							got = append(got, api.ErrorCode())
						default:
							got = append(got, "no code")
						}
					}
					_, err := env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &env.Bucket, Key: &env.Key})
					code(err)
					_, err = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: &env.Bucket, Key: &env.Key})
					code(err)
					_, err = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: &env.Bucket, Key: &env.Key, IfMatch: aws.String(`"0"`),
						Body: strings.NewReader("x")})
					code(err)
					return nil
				}}
			run := func(keep bool) *sim.Result {
				cfg.KeepTrace = keep
				res, err := sim.Run(cfg)
				if err != nil || res.Failure != nil {
					t.Fatalf("run: %v %v", err, res.Failure)
				}
				return res
			}
			res := run(true)
			var printed, s3codes []string
			for _, e := range res.Trace.Events {
				line := e.String()
				_, answer, _ := strings.Cut(line, " -> ")
				_, code, _ := strings.Cut(answer, " ")
				switch e.Kind {
				case sim.EvS3Return:
					printed = append(printed, code)
				case sim.EvS3Apply:
					s3codes = append(s3codes, code)
				}
			}
			if strings.Join(printed, ",") != strings.Join(got, ",") {
				t.Errorf("the trace's answers print %q; the SDK returned %q", printed, got)
			}
			if want := "NotFound,NoSuchKey,NoSuchKey"; strings.Join(s3codes, ",") != want {
				t.Errorf("S3's answers print %q, want %s", s3codes, want)
			}
			if a, b := res.Hash(), run(false).Hash(); a != b {
				t.Errorf("the hash with the trace kept is %x, without %x", a, b)
			}
		})
	}
}
