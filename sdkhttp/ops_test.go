package sdkhttp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sdkhttp"
	"github.com/s3lease/s3lease/sim"
)

// keyFaults gives every request on a key whose name starts with "fault-"
// the fault its name says.
type keyFaults struct{}

func (keyFaults) RequestFault(_ *sim.World, r sim.Request) sim.RequestFault {
	switch {
	case strings.HasPrefix(r.Key, "fault-slowdown"):
		return sim.RequestFault{Fate: sim.RefusedBefore, Err: sim.SlowDown}
	case strings.HasPrefix(r.Key, "fault-conflict"):
		return sim.RequestFault{Fate: sim.RefusedBefore, Err: sim.ConditionalRequestConflict}
	case strings.HasPrefix(r.Key, "fault-failed-after"):
		return sim.RequestFault{Fate: sim.FailedAfter, Err: sim.InternalError}
	case strings.HasPrefix(r.Key, "fault-unreachable"):
		return sim.RequestFault{Fate: sim.Unreachable}
	case strings.HasPrefix(r.Key, "fault-lost"):
		return sim.RequestFault{Fate: sim.Lost}
	case strings.HasPrefix(r.Key, "fault-dropped"):
		return sim.RequestFault{Fate: sim.Dropped}
	case strings.HasPrefix(r.Key, "fault-slow"):
		return sim.RequestFault{ExtraResponse: 3 * time.Second}
	}
	return sim.RequestFault{}
}

// step is one call of the script and what came of it.
type step struct {
	name   string
	result string // outputs and error, as the protocol can observe them
	text   string // the error's text
}

