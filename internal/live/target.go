package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// target is the store a run talks to, behind the proxy: one endpoint, or
// several gateways of one store.
type target struct {
	urls   []*url.URL
	region string
	creds  aws.CredentialsProvider
	// desc names the store for the report; it holds no credentials.
	desc     string
	embedded bool
	close    func()
}

// gofakes3Module is the module of the embedded server.
const gofakes3Module = "github.com/johannesboyne/gofakes3"

// startTarget starts the embedded gofakes3 server, or describes
// cfg.Endpoints with their region and credentials.
func startTarget(cfg Config) (*target, error) {
	if len(cfg.Endpoints) == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("live: embedded gofakes3: listen on loopback: %w", err)
		}
		srv := &http.Server{
			Handler:           gofakes3.New(s3mem.New()).Server(),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(slog.DiscardHandler, slog.LevelError),
		}
		go func() { _ = srv.Serve(ln) }()
		return &target{
			urls:   []*url.URL{{Scheme: "http", Host: ln.Addr().String()}},
			region: DefaultRegion,
			// gofakes3 checks no signature; these sign nothing secret.
			creds:    credentials.NewStaticCredentialsProvider("AKIDLIVE", "live-placeholder-secret", ""),
			desc:     "embedded gofakes3 server (" + moduleVersion(gofakes3Module) + ", in-memory s3mem backend) on " + ln.Addr().String(),
			embedded: true,
			close:    func() { _ = srv.Close() },
		}, nil
	}
	urls, err := parseEndpoints(cfg.Endpoints)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(urls))
	for i, u := range urls {
		names[i] = redactURL(u)
	}
	region := cfg.Region
	for _, v := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if region == "" {
			region = os.Getenv(v)
		}
	}
	if region == "" {
		region = DefaultRegion
	}
	creds := cfg.Credentials
	if creds == nil {
		id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		if id == "" || secret == "" {
			return nil, fmt.Errorf("%w: endpoint %s needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN if temporary), or Config.Credentials",
				ErrInvalidConfig, names[0])
		}
		creds = credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN"))
	}
	desc := "endpoint " + names[0]
	if len(names) > 1 {
		desc = "endpoints " + strings.Join(names, ", ") + " (electors spread over them)"
	}
	return &target{urls: urls, region: region, creds: creds, desc: desc + " (region " + region + ")", close: func() {}}, nil
}

// redactURL is u without user information, path or query.
func redactURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// moduleVersion is "path version" of a dependency of the running binary,
// or the path alone when the binary carries no dependency list (tests).
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Path + " " + d.Version
			}
		}
	}
	return path
}

// client returns an *s3.Client for the target's endpoint of node (node
// mod the number of endpoints). With httpClient nil it talks to the store
// directly (setup and cleanup, which the history does not hold); a node's
// client passes its transport to the proxy and the recorder's stack option.
func (t *target) client(cfg Config, node int, httpClient *http.Client, apiOptions ...func(*middleware.Stack) error) *s3.Client {
	o := s3.Options{
		Region:       t.region,
		BaseEndpoint: aws.String(t.urls[node%len(t.urls)].String()),
		UsePathStyle: !cfg.VirtualHosted,
		Credentials:  t.creds,
		APIOptions:   apiOptions,
	}
	if httpClient != nil {
		o.HTTPClient = httpClient
	} else {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	return s3.New(o)
}

// createBucket creates the bucket, accepting one the caller already owns.
func (t *target) createBucket(ctx context.Context, c *s3.Client, bucket string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	in := &s3.CreateBucketInput{Bucket: aws.String(bucket)}
	if t.region != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(t.region)}
	}
	_, err := c.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	var api smithy.APIError
	switch {
	case err == nil, errors.As(err, &owned):
		return nil
	case errors.As(err, &api) && api.ErrorCode() == "BucketAlreadyOwnedByYou":
		return nil
	}
	return fmt.Errorf("live: create bucket %s: %w", bucket, err)
}
