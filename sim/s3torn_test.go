package sim

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// answer is what a GetObject answered: its ETag and body.
type answer struct{ etag, body string }

// tornWorld runs a writer (node 0, a new body every 15 ms) and two readers
// (GetObject after GetObject) for two seconds with the store tearing ppm
// of the raced reads, and returns the result and each reader's answers.
func tornWorld(t *testing.T, ppm int64) (*Result, [][]answer) {
	t.Helper()
	got := make([][]answer, 3)
	cfg := testConfig(3, 2*time.Second, func(ctx context.Context, env Env) error {
		for i := 0; ctx.Err() == nil; i++ {
			if env.Node == 0 {
				_, _ = env.Store.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key),
					Body: bytes.NewReader([]byte("version " + strconv.Itoa(i)))})
				_ = env.Clock.Sleep(ctx, 15*time.Millisecond)
				continue
			}
			out, err := env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(out.Body)
			if int64(len(b)) != aws.ToInt64(out.ContentLength) {
				t.Errorf("n%d: a body of %d bytes announced as %d", env.Node, len(b), aws.ToInt64(out.ContentLength))
			}
			got[env.Node] = append(got[env.Node], answer{aws.ToString(out.ETag), string(b)})
		}
		return nil
	})
	cfg.TornReadPPM = ppm
	return mustRun(t, cfg), got
}

// TestTornReads: a store that tears raced reads (Config.TornReadPPM)
// answers some GetObjects with the body of one version and the ETag of
// another, both of them versions written, either way round; only reads a
// write raced (one applied between the read's send and its answer); each
// recorded as live mode records it (the answer's ETag, TornBodyETag the
// body's version's), as a FaultTornRead on the answer's trace event and as
// a torn-read fault span of the reader. Every other read is a version
// whole. At 0 ppm nothing is torn, at 30% fewer than at 100%, and a seed
// gives the same tears every time.
func TestTornReads(t *testing.T) {
	counts := map[int64]int{}
	for _, ppm := range []int64{0, 300_000, 1_000_000} {
		res, got := tornWorld(t, ppm)
		h := res.History
		written := map[string]string{} // ETag -> body
		applied := map[uint64]time.Duration{}
		torn := map[uint64]Event{}
		for _, e := range res.Trace.Events {
			switch {
			case e.Kind == EvS3Apply:
				applied[e.Call] = e.At
			case e.Kind == EvS3Return && e.Fault == FaultTornRead:
				torn[e.Call] = e
			}
		}
		var puts []time.Duration // apply instants of the writes
		for _, e := range res.Trace.Events {
			if e.Kind == EvS3Apply && e.Op == OpPutObject {
				puts = append(puts, e.At)
			}
		}
		for _, op := range h.S3 {
			if op.Op == OpPutObject && op.Status == 200 {
				written[op.ETag] = op.Body
			}
		}
		spans := 0
		for _, f := range h.Faults {
			if f.Kind == "torn-read" {
				spans++
			}
		}
		n, ways := 0, map[bool]int{}
		for node := 1; node <= 2; node++ {
			k := 0
			for _, op := range h.S3 {
				if op.Node != node || op.Op != OpGetObject || op.Status != 200 || op.Return < 0 {
					continue
				}
				a := got[node][k]
				k++
				if a.etag != op.ETag {
					t.Fatalf("%d ppm: n%d's answer %q is recorded as %q", ppm, node, a.etag, op.ETag)
				}
				if op.TornBodyETag == "" {
					if written[a.etag] != a.body {
						t.Fatalf("%d ppm: a read not marked torn answered %q under %s, written with %q", ppm, a.body, a.etag, written[a.etag])
					}
					continue
				}
				n++
				if written[op.TornBodyETag] != a.body || op.TornBodyETag == op.ETag || written[op.ETag] == "" {
					t.Fatalf("%d ppm: torn read %+v answered %q", ppm, op, a.body)
				}
				raced := false
				for _, at := range puts {
					raced = raced || at >= op.Call && at <= op.Return
				}
				if !raced {
					t.Fatalf("%d ppm: torn read %+v, sent at %v and answered at %v, which no write raced", ppm, op, op.Call, op.Return)
				}
				// The body is the older version's, or the newer's.
				ways[new(Store).etag([]byte(a.body)) == op.TornBodyETag && indexOf(h, op.TornBodyETag) < indexOf(h, op.ETag)]++
			}
		}
		if n != len(torn) || n != spans {
			t.Fatalf("%d ppm: %d torn reads, %d torn answers in the trace, %d fault spans", ppm, n, len(torn), spans)
		}
		counts[ppm] = n
		if ppm == 1_000_000 && (ways[true] == 0 || ways[false] == 0) {
			t.Errorf("torn reads with the older body: %d, with the newer: %d; want both", ways[true], ways[false])
		}
		if ppm == 1_000_000 {
			again, _ := tornWorld(t, ppm)
			if again.Hash() != res.Hash() {
				t.Errorf("the same seed tore differently")
			}
		}
	}
	t.Logf("torn reads at 0, 30%% and 100%% of the raced reads: %d, %d, %d", counts[0], counts[300_000], counts[1_000_000])
	if counts[0] != 0 || counts[300_000] == 0 || counts[300_000] >= counts[1_000_000] {
		t.Errorf("torn reads at 0, 30%% and 100%%: %v", counts)
	}
}

// indexOf is the position in h.S3 of the PutObject that wrote etag.
func indexOf(h *History, etag string) int {
	for i, op := range h.S3 {
		if op.Op == OpPutObject && op.Status == 200 && op.ETag == etag {
			return i
		}
	}
	return -1
}