// script runs every operation of sim.S3Client in the ways the
// simulated store distinguishes, and records what each returned.
func script(ctx context.Context, env sim.Env, clk protocol.Clock, edge bool) []step {
	b := aws.String(env.Bucket)
	var steps []step
	etags := map[string]string{}
	record := func(name string, out any, err error) {
		steps = append(steps, step{name: name, result: describeOut(out, etags) + " | " + describeErr(err), text: errText(err)})
	}
	put := func(name, key, body string, mod func(*s3.PutObjectInput)) {
		in := &s3.PutObjectInput{Bucket: b, Key: aws.String(key), Body: bytes.NewReader([]byte(body)),
			ContentLength: aws.Int64(int64(len(body)))}
		if mod != nil {
			mod(in)
		}
		out, err := env.Store.PutObject(ctx, in)
		if err == nil {
			etags[name] = *out.ETag
		}
		record(name, out, err)
	}
	get := func(name, key string, mod func(*s3.GetObjectInput)) {
		in := &s3.GetObjectInput{Bucket: b, Key: aws.String(key)}
		if mod != nil {
			mod(in)
		}
		out, err := env.Store.GetObject(ctx, in)
		record(name, out, err)
	}
	head := func(name, key string, mod func(*s3.HeadObjectInput)) {
		in := &s3.HeadObjectInput{Bucket: b, Key: aws.String(key)}
		if mod != nil {
			mod(in)
		}
		out, err := env.Store.HeadObject(ctx, in)
		record(name, out, err)
	}
	del := func(name, key string, mod func(*s3.DeleteObjectInput)) {
		in := &s3.DeleteObjectInput{Bucket: b, Key: aws.String(key)}
		if mod != nil {
			mod(in)
		}
		out, err := env.Store.DeleteObject(ctx, in)
		record(name, out, err)
	}
	list := func(name string, in *s3.ListObjectsV2Input) {
		if in.Bucket == nil {
			in.Bucket = b
		}
		out, err := env.Store.ListObjectsV2(ctx, in)
		record(name, out, err)
	}
	etag := func(name string) *string { return aws.String(etags[name]) }

	get("get-missing", "k", nil)
	head("head-missing", "k", nil)
	del("delete-missing", "k", nil)
	put("create", "k", "v1", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
	put("create-again", "k", "v1", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
	put("put-wrong-etag", "k", "v2", func(in *s3.PutObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	put("put-unquoted-etag", "k", "v2", func(in *s3.PutObjectInput) {
		in.IfMatch = aws.String(strings.Trim(etags["create"], `"`))
		in.ContentType = aws.String("application/json")
		in.Metadata = map[string]string{"Owner": " n0 ", "term": "7"}
	})
	put("put-if-match-missing", "other", "x", func(in *s3.PutObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	put("put-if-none-match-etag", "k", "x", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String(`"0123"`) })
	put("put-both", "k", "x", func(in *s3.PutObjectInput) {
		in.IfNoneMatch = aws.String("*")
		in.IfMatch = aws.String("*")
	})
	put("put-empty-if-match", "k2", "", func(in *s3.PutObjectInput) { in.IfMatch = aws.String("") })
	put("put-unconditional", "dir/a", "a", nil)
	put("put-unconditional-b", "dir/sub/b", "bb", nil)
	put("put-odd-key", "odd key/ü+&=?#%.json", "odd", nil)

	cur := etag("put-unquoted-etag")
	get("get", "k", nil)
	get("get-if-match", "k", func(in *s3.GetObjectInput) { in.IfMatch = cur })
	get("get-if-match-wrong", "k", func(in *s3.GetObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	get("get-if-none-match", "k", func(in *s3.GetObjectInput) { in.IfNoneMatch = cur })
	get("get-if-none-match-star", "k", func(in *s3.GetObjectInput) { in.IfNoneMatch = aws.String("*") })
	get("get-if-modified-since-later", "k", func(in *s3.GetObjectInput) {
		in.IfModifiedSince = aws.Time(clk.Now().Add(time.Hour))
	})
	get("get-if-modified-since-earlier", "k", func(in *s3.GetObjectInput) {
		in.IfModifiedSince = aws.Time(clk.Now().Add(-time.Hour))
	})
	get("get-if-unmodified-since-earlier", "k", func(in *s3.GetObjectInput) {
		in.IfUnmodifiedSince = aws.Time(clk.Now().Add(-time.Hour))
	})
	get("get-odd-key", "odd key/ü+&=?#%.json", nil)
	get("get-no-bucket", "k", func(in *s3.GetObjectInput) { in.Bucket = aws.String("no-such-bucket") })
	head("head", "k", nil)
	head("head-if-match-wrong", "k", func(in *s3.HeadObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	head("head-if-none-match", "k", func(in *s3.HeadObjectInput) { in.IfNoneMatch = cur })
	head("head-no-bucket", "k", func(in *s3.HeadObjectInput) { in.Bucket = aws.String("no-such-bucket") })

	list("list", &s3.ListObjectsV2Input{})
	list("list-prefix", &s3.ListObjectsV2Input{Prefix: aws.String("dir/")})
	list("list-delimiter", &s3.ListObjectsV2Input{Delimiter: aws.String("/")})
	list("list-start-after", &s3.ListObjectsV2Input{StartAfter: aws.String("dir/a")})
	list("list-max-0", &s3.ListObjectsV2Input{MaxKeys: aws.Int32(0)})
	in := &s3.ListObjectsV2Input{Bucket: b, MaxKeys: aws.Int32(1), Delimiter: aws.String("/")}
	for i := 0; i < 5; i++ {
		out, err := env.Store.ListObjectsV2(ctx, in)
		record(fmt.Sprintf("list-page-%d", i), out, err)
		if err != nil || out.NextContinuationToken == nil {
			break
		}
		in = &s3.ListObjectsV2Input{Bucket: b, MaxKeys: aws.Int32(1), Delimiter: aws.String("/"), ContinuationToken: out.NextContinuationToken}
	}
	list("list-negative-max", &s3.ListObjectsV2Input{MaxKeys: aws.Int32(-1)})
	list("list-bad-token", &s3.ListObjectsV2Input{ContinuationToken: aws.String("not a token")})
	list("list-no-bucket", &s3.ListObjectsV2Input{Bucket: aws.String("no-such-bucket")})

	del("delete-wrong-etag", "k", func(in *s3.DeleteObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	del("delete-if-match-missing", "nothing", func(in *s3.DeleteObjectInput) { in.IfMatch = aws.String(`"0123"`) })
	del("delete-if-match-star", "k2", func(in *s3.DeleteObjectInput) { in.IfMatch = aws.String("*") })
	del("delete-if-match", "k", func(in *s3.DeleteObjectInput) { in.IfMatch = cur })
	get("get-deleted", "k", nil)

	// Faults, aimed by key name.
	put("fault-slowdown-put", "fault-slowdown", "x", nil)
	head("fault-slowdown-head", "fault-slowdown", nil)
	put("fault-conflict-put", "fault-conflict", "x", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
	put("fault-failed-after-put", "fault-failed-after", "x", func(in *s3.PutObjectInput) { in.IfNoneMatch = aws.String("*") })
	get("fault-failed-after-get", "fault-failed-after", nil)
	head("fault-failed-after-head", "fault-failed-after", nil)
	put("fault-unreachable-put", "fault-unreachable", "x", nil)
	get("fault-unreachable-get", "fault-unreachable", nil)
	list("fault-unreachable-list", &s3.ListObjectsV2Input{Prefix: aws.String("fault-unreachable")})
	put("fault-lost-put", "fault-lost", "x", nil)  // ends by the client timeout
	head("fault-lost-head", "fault-lost", nil)     // likewise
	get("fault-dropped-get", "fault-dropped", nil) // likewise
	tctx, cancel := clk.WithTimeout(ctx, 500*time.Millisecond)
	out, err := env.Store.PutObject(tctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("fault-slow"), Body: bytes.NewReader(nil)})
	cancel()
	record("fault-slow-put-deadline", out, err)
	if !edge {
		return steps
	}

	// The calls that come out differently through the SDK (see
	// edgeDifferences).
	put("put-write-offset", "k", "x", func(in *s3.PutObjectInput) { in.WriteOffsetBytes = aws.Int64(3) })
	get("get-version", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String("v1") })
	get("get-range", "k", func(in *s3.GetObjectInput) { in.Range = aws.String("bytes=0-1") })
	list("list-encoding", &s3.ListObjectsV2Input{EncodingType: "url"})
	del("delete-version", "k", func(in *s3.DeleteObjectInput) { in.VersionId = aws.String("v1") })
	out3, err := env.Store.ListObjectsV2(ctx, &s3.ListObjectsV2Input{})
	record("list-without-bucket", out3, err)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	out2, err := env.Store.GetObject(cctx, &s3.GetObjectInput{Bucket: b, Key: aws.String("k")})
	record("get-cancelled-before", out2, err)
	return steps
}

// describeOut describes an output as the protocol sees it.
func describeOut(out any, etags map[string]string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	s := func(v *string) string {
		if v == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%q", *v)
	}
	meta := func(m map[string]string) string {
		keys := make([]string, 0, len(m))
		for k, v := range m {
			keys = append(keys, k+"="+v)
		}
		sort.Strings(keys)
		return strings.Join(keys, ",")
	}
	switch o := out.(type) {
	case *s3.PutObjectOutput:
		if o != nil {
			p("put etag=%s", s(o.ETag))
		}
	case *s3.GetObjectOutput:
		if o != nil {
			body, err := io.ReadAll(o.Body)
			_ = o.Body.Close()
			p("get body=%q err=%v etag=%s len=%d type=%s lm=%v meta=%s ranges=%s", body, err, s(o.ETag), aws.ToInt64(o.ContentLength),
				s(o.ContentType), aws.ToTime(o.LastModified).UTC(), meta(o.Metadata), s(o.AcceptRanges))
		}
	case *s3.HeadObjectOutput:
		if o != nil {
			p("head etag=%s len=%d type=%s lm=%v meta=%s ranges=%s", s(o.ETag), aws.ToInt64(o.ContentLength),
				s(o.ContentType), aws.ToTime(o.LastModified).UTC(), meta(o.Metadata), s(o.AcceptRanges))
		}
	case *s3.DeleteObjectOutput:
		if o != nil {
			p("deleted")
		}
	case *s3.ListObjectsV2Output:
		if o != nil {
			p("list name=%s prefix=%s delim=%s start=%s token=%s next=%s count=%d max=%d trunc=%v enc=%q",
				s(o.Name), s(o.Prefix), s(o.Delimiter), s(o.StartAfter), s(o.ContinuationToken), s(o.NextContinuationToken),
				aws.ToInt32(o.KeyCount), aws.ToInt32(o.MaxKeys), aws.ToBool(o.IsTruncated), o.EncodingType)
			for _, c := range o.Contents {
				p(" [%s %s %v %d %s]", s(c.Key), s(c.ETag), aws.ToTime(c.LastModified).UTC(), aws.ToInt64(c.Size), c.StorageClass)
			}
			for _, c := range o.CommonPrefixes {
				p(" (%s)", s(c.Prefix))
			}
		}
	}
	return b.String()
}

// describeErr describes an error by everything the protocol can ask of it
// but its text.
func describeErr(err error) string {
	if err == nil {
		return "ok"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "class=%v", protocol.ClassifyError(err))
	var op *smithy.OperationError
	if errors.As(err, &op) {
		fmt.Fprintf(&b, " op=%s/%s", op.Service(), op.Operation())
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		fmt.Fprintf(&b, " api=%T code=%s msg=%q fault=%v", api, api.ErrorCode(), api.ErrorMessage(), api.ErrorFault())
	}
	var st interface{ HTTPStatusCode() int }
	if errors.As(err, &st) {
		fmt.Fprintf(&b, " status=%d", st.HTTPStatusCode())
	}
	var rid interface{ ServiceRequestID() string }
	if errors.As(err, &rid) {
		fmt.Fprintf(&b, " rid=%s", rid.ServiceRequestID())
	}
	var hid interface{ ServiceHostID() string }
	if errors.As(err, &hid) {
		fmt.Fprintf(&b, " hid=%s", hid.ServiceHostID())
	}
	var ne net.Error
	if errors.As(err, &ne) {
		fmt.Fprintf(&b, " net-timeout=%v", ne.Timeout())
	}
	var ce *smithy.CanceledError
	var se *smithyhttp.RequestSendError
	var me *retry.MaxAttemptsError
	var oe *net.OpError
	fmt.Fprintf(&b, " canceled=%v send=%v max-attempts=%v dial=%v deadline=%v ctx-canceled=%v retryable=%v",
		errors.As(err, &ce), errors.As(err, &se), errors.As(err, &me), errors.As(err, &oe),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		retry.NewStandard().IsErrorRetryable(err))
	if me != nil {
		fmt.Fprintf(&b, " attempts=%d", me.Attempt)
	}
	return b.String()
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// runScript runs the script on one node, through the SDK or not, and
// returns its steps and the run's trace hash.
func runScript(t *testing.T, sdk bool, attempts int, edge bool) ([]step, uint64, int) {
	t.Helper()
	var steps []step
	cfg := sim.Config{
		Seed: 7, Nodes: 1, Duration: time.Hour, Bucket: "sim-bucket", Key: "k",
		WriteInterval: time.Second,
		S3Request:     sim.Latency{Min: time.Millisecond, Max: 20 * time.Millisecond},
		S3Response:    sim.Latency{Min: time.Millisecond, Max: 20 * time.Millisecond},
		// Lost and dropped answers end by the client timeout.
		S3ClientTimeout: 2 * time.Second,
		S3Attempts:      attempts,
		Candidate: func(ctx context.Context, env sim.Env) error {
			steps = script(ctx, env, env.Clock, edge)
			return nil
		},
		Setup:     func(w *sim.World) { w.SetFaults(keyFaults{}) },
		KeepTrace: true,
	}
	if sdk {
		cfg.WrapStore = sdkhttp.Wrap
	}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil {
		t.Fatalf("run failed: %v\n%s", res.Failure, res.Failure.Stack)
	}
	sends := 0
	for _, e := range res.Trace.Events {
		if e.Kind == sim.EvS3Send {
			sends++
		}
	}
	return steps, res.Hash(), sends
}

// transportChain is what the SDK wraps around every failure that is not an
// S3 answer: its response errors around an empty response (status 0, no
// request id). The simulator's fast path builds that chain for a client
// timeout only, not for a refused connection or a cancelled call.
const transportChain = " status=0 rid= hid="

// notSent are the calls of the edge script that the real SDK does not
// send, and the fast path does: an input the SDK's validation refuses
// (list-without-bucket: the caller sees the same error, but S3 counts a
// request, issues a request id and the trace shows a send and an apply),
// and a call whose context is already done (get-cancelled-before).
const notSent = 2

// edgeDifferences are the calls whose outcome through the real SDK is not
// the fast path's, and why.
var edgeDifferences = map[string]string{
	"put-write-offset":     "an option the store does not model: the SDK path returns it as a transport failure (RequestSendError around *url.Error)",
	"get-version":          "an option the store does not model: likewise",
	"get-range":            "an option the store does not model: likewise",
	"list-encoding":        "an option the store does not model: likewise",
	"delete-version":       "an option the store does not model: likewise",
	"get-cancelled-before": "the SDK's retry middleware does not send a request whose context is already done (plain context.Canceled, no CanceledError); the fast path sends it, and a write would be applied",
}

// TestOperationsAgree runs every operation both ways, directly on the
// simulated store and through the real SDK over Client, with and without
// the simulator's retries, and requires the same outputs and the same
// errors, as far as a caller can tell them apart but by their text, and the
// same trace. Then it runs the calls that differ, and checks that they
// differ only as edgeDifferences says: in the error's chain, never in its
// protocol.ErrorClass.
func TestOperationsAgree(t *testing.T) {
	for _, attempts := range []int{0, 3} {
		t.Run(fmt.Sprintf("attempts=%d", attempts), func(t *testing.T) {
			fast, fastHash, _ := runScript(t, false, attempts, false)
			sdk, sdkHash, _ := runScript(t, true, attempts, false)
			compareSteps(t, fast, sdk, nil)
			if fastHash != sdkHash {
				t.Errorf("trace hash %#x on the fast path, %#x through the SDK", fastHash, sdkHash)
			}
			again, againHash, _ := runScript(t, true, attempts, false)
			compareSteps(t, sdk, again, nil)
			if againHash != sdkHash {
				t.Errorf("the SDK path is not deterministic: trace hash %#x, then %#x", sdkHash, againHash)
			}

			fast, _, fastSends := runScript(t, false, attempts, true)
			sdk, _, sdkSends := runScript(t, true, attempts, true)
			compareSteps(t, fast, sdk, edgeDifferences)
			if fastSends-sdkSends != notSent {
				t.Errorf("the fast path sent %d requests, the SDK %d; want %d more on the fast path", fastSends, sdkSends, notSent)
			}
		})
	}
}

// compareSteps requires the same steps and results, but for the named
// differences, where it requires the same error class.
func compareSteps(t *testing.T, fast, sdk []step, differences map[string]string) {
	t.Helper()
	if len(fast) != len(sdk) {
		t.Fatalf("%d steps on the fast path, %d through the SDK", len(fast), len(sdk))
	}
	for i := range fast {
		f, s := fast[i], sdk[i]
		if f.name != s.name {
			t.Fatalf("step %d is %s on the fast path, %s through the SDK", i, f.name, s.name)
		}
		fr, sr := f.result, s.result
		if !strings.Contains(fr, transportChain) {
			sr = strings.Replace(sr, transportChain, "", 1)
		}
		if why, ok := differences[f.name]; ok {
			if class(fr) != class(sr) {
				t.Errorf("%s: error class %s on the fast path, %s through the SDK", f.name, class(fr), class(sr))
			}
			if fr == sr {
				t.Errorf("%s: no longer differs (%s); update edgeDifferences", f.name, why)
			} else if testing.Verbose() {
				t.Logf("%s differs, as expected: %s\n fast: %s\n  sdk: %s", f.name, why, f.text, s.text)
			}
			continue
		}
		if fr != sr {
			t.Errorf("%s:\n fast: %s\n  sdk: %s", f.name, fr, sr)
		}
		if f.text != s.text && testing.Verbose() {
			t.Logf("%s: error text differs:\n fast: %s\n  sdk: %s", f.name, f.text, s.text)
		}
	}
}

// class extracts the error class of a step's result.
func class(result string) string {
	_, after, _ := strings.Cut(result, "class=")
	c, _, _ := strings.Cut(after, " ")
	return c
}
