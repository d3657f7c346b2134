package live

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/s3lease/s3lease/sim"
)

// recorder builds the run's sim.History from what happens in real time:
// every time is time.Since(start), on the process's monotonic clock. Once
// stopped it records nothing more, as the simulator records nothing after
// a run's end: requests still in flight keep no answer, open terms stay
// open.
type recorder struct {
	start time.Time

	mu      sync.Mutex
	stopped bool
	h       sim.History
	// bodies holds, for each entry of h.S3, the MD5 (hex) of a PutObject's
	// body, "" for other requests; got the MD5 of the body a GetObject's
	// answer carried, if it was read to its end, "" otherwise.
	bodies, got []string
	// unsent marks the entries of h.S3 that were never sent (the node was
	// cut off): stop removes them.
	unsent []bool
	// learned maps the MD5 of a body to the ETag the store gave it, where
	// the two differ (a store whose ETags are not the MD5 of the body).
	learned map[string]string
}

func newRecorder(nodes int) *recorder {
	return &recorder{start: time.Now(), h: sim.History{Nodes: nodes}}
}

// now is the true time of the run: time since start.
func (r *recorder) now() time.Duration { return time.Since(r.start) }

// stop closes the history at the current instant and returns it. The
// history is not modified afterwards.
func (r *recorder) stop() *sim.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return &r.h
	}
	r.stopped = true
	end := r.now()
	r.h.End = end
	for i := range r.h.Terms {
		if t := &r.h.Terms[i]; t.Open {
			t.End = end
		}
	}
	r.classifyReads()
	// A store whose ETags are not MD5s: a write's BodyETag is the ETag its
	// body was seen to have, if it was seen.
	for i, sum := range r.bodies {
		if e, ok := r.learned[sum]; ok && sum != "" {
			r.h.S3[i].BodyETag = e
		}
	}
	kept := r.h.S3[:0]
	for i, op := range r.h.S3 {
		if !r.unsent[i] {
			kept = append(kept, op)
		}
	}
	r.h.S3 = kept
	return &r.h
}

// opInfo is what a request says about the object, taken from the SDK
// operation's input before it is serialized.
type opInfo struct {
	op, key, ifMatch, ifNoneMatch string
	// bodyETag and bodyMD5 are, for a PutObject, the quoted and the bare
	// MD5 of its body.
	bodyETag, bodyMD5 string
}

// s3Call records a request sent by node now and returns its index, or -1
// once the recorder stopped.
func (r *recorder) s3Call(node int, in *opInfo) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return -1
	}
	r.h.S3 = append(r.h.S3, sim.S3Op{Node: node, Op: in.op, Key: in.key, IfMatch: in.ifMatch,
		IfNoneMatch: in.ifNoneMatch, BodyETag: in.bodyETag, Call: r.now(), Return: -1, Applied: -1})
	r.bodies = append(r.bodies, in.bodyMD5)
	r.got = append(r.got, "")
	r.unsent = append(r.unsent, false)
	return len(r.h.S3) - 1
}

// answer is what one HTTP exchange gave the client.
type answer struct {
	// answered is false when no HTTP answer came: a transport error, a
	// timeout, a cancellation. The request may take effect at any later
	// instant, or never.
	answered bool
	// unsent: the request never left the node (it was cut off).
	unsent bool
	status int
	code   string
	etag   string
}

// s3Return records the answer of request i now.
func (r *recorder) s3Return(i int, a answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < 0 || r.stopped {
		return
	}
	op := &r.h.S3[i]
	if a.unsent {
		r.unsent[i] = true
		return
	}
	if !a.answered {
		// No answer: Return stays -1, the outcome is unknown. Code says
		// why, for humans; the checkers do not read it.
		op.Code = a.code
		return
	}
	op.Return, op.Status, op.Code, op.ETag = r.now(), a.status, a.code, a.etag
	if op.Op == sim.OpPutObject && a.status == http.StatusOK && a.etag != "" && a.etag != op.BodyETag {
		r.learnLocked(r.bodies[i], a.etag)
	}
}

// read notes that the answer of request i carried a body with MD5 sum,
// read to its end.
func (r *recorder) read(i int, sum string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= 0 && !r.stopped {
		r.got[i] = sum
	}
}

// classifyReads compares the body each GetObject answer carried with the
// answer's ETag, once every write is recorded. The ETag of a version is
// the quoted MD5 of its body, unless a PutObject's answer named it
// otherwise (a store whose ETags are not MD5s). An ETag no write had is
// learned as its body's (such a store, whose write answers were not seen);
// an ETag that belongs to another written body makes the read torn: the
// store answered with the body of one version and the ETag of another.
// The read keeps the ETag it received, and TornBodyETag names the version
// whose body came: a torn read is never taken for what the store calls a
// body, which would relabel a write.
func (r *recorder) classifyReads() {
	etagOf := func(sum string) string {
		if e, ok := r.learned[sum]; ok {
			return e
		}
		return quoted(sum)
	}
	written := func() map[string]string { // the ETag of each body written -> its MD5
		m := make(map[string]string)
		for _, sum := range r.bodies {
			if sum != "" {
				m[etagOf(sum)] = sum
			}
		}
		return m
	}
	before := written()
	for i, sum := range r.got {
		if e := r.h.S3[i].ETag; sum != "" && e != "" && before[e] == "" {
			r.learnLocked(sum, e)
		}
	}
	after := written()
	for i, sum := range r.got {
		op := &r.h.S3[i]
		if sum == "" || op.ETag == "" {
			continue
		}
		if other := after[op.ETag]; other != "" && other != sum {
			op.TornBodyETag = etagOf(sum)
		}
	}
}

func (r *recorder) learnLocked(sum, etag string) {
	if sum == "" || etag == quoted(sum) {
		return
	}
	if r.learned == nil {
		r.learned = map[string]string{}
	}
	r.learned[sum] = etag
}

// fault records a fault that happens now (an instant: From and To are set
// here).
func (r *recorder) fault(f sim.FaultSpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	f.From = r.now()
	f.To = f.From
	r.h.Faults = append(r.h.Faults, f)
}

// termStart records that node's application was told it leads with token,
// and returns the term's index, or -1 once the recorder stopped.
func (r *recorder) termStart(node, incarnation int, identity string, token uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return -1
	}
	r.h.Terms = append(r.h.Terms, sim.Term{Node: node, Identity: identity, Incarnation: incarnation, Token: token, Start: r.now(), Open: true})
	return len(r.h.Terms) - 1
}

// termEnd records that the application of term i saw its term end.
func (r *recorder) termEnd(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < 0 || r.stopped {
		return
	}
	t := &r.h.Terms[i]
	t.End, t.Open = r.now(), false
}

// fencedWrite records a write judged by the fenced resource now. The
// resource calls it under its own lock, so writes are recorded in the
// order they were judged.
func (r *recorder) fencedWrite(node int, token uint64, sent time.Duration, accepted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	r.h.Writes = append(r.h.Writes, sim.FencedWrite{Node: node, Token: token, Sent: sent, Applied: r.now(), Accepted: accepted})
}

// opInfoKey is the stack-value key of a call's opInfo.
type opInfoKey struct{}

// apiOption returns the SDK stack option that records node's requests:
// an initialize middleware that describes the call once, and a finalize
// middleware after the retry loop's attempt middleware ("Retry") that
// records every attempt as one request, and hashes the body of a
// GetObject's answer as the elector reads it. Each attempt is an HTTP
// exchange of its own that S3 may apply, so each is a request of the
// history; recording the call as a whole would hide an earlier attempt's
// effect from the checkers (a write applied, answered 500, retried and
// answered 412).
func (r *recorder) apiOption(node int) func(*middleware.Stack) error {
	describeMW := middleware.InitializeMiddlewareFunc("S3leaseLiveDescribe",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			info, err := describe(in.Parameters)
			if err != nil {
				return middleware.InitializeOutput{}, middleware.Metadata{}, err
			}
			if info != nil {
				ctx = middleware.WithStackValue(ctx, opInfoKey{}, info)
			}
			return next.HandleInitialize(ctx, in)
		})
	attemptMW := middleware.FinalizeMiddlewareFunc("S3leaseLiveAttempt",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			info, _ := middleware.GetStackValue(ctx, opInfoKey{}).(*opInfo)
			if info == nil {
				return next.HandleFinalize(ctx, in)
			}
			i := r.s3Call(node, info)
			out, md, err := next.HandleFinalize(ctx, in)
			r.s3Return(i, answerOf(awsmiddleware.GetRawResponse(md), err))
			if g, ok := out.Result.(*s3.GetObjectOutput); ok && err == nil && g.Body != nil {
				g.Body = &bodyObserver{ReadCloser: g.Body, h: md5.New(), i: i, r: r}
			}
			return out, md, err
		})
	return func(stack *middleware.Stack) error {
		if err := stack.Initialize.Add(describeMW, middleware.After); err != nil {
			return err
		}
		return stack.Finalize.Insert(attemptMW, "Retry", middleware.After)
	}
}

// describe returns what a call's input says about the object, or nil for
// an operation the history does not hold (bucket operations). A
// PutObject's body is read to compute its MD5 and then rewound (or, if it
// cannot seek, replaced by the bytes read).
func describe(params any) (*opInfo, error) {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch in := params.(type) {
	case *s3.PutObjectInput:
		sum, err := bodyMD5(in)
		if err != nil {
			return nil, err
		}
		return &opInfo{op: sim.OpPutObject, key: s(in.Key), ifMatch: s(in.IfMatch), ifNoneMatch: s(in.IfNoneMatch),
			bodyETag: quoted(sum), bodyMD5: sum}, nil
	case *s3.GetObjectInput:
		return &opInfo{op: sim.OpGetObject, key: s(in.Key), ifMatch: s(in.IfMatch), ifNoneMatch: s(in.IfNoneMatch)}, nil
	case *s3.HeadObjectInput:
		return &opInfo{op: sim.OpHeadObject, key: s(in.Key), ifMatch: s(in.IfMatch), ifNoneMatch: s(in.IfNoneMatch)}, nil
	case *s3.DeleteObjectInput:
		return &opInfo{op: sim.OpDeleteObject, key: s(in.Key), ifMatch: s(in.IfMatch)}, nil
	case *s3.ListObjectsV2Input:
		return &opInfo{op: "ListObjectsV2", key: s(in.Prefix)}, nil
	}
	return nil, nil // a bucket operation
}

// bodyMD5 returns the hex MD5 of a PutObject's body, leaving the body
// ready to be sent from its start.
func bodyMD5(in *s3.PutObjectInput) (string, error) {
	h := md5.New()
	switch b := in.Body.(type) {
	case nil:
	case io.ReadSeeker:
		pos, err := b.Seek(0, io.SeekCurrent)
		if err != nil {
			return "", fmt.Errorf("live: PutObject body: %w", err)
		}
		if _, err := io.Copy(h, b); err != nil {
			return "", fmt.Errorf("live: PutObject body: %w", err)
		}
		if _, err := b.Seek(pos, io.SeekStart); err != nil {
			return "", fmt.Errorf("live: PutObject body: %w", err)
		}
	default:
		data, err := io.ReadAll(b)
		if err != nil {
			return "", fmt.Errorf("live: PutObject body: %w", err)
		}
		h.Write(data)
		in.Body = bytes.NewReader(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// answerOf reads one attempt's outcome: the HTTP answer if one came (its
// status, S3 error code and ETag), or why none did.
func answerOf(raw any, err error) answer {
	resp, _ := raw.(*smithyhttp.Response)
	var re *smithyhttp.ResponseError
	if resp == nil && errors.As(err, &re) {
		resp = re.Response
	}
	if resp == nil || resp.Response == nil || resp.StatusCode == 0 {
		return answer{unsent: errors.Is(err, errDown), code: noAnswerReason(err)}
	}
	a := answer{answered: true, status: resp.StatusCode}
	if a.status >= 200 && a.status < 300 {
		// The history records every success as 200 (a DeleteObject's 204
		// too), as the simulator does.
		a.status = http.StatusOK
		a.etag = normalizeETag(resp.Header.Get("ETag"))
		return a
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		a.code = api.ErrorCode()
	}
	if a.code == "" {
		// No body to read the code from (a HEAD answer): the SDK names the
		// error after the status text.
		a.code = strings.ReplaceAll(http.StatusText(a.status), " ", "")
	}
	return a
}

// noAnswerReason says in a few words why no answer came; it names no URL
// and no header.
func noAnswerReason(err error) string {
	switch {
	case err == nil:
		return "no answer"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer: timed out"
	case errors.Is(err, context.Canceled):
		return "no answer: cancelled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return "no answer: " + ue.Err.Error()
	}
	return "no answer: transport error"
}

// quoted returns an MD5 in hex as S3 writes an ETag.
func quoted(sum string) string { return `"` + sum + `"` }

// normalizeETag quotes an ETag that came without quotes, so that answers
// compare equal to the quoted body ETags of the history.
func normalizeETag(e string) string {
	if e == "" || strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/"`) {
		return e
	}
	return `"` + e + `"`
}

// bodyObserver hashes the body of request i's answer (a GetObject) as the
// elector reads it and, if it is read to its end, tells the recorder.
type bodyObserver struct {
	io.ReadCloser
	h    hash.Hash
	i    int
	r    *recorder
	done bool
}

func (b *bodyObserver) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.Write(p[:n])
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		b.r.read(b.i, hex.EncodeToString(b.h.Sum(nil)))
	}
	return n, err
}
