package comparison

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// stopGrace is how much fake time the electors get, once asked to stop at
// the end of a run, to return; a run whose electors take longer fails.
const stopGrace = time.Minute

// RunSynctest runs w once in a testing/synctest bubble, with seed seeding
// its latencies and its electors' entropy, and returns the history it
// recorded. It must be called outside any bubble.
//
// Inside the bubble, every elector is protocol.NewElector with
// protocol.RealClock, the production clock, created in the bubble so that
// time.Now and time.Since read the bubble's fake clock; Clock.Sleep,
// WithTimeout and Go are the time package, context.WithTimeout and go
// statements, all faked by synctest. Each elector runs Run on a goroutine
// of its own. S3 is one sim.Store (the simulator's, used without the
// simulator) behind a mutex: each request is applied atomically after its
// request leg's latency (a time.AfterFunc), and its answer is delivered
// after its response leg's, unless the caller's context ends first; then
// the call returns the SDK's cancellation error and the request still
// applies when it arrives, as in the simulator. A leader's application
// writes to a protocol.Fence every w.WriteInterval with the fence's
// latencies, as the simulator's does. Latencies are drawn with
// sim.Latency.Sample from one math/rand/v2 PCG per run.
//
// The history is recorded as the simulator records it, in true time (the
// bubble's time since the start): terms from OnStartedLeading to the end
// of its context, fenced writes at the instant the fence judged them, and
// S3 requests from their send to their answer (Return -1 without one). At
// w.Duration the record closes (open terms stay open, later events are not
// recorded) and the electors are cancelled; RunSynctest waits, in fake
// time, for them to return.
//
// An error means the run did not complete (an elector failed or did not
// stop); the bubble's own failures are reported through t.
func RunSynctest(t *testing.T, w Workload, seed uint64) (*sim.History, error) {
	var h *sim.History
	var err error
	synctest.Test(t, func(*testing.T) { h, err = runBubble(w, seed) })
	return h, err
}

// runBubble is the body of one run, inside the bubble.
func runBubble(wl Workload, seed uint64) (*sim.History, error) {
	w := &world{
		wl:    wl,
		start: time.Now(),
		store: sim.NewStore(sim.DialectAWS),
		rng:   pcgChooser{rand.New(rand.NewPCG(seed, seed^0x73796e6374657374))},
	}
	w.store.CreateBucket(wl.Bucket)
	w.h.Nodes = wl.Nodes

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errs := make([]error, wl.Nodes)
	var wg sync.WaitGroup
	for i := range wl.Nodes {
		wg.Go(func() { errs[i] = w.runNode(ctx, i, seed) })
	}
	time.Sleep(wl.Duration)
	w.finish()
	cancel()

	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		return nil, fmt.Errorf("comparison: electors did not return within %v of fake time after the end of the run", stopGrace)
	}
	for i, err := range errs {
		if err != nil { // Run returns nil once its context ends
			return nil, fmt.Errorf("comparison: node %d: %w", i, err)
		}
	}
	if w.bug != nil {
		return nil, w.bug
	}
	return &w.h, nil
}

// world is one synctest run's shared state: the store, the fence, the
// latency source and the history, all guarded by mu.
type world struct {
	wl    Workload
	start time.Time

	mu       sync.Mutex
	store    *sim.Store
	fence    protocol.Fence
	rng      pcgChooser
	h        sim.History
	stopping bool
	// bug records an answer that was due before the request applied,
	// which the bubble's time rules out.
	bug error
}

// now is true time: the bubble's time since the start of the run.
func (w *world) now() time.Duration { return time.Since(w.start) }

// finish closes the record at the end of the run: open terms stay open,
// ending at the end; nothing that happens later is recorded.
func (w *world) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopping = true
	w.h.End = w.wl.Duration
	for i := range w.h.Terms {
		if term := &w.h.Terms[i]; term.Open {
			term.End = w.h.End
		}
	}
}

