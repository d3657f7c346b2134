package linearizability

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/s3lease/s3lease/sim"
)

// S3Result is the outcome of checking a run's S3 history: Ok, Illegal, or
// Unknown (the check timed out: never a pass).
type S3Result struct {
	Result porcupine.CheckResult
	// Ops is the number of requests checked: those of h.S3 but
	// ListObjectsV2 and requests that say nothing (see the package
	// documentation).
	Ops int
	// Duration is the wall time the check took.
	Duration time.Duration
	// Checker names the checker whose verdict Result is: CheckerFast or
	// CheckerPorcupine.
	Checker string
	// Fast is the fast checker's verdict (CheckS3Fast); porcupine's
	// verdict is Result when Checker is CheckerPorcupine.
	Fast FastVerdict
	// fastReason is the fast checker's reason, for Disagreement.
	fastReason string
	// info is porcupine's record of the search, for Visualize; for a
	// verdict of the fast checker, h and timeout let Visualize run
	// porcupine.
	info    porcupine.LinearizationInfo
	h       *sim.History
	timeout time.Duration
}

// The checkers an S3Result names.
const (
	// CheckerFast is CheckS3Fast.
	CheckerFast = "fast"
	// CheckerPorcupine is porcupine with s3Model.
	CheckerPorcupine = "porcupine"
)

// ErrS3CheckersDisagree is wrapped by the error S3Result.Disagreement
// returns: the fast checker decided a history otherwise than porcupine,
// which is a bug in the fast checker.
var ErrS3CheckersDisagree = errors.New("linearizability: the fast S3 checker and porcupine disagree")

// CheckS3 checks that h.S3, the S3 requests of a run as their clients saw
// them, is linearizable with respect to an object store with AWS's
// conditional-request semantics (sim.DialectAWS): that there is one order
// of the requests, each placed at an instant between its call and its
// answer, in which every answer is the one S3 would have given. A request
// that got no answer may take effect at any instant after its call, or
// never; one that failed with a 500 or 503 or without a connection
// (status 0) may have taken effect before the error came, or not; one
// answered 409, 403 or a proxy's 429 did not. The package documentation says what is left
// out. The check gives up after timeout (a positive duration) and then
// returns Unknown. h is not modified.
//
// CheckS3 first asks CheckS3Fast, and returns its verdict if it is Ok
// (Checker is then CheckerFast); otherwise, undecided or illegal, it asks
// porcupine (CheckerPorcupine), so that an Illegal verdict is always
// porcupine's, with its visualisation.
func CheckS3(h *sim.History, timeout time.Duration) S3Result {
	start := time.Now()
	f := CheckS3Fast(h)
	if f.Verdict == FastOk {
		return S3Result{Result: porcupine.Ok, Ops: f.Ops, Duration: time.Since(start), Checker: CheckerFast,
			Fast: f.Verdict, h: h, timeout: timeout}
	}
	r := checkS3Porcupine(h, timeout)
	r.Fast, r.fastReason = f.Verdict, f.Reason
	r.Duration = time.Since(start)
	return r
}

// CheckS3Porcupine is CheckS3 with porcupine's verdict whatever the fast
// checker says; it still runs the fast checker and records its verdict
// in Fast, so that checking a sample of runs this way cross-checks the
// two (see S3Result.Disagreement).
func CheckS3Porcupine(h *sim.History, timeout time.Duration) S3Result {
	start := time.Now()
	f := CheckS3Fast(h)
	r := checkS3Porcupine(h, timeout)
	r.Fast, r.fastReason = f.Verdict, f.Reason
	r.Duration = time.Since(start)
	return r
}

// checkS3Porcupine is the check by porcupine alone.
func checkS3Porcupine(h *sim.History, timeout time.Duration) S3Result {
	start := time.Now()
	ops, notes := s3Operations(h)
	res, info := porcupine.CheckOperationsVerbose(s3Model, ops, timeout)
	info.AddAnnotations(notes)
	return S3Result{Result: res, Ops: len(ops), Duration: time.Since(start), Checker: CheckerPorcupine, info: info}
}

// Disagreement returns an error wrapping ErrS3CheckersDisagree if both
// checkers judged the history and their verdicts differ: the fast checker
// said Ok or Illegal and porcupine the other. It is nil otherwise, and
// when porcupine did not run or ran out of time.
func (r S3Result) Disagreement() error {
	if r.Checker != CheckerPorcupine || r.Fast == FastUndecided || r.Result == porcupine.Unknown || r.Fast.String() == string(r.Result) {
		return nil
	}
	return fmt.Errorf("%w: the fast checker says %s (%s), porcupine %s, over %d requests", ErrS3CheckersDisagree, r.Fast, r.fastReason, r.Result, r.Ops)
}

// Visualize writes porcupine's HTML visualisation of the checked history:
// one row per node, each request as a bar from call to answer, and the
// longest linearization found with the state of the key after each step.
// A write without an answer is a point where it was sent, under a grey
// bar that runs to the end of the run; requests not checked are grey bars.
// For an Illegal history it shows where every attempt got stuck. For a
// verdict of the fast checker it runs porcupine first, on the history
// checked, which must not have changed since.
func (r S3Result) Visualize(w io.Writer) error {
	if r.Checker == CheckerFast {
		r = checkS3Porcupine(r.h, r.timeout)
	}
	return porcupine.Visualize(s3Model, r.info, w)
}

// s3Operations converts the history's requests into porcupine operations.
//
// It leaves out ListObjectsV2, torn reads (S3Op.TornBodyETag), and
// requests that neither changed the key nor say anything about it: reads
// that got no answer, a 5xx, no connection or a 409, and writes answered
// 409. A write that got no answer
// becomes an operation at the instant it was sent (call and return), where
// s3Model makes it pending: it may take effect at any later instant, or
// never. The requests left out and the unanswered writes' wait for an
// answer are returned as annotations, so that the visualisation shows
// them. Requests from no node (Node < 0) get the client id h.Nodes, a row
// of their own.
//
// A write whose outcome is unknown and whose body's ETag no checked
// request mentions (no answer carries it, no precondition names it) gets
// the body ETag s3Unseen instead. Nothing can tell such ETags apart from
// each other or from s3Unseen, so this changes no verdict; it makes such
// writes alike (see s3Input.like), which keeps s3Model's state small when
// many are pending.
func s3Operations(h *sim.History) (ops []porcupine.Operation, notes []porcupine.Annotation) {
	if h == nil {
		return nil, nil
	}
	ops = make([]porcupine.Operation, 0, len(h.S3))
	// One allocation each for all inputs and metadata: porcupine gets
	// pointers, which box without allocating.
	inputs := make([]s3Input, len(h.S3))
	metas := make([]s3Meta, len(h.S3))
	uncertain := false // a write of unknown outcome is among ops
	for i := range h.S3 {
		op := &h.S3[i]
		kind, ok := s3KindOf(op.Op)
		if !ok {
			continue
		}
		in := &inputs[i]
		*in = s3Input{id: i, node: op.Node, kind: kind, key: op.Key, ifMatch: op.IfMatch, ifNoneMatch: op.IfNoneMatch}
		if kind == s3Put {
			in.bodyETag = op.BodyETag
		}
		out := s3Output{unknown: true}
		ret := op.Call
		if op.Return >= 0 {
			out = s3Output{status: op.Status, code: op.Code, etag: op.ETag}
			ret = op.Return
		}
		client := op.Node
		if client < 0 {
			client = h.Nodes
		}
		meta := &metas[i]
		*meta = s3Meta{index: i, op: op}
		note := func(end time.Duration, why string) porcupine.Annotation {
			return porcupine.Annotation{
				ClientId:        client,
				Start:           int64(op.Call),
				End:             int64(end),
				Description:     describeS3Operation(in, out),
				Details:         why + "; " + describeS3Metadata(meta),
				BackgroundColor: "#e8e8e8",
			}
		}
		a := classify(out)
		if a == answerNotApplied || (a == answerEither && (kind == s3Get || kind == s3Head)) || op.TornBodyETag != "" {
			end := max(op.Call, h.End)
			if op.Return >= 0 {
				end = op.Return
			}
			why := "not checked: it did not change the key and says nothing about it"
			if op.TornBodyETag != "" {
				why = "not checked: a torn read, the body of the version " + op.TornBodyETag + " with another's ETag (the store's fault)"
			}
			notes = append(notes, note(end, why))
			continue
		}
		if out.unknown {
			notes = append(notes, note(max(op.Call, h.End), "no answer: the write may take effect at any instant after it was sent, or never"))
		}
		if a == answerEither {
			uncertain = true
		}
		ops = append(ops, porcupine.Operation{
			ClientId: client,
			Input:    in,
			Call:     int64(op.Call),
			Output:   out,
			Return:   int64(ret),
			Metadata: meta,
		})
	}

	if uncertain {
		unseen(ops)
	}
	return ops, notes
}

// unseen replaces with s3Unseen the body ETag of every put of unknown
// outcome (no answer, a 5xx, no connection) that no operation mentions,
// and links every write without an answer to the first one alike
// (s3Input.like).
func unseen(ops []porcupine.Operation) {
	type mention struct{ key, etag string }
	mentioned := make(map[mention]bool)
	for _, op := range ops {
		in, out := op.Input.(*s3Input), op.Output.(s3Output)
		for _, etag := range [...]string{in.ifMatch, in.ifNoneMatch, out.etag} {
			if etag != "" {
				mentioned[mention{in.key, strings.Trim(etag, `"`)}] = true
			}
		}
	}
	type effect struct {
		kind                           s3Kind
		key, ifMatch, ifNone, bodyETag string
	}
	effects := make(map[effect]*s3Input)
	for _, op := range ops {
		in, out := op.Input.(*s3Input), op.Output.(s3Output)
		if in.kind == s3Put && classify(out) == answerEither && !mentioned[mention{in.key, strings.Trim(in.bodyETag, `"`)}] {
			in.bodyETag = s3Unseen
		}
		if !out.unknown {
			continue
		}
		e := effect{in.kind, in.key, strings.Trim(in.ifMatch, `"`), in.ifNoneMatch, in.bodyETag}
		if in.like = effects[e]; in.like == nil {
			effects[e] = in
		}
	}
}
