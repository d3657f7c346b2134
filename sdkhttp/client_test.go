package sdkhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/s3lease/s3lease/sdkhttp"
)

// recorder is a sim.S3Client that records the inputs it is given
// and answers every call with success.
type recorder struct {
	puts   []*s3.PutObjectInput
	bodies [][]byte
	calls  int
}

func (r *recorder) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	r.calls++
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	r.puts = append(r.puts, in)
	r.bodies = append(r.bodies, body)
	return &s3.PutObjectOutput{ETag: aws.String(`"etag"`)}, nil
}

func (r *recorder) GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	r.calls++
	return &s3.GetObjectOutput{Body: io.NopCloser(strings.NewReader("body")), ContentLength: aws.Int64(4), ETag: aws.String(`"etag"`)}, nil
}

func (r *recorder) HeadObject(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	r.calls++
	return &s3.HeadObjectOutput{ETag: aws.String(`"etag"`)}, nil
}

func (r *recorder) DeleteObject(context.Context, *s3.DeleteObjectInput, ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	r.calls++
	return &s3.DeleteObjectOutput{}, nil
}

func (r *recorder) ListObjectsV2(context.Context, *s3.ListObjectsV2Input, ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	r.calls++
	return &s3.ListObjectsV2Output{}, nil
}

// TestDefaultClient sends requests from a client with the SDK's defaults
// but the HTTP client and the retryer: virtual-hosted addressing at the
// SDK's own endpoint, and PutObject's default trailing CRC32 checksum in an
// aws-chunked body, which Do decodes and verifies.
func TestDefaultClient(t *testing.T) {
	rec := &recorder{}
	client := s3.New(s3.Options{
		Region:      "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient:  &spy{next: sdkhttp.HTTPClient(rec)},
		Retryer:     aws.NopRetryer{},
		// What s3.NewFromConfig sets by default.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenSupported,
	})
	ctx := context.Background()
	body := strings.Repeat("payload ", 100)
	out, err := client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("my-bucket"), Key: aws.String("dir/leader.json"),
		Body: strings.NewReader(body), IfNoneMatch: aws.String("*"),
	})
	if err != nil {
		t.Fatal(err)
	}
	spy := client.Options().HTTPClient.(*spy)
	if !strings.Contains(spy.last.Header.Get("Content-Encoding"), "aws-chunked") || spy.last.URL.Host != "my-bucket.s3.eu-west-1.amazonaws.com" {
		t.Fatalf("the SDK sent %s %s with Content-Encoding %q; want a virtual-hosted aws-chunked request",
			spy.last.Method, spy.last.URL, spy.last.Header.Get("Content-Encoding"))
	}
	if aws.ToString(out.ETag) != `"etag"` || len(rec.puts) != 1 || string(rec.bodies[0]) != body ||
		aws.ToString(rec.puts[0].Bucket) != "my-bucket" || aws.ToString(rec.puts[0].Key) != "dir/leader.json" ||
		aws.ToString(rec.puts[0].IfNoneMatch) != "*" {
		t.Fatalf("store got %+v with body %q", rec.puts, rec.bodies)
	}
	got, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	if string(b) != "body" {
		t.Fatalf("GetObject body %q", b)
	}
}

// spy records the last request it passes on.
type spy struct {
	next aws.HTTPClient
	last *http.Request
}

func (s *spy) Do(req *http.Request) (*http.Response, error) {
	s.last = req
	return s.next.Do(req)
}

// TestChecksumMismatch sends an aws-chunked body whose trailing checksum is
// wrong: Do refuses it without calling the store.
func TestChecksumMismatch(t *testing.T) {
	rec := &recorder{}
	body := "5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"
	req, err := http.NewRequest(http.MethodPut, sdkhttp.Endpoint+"/b/k?x-id=PutObject", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Encoding", "aws-chunked")
	if _, err := sdkhttp.HTTPClient(rec).Do(req); err == nil || !strings.Contains(err.Error(), "x-amz-checksum-crc32") || rec.calls != 0 {
		t.Fatalf("Do = %v with %d store calls; want a checksum error and none", err, rec.calls)
	}
	req, _ = http.NewRequest(http.MethodPut, sdkhttp.Endpoint+"/b/k?x-id=PutObject",
		strings.NewReader("5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n"))
	req.Header.Set("Content-Encoding", "aws-chunked")
	if resp, err := sdkhttp.HTTPClient(rec).Do(req); err != nil || resp.StatusCode != 200 || string(rec.bodies[0]) != "hello" {
		t.Fatalf("Do = %v, %v; store got %q", resp, err, rec.bodies)
	}
}

// TestRefused checks what Do refuses without calling the store, and that
// the SDK does not retry it: a client that retries on its own, and
// operations that are not in sim.S3Client.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	b, k := aws.String("bucket"), aws.String("key")
	for name, call := range map[string]func(*s3.Client) error{
		"retrying client": func(c *s3.Client) error {
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: k}, func(o *s3.Options) {
				o.Retryer = retry.NewStandard()
			})
			return err
		},
		"PutObjectTagging": func(c *s3.Client) error {
			_, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: b, Key: k, Tagging: &types.Tagging{TagSet: []types.Tag{}}})
			return err
		},
		"HeadBucket": func(c *s3.Client) error {
			_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: b})
			return err
		},
		"CopyObject": func(c *s3.Client) error {
			_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: k, CopySource: aws.String("bucket/other")})
			return err
		},
	} {
		rec := &recorder{}
		attempts := 0
		c := sdkhttp.NewClient(rec, func(o *s3.Options) {
			next := o.HTTPClient
			o.HTTPClient = doFunc(func(r *http.Request) (*http.Response, error) { attempts++; return next.Do(r) })
		})
		err := call(c)
		if !errors.Is(err, sdkhttp.ErrUnsupported) || rec.calls != 0 || attempts != 1 {
			t.Errorf("%s: err = %v after %d attempts, %d store calls; want ErrUnsupported after 1 attempt and none", name, err, attempts, rec.calls)
		}
	}
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