// runNode runs node i's elector until ctx is done.
func (w *world) runNode(ctx context.Context, i int, seed uint64) error {
	identity := "n" + strconv.Itoa(i)
	clock := protocol.NewRealClock()
	e, err := protocol.NewElector(protocol.Config{
		Store:           &client{w: w, node: i},
		Clock:           clock,
		Entropy:         newEntropy(seed, i),
		Bucket:          w.wl.Bucket,
		Key:             w.wl.Key,
		Identity:        identity,
		LeaseDuration:   w.wl.Elector.LeaseDuration,
		RenewDeadline:   w.wl.Elector.RenewDeadline,
		RetryPeriod:     w.wl.Elector.RetryPeriod,
		RequestTimeout:  w.wl.Elector.RequestTimeout,
		ClockDriftPPM:   w.wl.Elector.ClockDriftPPM,
		ReleaseOnCancel: w.wl.Elector.ReleaseOnCancel,
		Callbacks: protocol.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context, lease protocol.Lease) {
				w.lead(ctx, clock, i, identity, lease.Token)
			},
		},
	})
	if err != nil {
		return err
	}
	return e.Run(ctx)
}

// lead is the application, as the simulator's: it records the term and
// writes to the fenced resource under token, waiting WriteInterval on its
// node's clock after each answer, until ctx is done.
func (w *world) lead(ctx context.Context, clock protocol.Clock, node int, identity string, token uint64) {
	w.mu.Lock()
	idx := -1
	if !w.stopping {
		idx = len(w.h.Terms)
		w.h.Terms = append(w.h.Terms, sim.Term{Node: node, Identity: identity, Incarnation: 1,
			Token: token, Start: w.now(), Open: true})
	}
	w.mu.Unlock()
	for ctx.Err() == nil {
		w.fenceWrite(ctx, node, token)
		if clock.Sleep(ctx, w.wl.WriteInterval) != nil {
			break
		}
	}
	w.mu.Lock()
	if idx >= 0 && !w.stopping {
		w.h.Terms[idx].Open = false
		w.h.Terms[idx].End = w.now()
	}
	w.mu.Unlock()
}

// fenceWrite sends one write under token to the fence and waits for the
// answer or for ctx to end. The fence judges the write when it arrives,
// whatever the sender does meanwhile.
func (w *world) fenceWrite(ctx context.Context, node int, token uint64) {
	w.mu.Lock()
	sent := w.now()
	req, resp := w.wl.FenceRequest.Sample(w.rng), w.wl.FenceResponse.Sample(w.rng)
	w.mu.Unlock()
	time.AfterFunc(req, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		accepted := w.fence.Admit(token) == nil
		if !w.stopping {
			w.h.Writes = append(w.h.Writes, sim.FencedWrite{Node: node, Token: token, Sent: sent, Applied: w.now(), Accepted: accepted})
		}
	})
	_ = sleep(ctx, req+resp)
}

// sleep waits for d of fake time or for ctx to end.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// client is one node's S3 client: a protocol.ObjectStore over the
// world's store.
type client struct {
	w    *world
	node int
}

// call runs one request: it records it, applies it after the request
// leg's latency (apply returns the answer, etag its ETag), and returns its
// answer after the response leg's, or the SDK's cancellation error if ctx
// ends first. The request applies whatever the caller does.
func call[T any](ctx context.Context, c *client, op, key string, ifMatch, ifNoneMatch *string, bodyETag string,
	apply func(now time.Time) (*T, error), etag func(*T) *string) (*T, error) {
	w := c.w
	w.mu.Lock()
	idx := -1
	if !w.stopping {
		idx = len(w.h.S3)
		w.h.S3 = append(w.h.S3, sim.S3Op{Node: c.node, Op: op, Key: key, IfMatch: aws.ToString(ifMatch),
			IfNoneMatch: aws.ToString(ifNoneMatch), BodyETag: bodyETag, Call: w.now(), Return: -1})
	}
	req, resp := w.wl.S3Request.Sample(w.rng), w.wl.S3Response.Sample(w.rng)
	w.mu.Unlock()

	var (
		applied bool
		out     *T
		result  error
	)
	time.AfterFunc(req, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		out, result = apply(time.Now())
		applied = true
	})
	if err := sleep(ctx, req+resp); err != nil {
		return nil, &smithy.OperationError{ServiceID: "S3", OperationName: op, Err: &smithy.CanceledError{Err: err}}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !applied {
		// Time advances only when every goroutine is durably blocked, so
		// the apply, due earlier, has run.
		w.bug = fmt.Errorf("comparison: the answer to %s came before the request applied", op)
		return nil, w.bug
	}
	if idx >= 0 && !w.stopping {
		o := &w.h.S3[idx]
		o.Return = w.now()
		o.Status, o.Code = statusOf(result)
		if result == nil && etag != nil && out != nil {
			o.ETag = aws.ToString(etag(out))
		}
	}
	if result != nil {
		return nil, result
	}
	return out, nil
}

