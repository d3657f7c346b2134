package sim

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// s3Side is the simulated S3 service as the network sees it: the latency of
// each leg of a request and the counter that numbers requests.
type s3Side struct {
	request, response Latency
	calls             uint64
	faults            FaultInjector
	// inflight counts conditional writes sent and not yet applied, per key.
	inflight map[string]int
	// clock is S3's own clock offset from true time; Last-Modified comes
	// from it, not from any node.
	clock time.Duration
}

// nodeS3 is one node's S3 client. Each call sends the request over the
// request leg, S3 applies it atomically at a single instant, and the answer
// travels back over the response leg. If the caller's context ends first,
// the call returns the SDK's cancellation error at once, and if the client's
// timeout (Config.S3ClientTimeout) passes first, the SDK's timeout error; the
// request is still applied when it reaches S3, so its outcome is unknown to
// the caller.
type nodeS3 struct {
	w *World
	n *Node
}

// request is what the client knows of a request when it sends it.
type request struct {
	op, bucket, key      string
	ifMatch, ifNoneMatch *string
	bodyETag             string // for a PutObject, the ETag its body will have
	write                bool   // PutObject or DeleteObject
}

// s3Now returns S3's clock reading at the current instant.
func (w *World) s3Now() time.Time { return Epoch.Add(w.now + w.s3.clock) }

// call runs one request. apply is called at the instant S3 applies the
// request and returns the answer's error (nil for success) and ETag. The
// world's FaultInjector, if any, decides the request's fate when it is sent.
func (c *nodeS3) call(ctx context.Context, rq request, apply func(now time.Time) (etag string, err error)) error {
	w := c.w
	op, key, write := rq.op, rq.key, rq.write
	t := w.mustCurrent("S3 " + op)
	w.s3.calls++
	id := w.s3.calls
	conditional := rq.ifMatch != nil || rq.ifNoneMatch != nil
	var f RequestFault
	if w.s3.faults != nil {
		c.n.requests[op]++
		f = w.s3.faults.RequestFault(w, Request{Node: c.n.Index, Op: op, Key: key, Nth: c.n.requests[op],
			Conditional: conditional, Write: write, InFlight: w.s3.inflight[key]})
	}
	e := c.n.event(EvS3Send)
	e.Call, e.Op, e.Key, e.Cond = id, op, key, cond(rq.ifMatch, rq.ifNoneMatch)
	if f.Fate != Delivered {
		e.Detail, e.Fault = "fault: "+f.Fate.String(), f.Fate.String()
	}
	w.trace.add(e)

	tracked := conditional && write
	if tracked {
		w.s3.inflight[key]++
	}
	if w.por != nil {
		w.por.sent(rq.bucket, key, w.s3.faults != nil, tracked)
	}
	if w.history.S3 == nil {
		// About one request per node and simulated second is usual; a good
		// first guess saves the slice's growth, a large part of what a run
		// allocates.
		w.history.S3 = make([]S3Op, 0, 16+w.cfg.Nodes*int(w.cfg.Duration/time.Second))
	}
	hi := len(w.history.S3)
	w.history.S3 = append(w.history.S3, S3Op{Node: c.n.Index, Op: op, Key: key, IfMatch: str(rq.ifMatch),
		IfNoneMatch: str(rq.ifNoneMatch), BodyETag: rq.bodyETag, Call: w.now, Return: -1})
	// The answer, decided when the request reaches S3.
	pc := &s3Landing{w: w, id: id, op: op, bucket: rq.bucket, key: key, tracked: tracked, fate: f, apply: apply}
	applyAt := w.now + w.s3.request.Sample(w.chooser) + f.ExtraRequest
	respond := w.s3.response.Sample(w.chooser) + f.ExtraResponse
	w.atQuiet(applyAt, pc.land)
	wake := applyAt + respond
	if f.Fate == Lost || f.Fate == Dropped {
		wake = -1
	}
	// The client's own timeout, on the node's clock from the send: it ends
	// the wait unless the answer arrives first (or at the same instant).
	timeout := w.cfg.S3ClientTimeout
	timedOut := false
	if timeout > 0 {
		if limit := c.n.clock.after(w.now, timeout); wake < 0 || wake > limit {
			wake, timedOut = limit, true
		}
	}
	if err := t.wait(ctx, wake); err != nil || timedOut {
		// No answer: the outcome is unknown to the caller, and the request
		// still applies when it reaches S3.
		a := c.n.event(EvS3Abandon)
		a.Call, a.Op = id, op
		if err != nil {
			a.Detail = err.Error()
			err = &smithy.OperationError{ServiceID: "S3", OperationName: op, Err: &smithy.CanceledError{Err: err}}
		} else {
			a.Detail = "Client.Timeout of " + timeout.String() + " exceeded while awaiting headers"
			err = clientTimeout(op, simRequestURL(op, rq.bucket, key))
		}
		w.trace.add(a)
		w.live.beat()
		return err
	}
	if w.por != nil {
		w.por.por.touch(access{kind: accAnswer, id: id})
	}
	r := c.n.event(EvS3Return)
	r.Call, r.Op, r.Status, r.Code = id, op, pc.status, pc.code
	w.trace.add(r)
	h := &w.history.S3[hi]
	h.Return, h.Status, h.Code = w.now, r.Status, r.Code
	if pc.result == nil {
		h.ETag = pc.etag
	}
	if f.PauseOnAnswer > 0 {
		// The answer is in the process's buffers; the process stops before
		// it can look at it.
		c.n.PauseFor("answer-pause", w.untilHeal(f.PauseOnAnswer))
		_ = t.wait(context.Background(), w.now)
	}
	w.live.beat()
	return pc.result
}

// s3Landing is a request on its way to S3: what it is, and once it has
// landed (land, at the instant S3 applies it), the answer: its error (nil
// for success), status and code, and the ETag it carries.
type s3Landing struct {
	w       *World
	id      uint64
	op, key string
	bucket  string
	tracked bool
	fate    RequestFault
	apply   func(now time.Time) (etag string, err error)

	result error
	status int
	code   string
	etag   string
}

// land applies the request at the current instant, as its fate says, and
// records the answer.
func (pc *s3Landing) land() {
	w, f := pc.w, pc.fate
	if f.Landing != nil {
		f.Landing()
	}
	if pc.tracked {
		w.s3.inflight[pc.key]--
	}
	if w.por != nil {
		w.por.landed(pc)
	}
	now := w.s3Now()
	a := Event{At: w.now, Node: -1, Local: now.Sub(Epoch), Kind: EvS3Apply, Call: pc.id, Op: pc.op, Key: pc.key}
	if f.Fate != Delivered {
		a.Fault = f.Fate.String()
	}
	switch f.Fate {
	case Unreachable, Dropped:
		// Nothing reached S3: the trace shows no status.
		pc.result = connectionError(pc.op)
		pc.status, pc.code = statusOf(pc.result)
		a.Detail = "never arrived"
		w.trace.add(a)
		return
	case RefusedBefore:
		pc.result = f.Err(pc.op, w.store.requestID())
		a.Detail = "not applied"
	default:
		etag, err := pc.apply(now)
		a.ETag, pc.etag, pc.result = etag, etag, err
		switch f.Fate {
		case FailedAfter:
			// The trace shows what S3 did; the caller gets the error.
			a.Status, a.Code = statusOf(err)
			a.Detail = "applied, answer replaced"
			pc.result = f.Err(pc.op, w.store.requestID())
		case Lost:
			a.Detail = "applied, answer lost"
		}
	}
	pc.status, pc.code = statusOf(pc.result)
	if a.Status == 0 {
		a.Status, a.Code = pc.status, pc.code
	}
	w.trace.add(a)
}

// statusOf extracts the HTTP status and error code of an answer.
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

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func cond(ifMatch, ifNoneMatch *string) string {
	switch {
	case ifMatch != nil && ifNoneMatch != nil:
		return "If-Match:" + *ifMatch + " If-None-Match:" + *ifNoneMatch
	case ifMatch != nil:
		return "If-Match:" + *ifMatch
	case ifNoneMatch != nil:
		return "If-None-Match:" + *ifNoneMatch
	}
	return ""
}

// exchange runs one call whose answer is an output of type O, and returns
// the output applied at S3, or the call's error.
func exchange[O any](c *nodeS3, ctx context.Context, rq request,
	apply func(now time.Time) (*O, error), etag func(*O) *string) (*O, error) {
	var out *O
	err := c.call(ctx, rq, func(now time.Time) (string, error) {
		o, err := apply(now)
		out = o
		if o != nil && etag != nil {
			return str(etag(o)), err
		}
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// snapshot copies a request input when the call is made, as the SDK
// serialises it before sending: later changes by the caller do not reach S3.
func snapshot[T any](in *T) *T {
	var v T
	if in != nil {
		v = *in
	}
	return &v
}

// PutObject sends a PutObject request. The body is read when the call is
// made, as the SDK does before sending.
func (c *nodeS3) PutObject(ctx context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	req := snapshot(in)
	var body []byte
	if req.Body != nil {
		b, err := readBody(req.Body)
		if err != nil {
			return nil, &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: err}
		}
		body = b
	}
	rq := request{op: "PutObject", bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, ifNoneMatch: req.IfNoneMatch, bodyETag: etagOf(body), write: true}
	return exchange(c, ctx, rq,
		func(now time.Time) (*s3.PutObjectOutput, error) { return c.w.store.PutObject(now, req, body) },
		func(o *s3.PutObjectOutput) *string { return o.ETag })
}

// GetObject sends a GetObject request.
func (c *nodeS3) GetObject(ctx context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	req := snapshot(in)
	rq := request{op: "GetObject", bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, ifNoneMatch: req.IfNoneMatch}
	return exchange(c, ctx, rq,
		func(now time.Time) (*s3.GetObjectOutput, error) { return c.w.store.GetObject(now, req) },
		func(o *s3.GetObjectOutput) *string { return o.ETag })
}

// HeadObject sends a HeadObject request.
func (c *nodeS3) HeadObject(ctx context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	req := snapshot(in)
	rq := request{op: "HeadObject", bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, ifNoneMatch: req.IfNoneMatch}
	return exchange(c, ctx, rq,
		func(now time.Time) (*s3.HeadObjectOutput, error) { return c.w.store.HeadObject(now, req) },
		func(o *s3.HeadObjectOutput) *string { return o.ETag })
}

// DeleteObject sends a DeleteObject request.
func (c *nodeS3) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	req := snapshot(in)
	rq := request{op: "DeleteObject", bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, write: true}
	return exchange(c, ctx, rq,
		func(now time.Time) (*s3.DeleteObjectOutput, error) { return c.w.store.DeleteObject(now, req) }, nil)
}

// ListObjectsV2 sends a ListObjectsV2 request.
func (c *nodeS3) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	req := snapshot(in)
	return exchange(c, ctx, request{op: "ListObjectsV2", bucket: str(req.Bucket), key: str(req.Prefix)},
		func(now time.Time) (*s3.ListObjectsV2Output, error) { return c.w.store.ListObjectsV2(now, req) }, nil)
}

// readBody reads a request body, sized in one allocation when the reader
// knows its length (bytes.Reader, strings.Reader).
func readBody(r io.Reader) ([]byte, error) {
	if l, ok := r.(interface{ Len() int }); ok {
		b := make([]byte, l.Len())
		_, err := io.ReadFull(r, b)
		return b, err
	}
	return io.ReadAll(r)
}
