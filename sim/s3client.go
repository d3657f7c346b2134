package sim

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/s3lease/s3lease/protocol"
)

// S3Client is the set of S3 calls a simulated node may make: the elector's
// protocol.ObjectStore (GetObject, PutObject) and the HeadObject,
// DeleteObject and ListObjectsV2 that other protocols use (an epoch file
// listed by prefix, a lock released by deleting its object). It is the type
// of Env.Store and what Config.WrapStore wraps. The methods have exactly the
// signatures of aws-sdk-go-v2's *s3.Client, which satisfies the interface
// with no adapter, so a protocol written against it ships with the real
// client.
type S3Client interface {
	protocol.ObjectStore
	HeadObject(ctx context.Context, params *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	DeleteObject(ctx context.Context, params *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	ListObjectsV2(ctx context.Context, params *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

var (
	_ S3Client = (*s3.Client)(nil)
	_ S3Client = (*nodeS3)(nil)
)

// s3Side is the simulated S3 service as the network sees it: the latency of
// each leg of a request and the counter that numbers requests.
type s3Side struct {
	request, response Latency
	calls             uint64
	faults            FaultInjector
	// inflight counts conditional writes sent and not yet applied, per key
	// (a list: runs use a key or two).
	inflight []keyCount
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
	body                 []byte // for a PutObject, its body (Request.Body)
	write                bool   // PutObject or DeleteObject
}

// keyCount is a count for one key.
type keyCount struct {
	key string
	n   int
}

// inflightOf returns the count of conditional writes in flight on key.
func (s *s3Side) inflightOf(key string) *int {
	for i := range s.inflight {
		if s.inflight[i].key == key {
			return &s.inflight[i].n
		}
	}
	s.inflight = append(s.inflight, keyCount{key: key})
	return &s.inflight[len(s.inflight)-1].n
}

// s3Now returns S3's clock reading at the current instant.
func (w *World) s3Now() time.Time { return Epoch.Add(w.now + w.s3.clock) }

// call runs one request, whose input pc holds. S3 applies it (pc.land) at
// one instant and records the answer in pc. The world's FaultInjector, if
// any, decides the request's fate when it is sent. The caller reads the
// output from pc once call returns nil, then hands pc back with
// releaseLanding.
func (c *nodeS3) call(ctx context.Context, rq request, pc *s3Landing) error {
	w := c.w
	op, key, write := rq.op, rq.key, rq.write
	t := w.mustCurrentS3(op)
	w.s3.calls++
	id := w.s3.calls
	conditional := rq.ifMatch != nil || rq.ifNoneMatch != nil
	var f RequestFault
	if w.s3.faults != nil {
		c.n.requests[pc.kind]++
		f = w.s3.faults.RequestFault(w, Request{Node: c.n.Index, Op: op, Key: key, Nth: c.n.requests[pc.kind],
			Conditional: conditional, Write: write, InFlight: *w.s3.inflightOf(key), Body: rq.body})
	}
	e := c.n.event(EvS3Send)
	e.Call, e.Op, e.Key = id, op, key
	if w.trace.keep {
		e.Body = string(rq.body)
	}
	f.record(&e)
	w.trace.addCond(e, rq.ifMatch, rq.ifNoneMatch)

	tracked := conditional && write
	if tracked {
		*w.s3.inflightOf(key)++
	}
	if w.por != nil {
		w.por.sent(rq.bucket, key, w.s3.faults != nil, tracked)
	}
	if cap(w.history.S3) == 0 {
		// About one request per node and simulated second is usual; a good
		// first guess saves the slice's growth, a large part of what a run
		// allocates.
		w.history.S3 = make([]S3Op, 0, 16+w.cfg.Nodes*int(w.cfg.Duration/time.Second))
	}
	hi := len(w.history.S3)
	w.history.S3 = append(w.history.S3, S3Op{Node: c.n.Index, Identity: c.n.identity, Incarnation: c.n.incarnation, Op: op, Key: key, IfMatch: str(rq.ifMatch),
		IfNoneMatch: str(rq.ifNoneMatch), BodyETag: rq.bodyETag, Call: w.now, Return: -1, Applied: -1})
	// The answer, decided when the request reaches S3.
	pc.id, pc.op, pc.bucket, pc.key, pc.tracked, pc.fate, pc.hist, pc.sent = id, op, rq.bucket, key, tracked, f, hi, w.now
	applyAt := w.now + w.s3.request.Sample(w.chooser) + f.ExtraRequest
	respond := w.s3.response.Sample(w.chooser) + f.ExtraResponse
	w.atLand(applyAt, pc)
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
	if pc.got != nil {
		if body := w.tear(c.n, pc, hi); body != "" {
			r.Fault, r.ETag, r.Detail = FaultTornRead, pc.etag, "torn: the body of "+body
		}
	}
	received := throughProxy(pc.result, op, pc.status, w.cfg.ErrorPages)
	if w.trace.keep {
		if code := receivedCode(received, pc.result); code != r.Code {
			r.Received = code
		}
		if pc.kind == landGet && pc.result == nil && pc.getOut != nil {
			if body, ok := pc.getOut.Body.(*bodyReader); ok {
				r.Body = body.b
			}
		}
	}
	w.trace.add(r)
	h := &w.history.S3[hi]
	h.Return, h.Status, h.Code = w.now, r.Status, r.Code
	if pc.result == nil {
		h.ETag = pc.etag
		if pc.kind == landPut {
			c.n.aimAt(hi)
		}
	}
	if f.PauseOnAnswer > 0 {
		// The answer is in the process's buffers; the process stops before
		// it can look at it.
		c.n.PauseFor(FaultAnswerPause, w.untilHeal(f.PauseOnAnswer))
		_ = t.wait(context.Background(), w.now)
	}
	w.live.beat()
	return received
}

// receivedCode is the error code of received, an answer as the node got
// it, if it is not S3's answer sent: the API error's code the SDK reports
// (derived from the status behind a proxy's plain pages), or "no code"
// for a page the SDK could not read.
func receivedCode(received, sent error) string {
	if received == sent {
		return ""
	}
	if HTMLPage(received) {
		return "no code"
	}
	_, code := statusOf(received)
	return code
}

// landingOp says which operation an s3Landing carries.
type landingOp uint8

const (
	landPut landingOp = iota
	landGet
	landHead
	landDelete
	landList
)

// s3Landing is a request on its way to S3: what it is, the input as the
// client serialised it when the call was made, and once it has landed
// (land, at the instant S3 applies it), the answer: the output, its error
// (nil for success), status and code, and the ETag it carries.
//
// Landings are recycled within a world: one has two owners, the agenda
// until it lands and the calling task until it has read the answer, and
// goes back to the world's free list when both are done with it (refs).
// A landing whose caller never comes back (a killed task) is left to the
// garbage collector.
type s3Landing struct {
	w *World
	landingState

	body []byte // the PutObject body, read when the call was made; its buffer is reused
	put  s3.PutObjectInput
	get  s3.GetObjectInput
	head s3.HeadObjectInput
	del  s3.DeleteObjectInput
	list s3.ListObjectsV2Input
}

// landingState is what a landing holds besides its input.
type landingState struct {
	refs     uint8
	kind     landingOp
	id       uint64
	op, key  string
	bucket   string
	tracked  bool
	fate     RequestFault
	bodyETag string
	hist     int           // the request's index in the history's S3
	sent     time.Duration // true time of the send
	got      *storedObject // for a GetObject that may be answered torn, the version it read

	putOut  *s3.PutObjectOutput
	getOut  *s3.GetObjectOutput
	headOut *s3.HeadObjectOutput
	delOut  *s3.DeleteObjectOutput
	listOut *s3.ListObjectsV2Output

	result error
	status int
	code   string
	etag   string
}

// newLanding returns a landing for a request of kind k, owned by the
// caller and (once call schedules it) the agenda.
func (w *World) newLanding(k landingOp) *s3Landing {
	pc := popFree(&w.freeLandings)
	if pc == nil {
		pc = &s3Landing{}
	}
	pc.w, pc.kind, pc.refs = w, k, 2
	return pc
}

// releaseLanding drops one owner's hold on pc, and recycles it once
// neither holds it: only the input of its kind needs clearing.
func (w *World) releaseLanding(pc *s3Landing) {
	if pc.refs--; pc.refs > 0 {
		return
	}
	switch pc.kind {
	case landPut:
		pc.put = s3.PutObjectInput{}
		pc.body = pc.body[:0]
	case landGet:
		pc.get = s3.GetObjectInput{}
	case landHead:
		pc.head = s3.HeadObjectInput{}
	case landDelete:
		pc.del = s3.DeleteObjectInput{}
	default:
		pc.list = s3.ListObjectsV2Input{}
	}
	pc.landingState = landingState{}
	pc.w = nil
	w.freeLandings = append(w.freeLandings, pc)
}

// apply applies the request to the store and records the output; it
// returns the answer's ETag and error.
func (pc *s3Landing) apply(now time.Time) (string, error) {
	st := pc.w.store
	switch pc.kind {
	case landPut:
		o, err := st.putObject(now, &pc.put, pc.body, pc.bodyETag)
		pc.putOut = o
		if o != nil {
			return str(o.ETag), err
		}
		return "", err
	case landGet:
		o, err := st.GetObject(now, &pc.get)
		pc.getOut = o
		if o != nil {
			return str(o.ETag), err
		}
		return "", err
	case landHead:
		o, err := st.HeadObject(now, &pc.head)
		pc.headOut = o
		if o != nil {
			return str(o.ETag), err
		}
		return "", err
	case landDelete:
		o, err := st.DeleteObject(now, &pc.del)
		pc.delOut = o
		return "", err
	default:
		o, err := st.ListObjectsV2(now, &pc.list)
		pc.listOut = o
		return "", err
	}
}

// land applies the request at the current instant, as its fate says, and
// records the answer.
func (pc *s3Landing) land() {
	w, f := pc.w, pc.fate
	if f.Landing != nil {
		f.Landing()
	}
	if pc.tracked {
		*w.s3.inflightOf(pc.key)--
	}
	if w.por != nil {
		w.por.landed(pc)
	}
	now := w.s3Now()
	a := Event{At: w.now, Node: -1, Local: now.Sub(Epoch), Kind: EvS3Apply, Call: pc.id, Op: pc.op, Key: pc.key}
	a.Fault = fateKinds[f.Fate]
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
		w.history.S3[pc.hist].Applied = w.now
		switch {
		case err != nil:
		case pc.kind == landPut:
			w.history.S3[pc.hist].Body, _ = w.store.bodyOf(pc.bucket, pc.key)
		case pc.kind == landGet && f.Fate == Delivered && w.tornPPM(f) > 0:
			pc.got = w.store.current(pc.bucket, pc.key)
		}
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
	// The errors APIError builds, without errors.As's walk of the chain:
	// the status is the response's, the code the API error's.
	if oe, ok := err.(*smithy.OperationError); ok {
		if re, ok := oe.Err.(*s3ResponseError); ok && re.ResponseError != nil && re.ResponseError.ResponseError != nil {
			if api, ok := re.Err.(smithy.APIError); ok {
				return re.HTTPStatusCode(), api.ErrorCode()
			}
		}
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
	var buf [condBuf]byte
	return string(appendCond(buf[:0], ifMatch, ifNoneMatch))
}

// condBuf is a size that holds the preconditions the protocols send.
const condBuf = 128

// appendCond appends the trace's rendering of a request's preconditions.
func appendCond(b []byte, ifMatch, ifNoneMatch *string) []byte {
	if ifMatch != nil {
		b = append(b, "If-Match:"...)
		b = append(b, *ifMatch...)
		if ifNoneMatch != nil {
			b = append(b, ' ')
		}
	}
	if ifNoneMatch != nil {
		b = append(b, "If-None-Match:"...)
		b = append(b, *ifNoneMatch...)
	}
	return b
}

// PutObject sends a PutObject request. The body is read when the call is
// made, as the SDK does before sending; the input is copied then, so later
// changes by the caller do not reach S3.
func (c *nodeS3) PutObject(ctx context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	w := c.w
	w.enter()
	defer w.leave()
	pc := w.newLanding(landPut)
	if in != nil {
		pc.put = *in
	}
	if pc.put.Body != nil {
		b, err := readBodyInto(pc.body[:0], pc.put.Body)
		if err != nil {
			pc.refs = 1
			w.releaseLanding(pc)
			return nil, &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: err}
		}
		pc.body = b
	}
	pc.bodyETag = w.store.etag(pc.body)
	rq := request{op: OpPutObject, bucket: str(pc.put.Bucket), key: str(pc.put.Key), ifMatch: pc.put.IfMatch, ifNoneMatch: pc.put.IfNoneMatch, bodyETag: pc.bodyETag, body: pc.body, write: true}
	err := c.call(ctx, rq, pc)
	out := pc.putOut
	w.releaseLanding(pc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetObject sends a GetObject request.
func (c *nodeS3) GetObject(ctx context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	w := c.w
	w.enter()
	defer w.leave()
	pc := w.newLanding(landGet)
	if in != nil {
		pc.get = *in
	}
	req := &pc.get
	err := c.call(ctx, request{op: OpGetObject, bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, ifNoneMatch: req.IfNoneMatch}, pc)
	out := pc.getOut
	w.releaseLanding(pc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// HeadObject sends a HeadObject request.
func (c *nodeS3) HeadObject(ctx context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	w := c.w
	w.enter()
	defer w.leave()
	pc := w.newLanding(landHead)
	if in != nil {
		pc.head = *in
	}
	req := &pc.head
	err := c.call(ctx, request{op: OpHeadObject, bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, ifNoneMatch: req.IfNoneMatch}, pc)
	out := pc.headOut
	w.releaseLanding(pc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteObject sends a DeleteObject request.
func (c *nodeS3) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	w := c.w
	w.enter()
	defer w.leave()
	pc := w.newLanding(landDelete)
	if in != nil {
		pc.del = *in
	}
	req := &pc.del
	err := c.call(ctx, request{op: OpDeleteObject, bucket: str(req.Bucket), key: str(req.Key), ifMatch: req.IfMatch, write: true}, pc)
	out := pc.delOut
	w.releaseLanding(pc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListObjectsV2 sends a ListObjectsV2 request.
func (c *nodeS3) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	w := c.w
	w.enter()
	defer w.leave()
	pc := w.newLanding(landList)
	if in != nil {
		pc.list = *in
	}
	req := &pc.list
	err := c.call(ctx, request{op: OpListObjectsV2, bucket: str(req.Bucket), key: str(req.Prefix)}, pc)
	out := pc.listOut
	w.releaseLanding(pc)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readBodyInto reads a request body into buf's storage, growing it in one
// allocation when the reader knows its length (bytes.Reader,
// strings.Reader).
func readBodyInto(buf []byte, r io.Reader) ([]byte, error) {
	if l, ok := r.(interface{ Len() int }); ok {
		n := l.Len()
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	return io.ReadAll(r)
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