// PutObject sends a PutObject request; the body is read when the call is
// made, as the SDK does before sending.
func (c *client) PutObject(ctx context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	req := *in
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, &smithy.OperationError{ServiceID: "S3", OperationName: sim.OpPutObject, Err: err}
		}
		body = b
	}
	req.Body = nil
	return call(ctx, c, sim.OpPutObject, aws.ToString(req.Key), req.IfMatch, req.IfNoneMatch, etagOf(body),
		func(now time.Time) (*s3.PutObjectOutput, error) { return c.w.store.PutObject(now, &req, body) },
		func(o *s3.PutObjectOutput) *string { return o.ETag })
}

// GetObject sends a GetObject request.
func (c *client) GetObject(ctx context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	req := *in
	return call(ctx, c, sim.OpGetObject, aws.ToString(req.Key), req.IfMatch, req.IfNoneMatch, "",
		func(now time.Time) (*s3.GetObjectOutput, error) { return c.w.store.GetObject(now, &req) },
		func(o *s3.GetObjectOutput) *string { return o.ETag })
}

// HeadObject sends a HeadObject request.
func (c *client) HeadObject(ctx context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	req := *in
	return call(ctx, c, sim.OpHeadObject, aws.ToString(req.Key), req.IfMatch, req.IfNoneMatch, "",
		func(now time.Time) (*s3.HeadObjectOutput, error) { return c.w.store.HeadObject(now, &req) },
		func(o *s3.HeadObjectOutput) *string { return o.ETag })
}

// DeleteObject sends a DeleteObject request.
func (c *client) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	req := *in
	return call(ctx, c, sim.OpDeleteObject, aws.ToString(req.Key), req.IfMatch, nil, "",
		func(now time.Time) (*s3.DeleteObjectOutput, error) { return c.w.store.DeleteObject(now, &req) }, nil)
}

// ListObjectsV2 sends a ListObjectsV2 request.
func (c *client) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	req := *in
	return call(ctx, c, sim.OpListObjectsV2, aws.ToString(req.Prefix), nil, nil, "",
		func(now time.Time) (*s3.ListObjectsV2Output, error) { return c.w.store.ListObjectsV2(now, &req) }, nil)
}

var _ protocol.ObjectStore = (*client)(nil)

// statusOf extracts the HTTP status and S3 error code of an answer, as
// the simulator records them.
func statusOf(err error) (int, string) {
	if err == nil {
		return 200, ""
	}
	status := 0
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		status = hs.HTTPStatusCode()
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return status, api.ErrorCode()
	}
	return status, err.Error()
}

// etagOf is S3's ETag for body: its quoted hex MD5.
func etagOf(body []byte) string {
	sum := md5.Sum(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// pcgChooser is a sim.Chooser over a math/rand/v2 PCG, so that latencies
// are drawn by sim.Latency.Sample, the simulator's own distribution.
type pcgChooser struct{ r *rand.Rand }

// Choose returns a uniform integer in [0, n).
func (c pcgChooser) Choose(_ sim.ChoiceKind, n uint64) uint64 {
	if n <= 1 {
		return 0
	}
	return c.r.Uint64N(n)
}

// newEntropy is node i's entropy (nonces, jitter): a PCG stream of its own.
func newEntropy(seed uint64, i int) io.Reader {
	p := rand.NewPCG(seed, uint64(i)+1)
	return readerFunc(func(b []byte) (int, error) {
		for i := 0; i < len(b); i += 8 {
			v := p.Uint64()
			for j := i; j < len(b) && j < i+8; j++ {
				b[j] = byte(v)
				v >>= 8
			}
		}
		return len(b), nil
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }
