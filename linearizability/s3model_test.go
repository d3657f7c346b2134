package linearizability

import (
	"cmp"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/s3lease/s3lease/sim"
)

// Builders for hand-written S3 histories, all on key "k". Times are in
// milliseconds; a negative ret means no answer came.

// etagOf is the quoted hex MD5 of body, computed independently of sim.
func etagOf(body string) string {
	sum := md5.Sum([]byte(body))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// at is who sent a request and when it was called and answered.
type at struct{ node, call, ret int }

func s3req(a at, op string) sim.S3Op {
	o := sim.S3Op{Node: a.node, Op: op, Key: "k", Call: ms(a.call), Return: ms(a.ret)}
	if a.ret < 0 {
		o.Return = -1
	}
	return o
}

// answer sets a request's answer, or clears it if the request got none.
func answer(o sim.S3Op, status int, code, etag string) sim.S3Op {
	if o.Return < 0 {
		return o
	}
	o.Status, o.Code, o.ETag = status, code, etag
	return o
}

// put is an unconditional PutObject of body answered 200.
func put(a at, body string) sim.S3Op {
	o := s3req(a, "PutObject")
	o.BodyETag = etagOf(body)
	return answer(o, 200, "", o.BodyETag)
}

// create is a PutObject If-None-Match:* of body answered 200.
func create(a at, body string) sim.S3Op {
	o := put(a, body)
	o.IfNoneMatch = "*"
	return o
}

// cas is a PutObject If-Match:ETag(prev) of body answered 200.
func cas(a at, prev, body string) sim.S3Op {
	o := put(a, body)
	o.IfMatch = etagOf(prev)
	return o
}

// get is a GetObject answered 200 with body's ETag, or 404 if body is "".
func get(a at, body string) sim.S3Op {
	o := s3req(a, "GetObject")
	if body == "" {
		return answer(o, 404, "NoSuchKey", "")
	}
	return answer(o, 200, "", etagOf(body))
}

// del is an unconditional DeleteObject answered 200.
func del(a at) sim.S3Op { return answer(s3req(a, "DeleteObject"), 200, "", "") }

// withError replaces a request's answer with an error.
func withError(o sim.S3Op, status int, code string) sim.S3Op { return answer(o, status, code, "") }

// s3History is a history of requests from four nodes.
func s3History(ops ...sim.S3Op) *sim.History {
	return &sim.History{Nodes: 4, End: ms(10_000), S3: ops}
}

func mustCheckS3(t *testing.T, h *sim.History, want string) S3Result {
	t.Helper()
	r := CheckS3(h, 10*time.Second)
	if string(r.Result) != want {
		var b strings.Builder
		for i, o := range h.S3 {
			fmt.Fprintf(&b, "  %d: %+v\n", i, o)
		}
		t.Fatalf("CheckS3 = %s, want %s; history:\n%s", r.Result, want, b.String())
	}
	return r
}

// TestS3LinearizableHistories lists histories S3 could have produced.
func TestS3LinearizableHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []sim.S3Op
	}{
		{"empty", nil},
		{"sequential", []sim.S3Op{
			get(at{0, 0, 10}, ""),
			create(at{0, 20, 30}, "a"),
			get(at{1, 40, 50}, "a"),
			cas(at{1, 60, 70}, "a", "b"),
			withError(cas(at{0, 80, 90}, "a", "c"), 412, "PreconditionFailed"),
			withError(create(at{2, 100, 110}, "c"), 412, "PreconditionFailed"),
			answer(s3req(at{2, 120, 130}, "HeadObject"), 200, "", etagOf("b")),
			del(at{0, 140, 150}),
			get(at{1, 160, 170}, ""),
			withError(s3req(at{1, 180, 190}, "HeadObject"), 404, "NotFound"),
			withError(cas(at{1, 200, 210}, "b", "c"), 404, "NoSuchKey"),
			del(at{2, 220, 230}), // deleting a missing key succeeds
			create(at{2, 240, 250}, "c"),
		}},
		{"conditional reads and deletes", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			withError(func() sim.S3Op { o := get(at{1, 20, 30}, "a"); o.IfNoneMatch = etagOf("a"); return o }(), 304, "NotModified"),
			func() sim.S3Op { o := get(at{1, 40, 50}, "a"); o.IfMatch = etagOf("a"); return o }(),
			withError(func() sim.S3Op { o := get(at{1, 60, 70}, "a"); o.IfMatch = etagOf("z"); return o }(), 412, "PreconditionFailed"),
			withError(func() sim.S3Op { o := del(at{2, 80, 90}); o.IfMatch = etagOf("z"); return o }(), 412, "PreconditionFailed"),
			// S3 accepts an If-Match ETag without its quotes.
			func() sim.S3Op { o := del(at{2, 100, 110}); o.IfMatch = strings.Trim(etagOf("a"), `"`); return o }(),
			withError(func() sim.S3Op { o := del(at{2, 120, 130}); o.IfMatch = etagOf("a"); return o }(), 404, "NoSuchKey"),
			// Both preconditions at once: 501, nothing written.
			withError(func() sim.S3Op { o := create(at{3, 140, 150}, "b"); o.IfMatch = etagOf("a"); return o }(), 501, "NotImplemented"),
			get(at{3, 160, 170}, ""),
		}},
		{"overlapping creates, the later-answered one wins", []sim.S3Op{
			create(at{0, 0, 30}, "a"),
			withError(create(at{1, 5, 20}, "b"), 412, "PreconditionFailed"),
			get(at{2, 40, 50}, "a"),
		}},
		{"overlapping unconditional puts, either order", []sim.S3Op{
			put(at{0, 0, 30}, "a"),
			put(at{1, 5, 25}, "b"),
			get(at{2, 10, 20}, "b"),
			get(at{2, 40, 50}, "a"),
		}},
		{"a read concurrent with a write sees either value", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 40}, "a", "b"),
			get(at{2, 25, 30}, "a"),
			get(at{3, 26, 35}, "b"),
		}},
		{"unknown outcome, applied", []sim.S3Op{
			create(at{0, 0, -1}, "a"),
			withError(create(at{1, 50, 60}, "b"), 412, "PreconditionFailed"),
			get(at{2, 70, 80}, "a"),
		}},
		{"unknown outcome, not applied", []sim.S3Op{
			create(at{0, 0, -1}, "a"),
			get(at{1, 50, 60}, ""),
			create(at{1, 70, 80}, "b"),
			get(at{2, 90, 100}, "b"),
		}},
		{"unknown outcome, applied long after its call", []sim.S3Op{
			put(at{0, 0, -1}, "a"),
			get(at{1, 50, 60}, ""),
			get(at{2, 5000, 5010}, "a"),
		}},
		{"500 after apply, the retry answered 412", []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 500, "InternalError"),
			withError(create(at{0, 20, 30}, "a"), 412, "PreconditionFailed"),
			get(at{1, 40, 50}, "a"),
		}},
		{"500 and 503 not applied", []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 500, "InternalError"),
			withError(create(at{1, 20, 30}, "b"), 503, "SlowDown"),
			get(at{2, 40, 50}, ""),
		}},
		{"409 not applied", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			withError(cas(at{1, 20, 30}, "a", "b"), 409, "ConditionalRequestConflict"),
			get(at{2, 40, 50}, "a"),
			cas(at{2, 60, 70}, "a", "c"),
		}},
		{"connection error, applied", []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 0, "dial tcp: connection refused"),
			get(at{1, 40, 50}, "a"),
		}},
		{"ABA: equal bodies have equal ETags", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			cas(at{2, 40, 50}, "b", "a"),
			cas(at{0, 60, 70}, "a", "c"),
		}},
		{"a delete from outside the nodes", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			del(at{-1, 20, 20}),
			create(at{1, 30, 40}, "b"),
		}},
		{"ListObjectsV2 is left out", []sim.S3Op{
			answer(s3req(at{0, 0, 10}, "ListObjectsV2"), 200, "", ""),
			create(at{0, 20, 30}, "a"),
		}},
		{"keys are independent", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			func() sim.S3Op { o := create(at{1, 20, 30}, "a"); o.Key = "other"; return o }(),
			withError(create(at{2, 40, 50}, "b"), 412, "PreconditionFailed"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { mustCheckS3(t, s3History(tc.ops...), "Ok") })
	}
}

// TestS3IllegalHistories lists histories S3 cannot have produced.
func TestS3IllegalHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []sim.S3Op
	}{
		{"a read of an ETag no put wrote", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			get(at{1, 20, 30}, "x"),
		}},
		{"a read of an object nobody wrote", []sim.S3Op{
			get(at{1, 20, 30}, "a"),
		}},
		{"two creates succeed with no delete between", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			create(at{1, 5, 15}, "b"),
		}},
		{"a stale read after a completed overwrite", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			cas(at{1, 20, 30}, "a", "b"),
			get(at{2, 40, 50}, "a"),
		}},
		{"If-Match succeeds on an ETag replaced before its call", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			put(at{1, 20, 30}, "b"),
			cas(at{2, 40, 50}, "a", "c"),
		}},
		{"a 409-answered write is read later", []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 409, "ConditionalRequestConflict"),
			get(at{1, 20, 30}, "a"),
		}},
		{"a read after a completed delete sees the old ETag", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			del(at{1, 20, 30}),
			get(at{2, 40, 50}, "a"),
		}},
		{"a write answered with an ETag other than its body's", []sim.S3Op{
			func() sim.S3Op { o := create(at{0, 0, 10}, "a"); o.ETag = etagOf("b"); return o }(),
		}},
		{"a create refused on an absent key", []sim.S3Op{
			withError(create(at{0, 0, 10}, "a"), 412, "PreconditionFailed"),
		}},
		{"If-Match on a missing key answered 412, not 404", []sim.S3Op{
			withError(cas(at{0, 0, 10}, "a", "b"), 412, "PreconditionFailed"),
		}},
		{"a read misses a completed create", []sim.S3Op{
			create(at{0, 0, 10}, "a"),
			get(at{1, 20, 30}, ""),
		}},
		{"a HEAD 404 carries GetObject's code", []sim.S3Op{
			withError(s3req(at{0, 0, 10}, "HeadObject"), 404, "NoSuchKey"),
		}},
		{"an unknown conditional write cannot overwrite", []sim.S3Op{
			create(at{0, 0, -1}, "a"),
			create(at{1, 10, 20}, "b"),
			get(at{2, 30, 40}, "a"),
		}},
		{"a 500 write cannot take effect before its call", []sim.S3Op{
			get(at{1, 0, 10}, "a"),
			withError(create(at{0, 20, 30}, "a"), 500, "InternalError"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { mustCheckS3(t, s3History(tc.ops...), "Illegal") })
	}
}

// TestS3ModelMatchesStore is a differential test of s3Apply against
// sim.Store: for every starting state and every combination of operation
// and preconditions the simulator can send, the model must predict the
// store's answer and its next state.
func TestS3ModelMatchesStore(t *testing.T) {
	a, b := etagOf("a"), etagOf("b")
	conds := []string{"", "*", a, strings.Trim(a, `"`), b}
	now := time.Unix(0, 0)
	cases := 0
	for _, present := range []bool{false, true} {
		for kind := range s3KindNames {
			for _, ifMatch := range conds {
				for _, ifNone := range conds {
					if s3Kind(kind) == s3Delete && ifNone != "" {
						continue // DeleteObject has no If-None-Match
					}
					store := sim.NewStore(sim.DialectAWS)
					store.CreateBucket("bk")
					s := s3State{}
					if present {
						if _, err := store.PutObject(now, &s3.PutObjectInput{Bucket: aws.String("bk"), Key: aws.String("k")}, []byte("a")); err != nil {
							t.Fatal(err)
						}
						s = s3State{present: true, etag: a}
					}
					in := &s3Input{kind: s3Kind(kind), key: "k", ifMatch: ifMatch, ifNoneMatch: ifNone}
					got := storeAnswer(t, store, in, "b")
					if in.kind == s3Put {
						in.bodyETag = b
					}
					want, next := s3Apply(s, in)
					_, etag, ok := store.Object("bk", "k")
					if got != want || next != (s3State{present: ok, etag: etag}) {
						t.Errorf("%s on %s: store answered %+v leaving present=%v %s; model says %+v leaving %+v",
							describeS3Operation(in, got), describeKey(s), got, ok, etag, want, next)
					}
					cases++
				}
			}
		}
	}
	if cases != 2*(3*len(conds)*len(conds)+len(conds)) {
		t.Fatalf("%d cases", cases)
	}
}

// storeAnswer sends in to store and returns the answer as the simulated
// client records it (sim's statusOf).
func storeAnswer(t *testing.T, store *sim.Store, in *s3Input, body string) s3Output {
	t.Helper()
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return aws.String(v)
	}
	bk, k, now := aws.String("bk"), aws.String(in.key), time.Unix(1, 0)
	var err error
	var etag *string
	switch in.kind {
	case s3Put:
		var out *s3.PutObjectOutput
		out, err = store.PutObject(now, &s3.PutObjectInput{Bucket: bk, Key: k, IfMatch: opt(in.ifMatch), IfNoneMatch: opt(in.ifNoneMatch)}, []byte(body))
		if out != nil {
			etag = out.ETag
		}
	case s3Get:
		var out *s3.GetObjectOutput
		out, err = store.GetObject(now, &s3.GetObjectInput{Bucket: bk, Key: k, IfMatch: opt(in.ifMatch), IfNoneMatch: opt(in.ifNoneMatch)})
		if out != nil {
			etag = out.ETag
		}
	case s3Head:
		var out *s3.HeadObjectOutput
		out, err = store.HeadObject(now, &s3.HeadObjectInput{Bucket: bk, Key: k, IfMatch: opt(in.ifMatch), IfNoneMatch: opt(in.ifNoneMatch)})
		if out != nil {
			etag = out.ETag
		}
	case s3Delete:
		_, err = store.DeleteObject(now, &s3.DeleteObjectInput{Bucket: bk, Key: k, IfMatch: opt(in.ifMatch)})
	}
	if err == nil {
		return s3Output{status: 200, etag: aws.ToString(etag)}
	}
	var hs interface{ HTTPStatusCode() int }
	var api smithy.APIError
	if !errors.As(err, &hs) || !errors.As(err, &api) {
		t.Fatalf("store answered %v, not an S3 error", err)
	}
	return s3Output{status: hs.HTTPStatusCode(), code: api.ErrorCode()}
}

// TestS3NextUncertainAnswers checks how the model treats answers that do
// not come from the store's judgement.
func TestS3NextUncertainAnswers(t *testing.T) {
	absent, a := s3State{}, s3State{present: true, etag: etagOf("a")}
	create := &s3Input{kind: s3Put, key: "k", ifNoneMatch: "*", bodyETag: etagOf("a")}
	read := &s3Input{kind: s3Get, key: "k"}
	for _, tc := range []struct {
		name  string
		from  s3State
		in    *s3Input
		out   s3Output
		nexts []s3State
	}{
		{"no answer: either", absent, create, s3Output{unknown: true}, []s3State{absent, a}},
		{"no connection: either", absent, create, s3Output{code: "dial tcp"}, []s3State{absent, a}},
		{"500: either", absent, create, s3Output{status: 500, code: "InternalError"}, []s3State{absent, a}},
		{"503: either", absent, create, s3Output{status: 503, code: "SlowDown"}, []s3State{absent, a}},
		{"409: not applied", absent, create, s3Output{status: 409, code: "ConditionalRequestConflict"}, []s3State{absent}},
		{"failing condition, no answer: unchanged", a, create, s3Output{unknown: true}, []s3State{a}},
		{"read, no answer: unchanged", a, read, s3Output{unknown: true}, []s3State{a}},
		{"501 is the store's answer", absent, create, s3Output{status: 501, code: "NotImplemented"}, nil},
		{"200 applies", absent, create, s3Output{status: 200, etag: etagOf("a")}, []s3State{a}},
	} {
		if got := s3Next(tc.from, tc.in, tc.out); !slices.Equal(got, tc.nexts) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.nexts)
		}
	}
}

// TestS3PendingWrites checks the model's state around unanswered writes:
// they stay pending, take effect at most once, and possibilities that
// another dominates are dropped.
func TestS3PendingWrites(t *testing.T) {
	wa := &s3Input{id: 1, kind: s3Put, key: "k", bodyETag: etagOf("a")}
	wb := &s3Input{id: 2, kind: s3Put, key: "k", ifNoneMatch: "*", bodyETag: etagOf("b")}
	read := func(body string) (*s3Input, s3Output) {
		return &s3Input{id: 9, kind: s3Get, key: "k"}, s3Output{status: 200, etag: etagOf(body)}
	}
	ok, st := s3Step(s3Model.Init(), wa, s3Output{unknown: true})
	ok2, st := s3Step(st, wb, s3Output{unknown: true})
	if !ok || !ok2 || describeS3State(st) != "absent, pending S3[1] S3[2]" {
		t.Fatalf("after two unanswered writes: %s", describeS3State(st))
	}
	in, out := read("a")
	ok, st = s3Step(st, in, out)
	// wa took effect; wb may still, but only on an absent key: it stays
	// pending though it can no longer apply unless something deletes.
	if !ok || describeS3State(st) != `present "0cc175b9", pending S3[2]` {
		t.Fatalf("after reading a: %v %s", ok, describeS3State(st))
	}
	in, out = read("b")
	if ok, _ := s3Step(st, in, out); ok {
		t.Fatalf("a create applied over a present key")
	}
	ok, st = s3Step(st, &s3Input{id: 10, kind: s3Put, key: "k", bodyETag: etagOf("c")}, s3Output{status: 200, etag: etagOf("c")})
	in, out = read("a")
	if ok2, _ := s3Step(st, in, out); !ok || ok2 {
		t.Fatalf("an unanswered write took effect twice")
	}
}

func TestS3Descriptions(t *testing.T) {
	in := &s3Input{node: 3, kind: s3Put, key: "k", ifMatch: etagOf("a"), bodyETag: etagOf("b")}
	got := describeS3Operation(in, s3Output{status: 412, code: "PreconditionFailed"})
	want := `n3 PutObject If-Match:"0cc175b9" body "92eb5ffe" -> 412 PreconditionFailed`
	if got != want {
		t.Errorf("describe = %s, want %s", got, want)
	}
	got = describeS3Operation(&s3Input{node: -1, kind: s3Get, key: "k"}, s3Output{status: 200, etag: etagOf("b")})
	if want := `outside GetObject -> 200 "92eb5ffe"`; got != want {
		t.Errorf("describe = %s, want %s", got, want)
	}
	got = describeS3Operation(&s3Input{node: 0, kind: s3Put, ifNoneMatch: "*", bodyETag: etagOf("b")}, s3Output{unknown: true})
	if want := `n0 PutObject If-None-Match:* body "92eb5ffe" -> no answer`; got != want {
		t.Errorf("describe = %s, want %s", got, want)
	}
	st := s3Possibilities{{key: s3State{present: true, etag: etagOf("a")}}, {pending: []*s3Input{{id: 1}, {id: 2}, {id: 3}, {id: 4}}}}
	if got, want := describeS3State(st), `present "0cc175b9" | absent, 4 unanswered writes pending`; got != want {
		t.Errorf("state = %s, want %s", got, want)
	}
	if got := s3Model.DescribeState(s3Model.Init()); got != "absent" {
		t.Errorf("initial state = %s", got)
	}
}

// TestS3Operations checks what CheckS3 hands to porcupine: an unanswered
// write is an operation at the instant it was sent; a request from outside
// the nodes gets a row of its own; requests that say nothing are left out;
// ListObjectsV2 is left out; annotations show the unanswered write's wait
// and the requests left out.
func TestS3Operations(t *testing.T) {
	ops, notes := s3Operations(s3History(
		create(at{0, 5, -1}, "a"),
		get(at{-1, 6, 7}, ""),
		get(at{1, 8, -1}, "a"),
		withError(get(at{1, 9, 10}, "a"), 503, "SlowDown"),
		withError(create(at{2, 11, 12}, "a"), 409, "ConditionalRequestConflict"),
		withError(create(at{2, 13, 14}, "a"), 500, "InternalError"),
		answer(s3req(at{3, 15, 16}, "ListObjectsV2"), 200, "", ""),
	))
	if len(ops) != 3 || ops[0].Return != int64(ms(5)) || ops[0].Call != int64(ms(5)) ||
		!ops[0].Output.(s3Output).unknown || ops[1].ClientId != 4 || ops[2].Output.(s3Output).status != 500 {
		t.Errorf("operations = %+v", ops)
	}
	if len(notes) != 4 || notes[0].End != int64(ms(10_000)) || !strings.Contains(notes[0].Details, "no answer") ||
		notes[1].End != int64(ms(10_000)) || notes[1].ClientId != 1 ||
		notes[2].Description != "n1 GetObject -> 503 SlowDown" || notes[2].End != int64(ms(10)) ||
		!strings.Contains(notes[3].Details, "S3[4]") {
		t.Errorf("annotations = %+v", notes)
	}
}

// TestS3TimeoutIsUnknown checks that a check cut short by its timeout says
// Unknown, not Ok: sixteen overlapping puts answered 500 and a read of an
// ETag none of them wrote make porcupine try every subset of the puts,
// which takes far longer than a millisecond.
func TestS3TimeoutIsUnknown(t *testing.T) {
	var ops []sim.S3Op
	for i := range 16 {
		ops = append(ops, withError(put(at{i % 4, i, 100}, fmt.Sprint("p", i)), 500, "InternalError"))
	}
	ops = append(ops, get(at{0, 200, 210}, "never"))
	if r := CheckS3(s3History(ops...), time.Millisecond); r.Result != porcupine.Unknown {
		t.Fatalf("CheckS3 = %s after %v", r.Result, r.Duration)
	}
}

// TestS3CheckDoesNotModifyHistory checks that CheckS3 leaves h alone, on a
// run whose unanswered writes it rewrites internally.
func TestS3CheckDoesNotModifyHistory(t *testing.T) {
	h := workloadRun(t, 2, true)
	before := slices.Clone(h.S3)
	CheckS3(h, 10*time.Second)
	if !slices.Equal(h.S3, before) {
		t.Fatal("CheckS3 modified the history")
	}
}

// TestS3PartitionEvent checks the model on porcupine's other history
// form, events, with two keys.
func TestS3PartitionEvent(t *testing.T) {
	ops, _ := s3Operations(s3History(
		create(at{0, 0, 10}, "a"),
		func() sim.S3Op { o := create(at{1, 5, 15}, "b"); o.Key = "other"; return o }(),
		get(at{2, 20, 30}, "a"),
	))
	var events []porcupine.Event
	for id, op := range ops {
		events = append(events,
			porcupine.Event{Kind: porcupine.CallEvent, Value: op.Input, Id: id},
			porcupine.Event{Kind: porcupine.ReturnEvent, Value: op.Output, Id: id})
	}
	if !porcupine.CheckEvents(s3Model, events) {
		t.Fatal("sequential events with two keys: not linearizable")
	}
	if parts := s3PartitionEvent(events); len(parts) != 2 || len(parts[0]) != 4 || len(parts[1]) != 2 {
		t.Fatalf("partitions: %v", parts)
	}
	events[len(events)-1].Value = s3Output{status: 404, code: "NoSuchKey"}
	if porcupine.CheckEvents(s3Model, events) {
		t.Fatal("a read missing a completed create: linearizable")
	}
}

// s3InfinityModel is the model as the S3 semantics state it, with nothing
// made fast: s3Next as porcupine's NondeterministicModel, over histories
// in which every request is an operation and one without an answer
// returns at infinity. TestS3ModelMatchesInfinityModel holds s3Model to it.
var s3InfinityModel = func() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Init: func() []any { return []any{s3State{}} },
		Step: func(state, input, output any) []any {
			var next []any
			for _, s := range s3Next(state.(s3State), input.(*s3Input), output.(s3Output)) {
				next = append(next, s)
			}
			return next
		},
	}
	return nm.ToModel()
}()

// checkInfinity checks h against s3InfinityModel.
func checkInfinity(h *sim.History) porcupine.CheckResult {
	var ops []porcupine.Operation
	for i, o := range h.S3 {
		kind, ok := s3KindOf(o.Op)
		if !ok {
			continue
		}
		in := &s3Input{id: i, kind: kind, key: o.Key, ifMatch: o.IfMatch, ifNoneMatch: o.IfNoneMatch, bodyETag: o.BodyETag}
		op := porcupine.Operation{Input: in, Call: int64(o.Call), Return: math.MaxInt64, Output: s3Output{unknown: true}}
		if o.Return >= 0 {
			op.Return, op.Output = int64(o.Return), s3Output{status: o.Status, code: o.Code, etag: o.ETag}
		}
		ops = append(ops, op)
	}
	return porcupine.CheckOperationsTimeout(s3InfinityModel, ops, 0)
}

// randomS3History is a small history of requests on one key from a store
// that follows s3Apply: each request takes effect at a random instant of
// its interval, or, without an answer, at any later instant; a request
// answered 500 or not at all takes effect or not at random, one answered
// 409 does not. With probability one half one answer is then replaced by
// another the store might give to some request, which usually makes the
// history illegal.
func randomS3History(r *rand.Rand) (h *sim.History, corrupted bool) {
	// Bodies: three shared ones (equal ETags recur) and one of its own
	// for every request, so that a read can tell which write it sees.
	n := 3 + r.IntN(10)
	bodies := []string{"a", "b", "c"}
	for i := range n {
		bodies = append(bodies, fmt.Sprint("u", i))
	}
	etag := func() string { return etagOf(bodies[r.IntN(len(bodies))]) }
	type planned struct {
		op      sim.S3Op
		at      time.Duration
		fate    int // 0: answered by the store, 1: no answer, 2: 500, 3: 409
		applied bool
	}
	plan := make([]planned, n)
	for i := range plan {
		p := &plan[i]
		call := ms(r.IntN(50))
		ret := call + ms(r.IntN(20))
		p.op = sim.S3Op{Node: r.IntN(3), Key: "k", Call: call, Return: ret}
		p.at = call + time.Duration(r.Int64N(int64(ret-call)+1))
		switch r.IntN(4) {
		case 0:
			p.op.Op, p.op.BodyETag = "PutObject", etagOf(bodies[3+i])
			if r.IntN(3) == 0 {
				p.op.BodyETag = etagOf(bodies[r.IntN(3)])
			}
			switch r.IntN(3) {
			case 0:
				p.op.IfNoneMatch = "*"
			case 1:
				p.op.IfMatch = etag()
			}
		case 1:
			p.op.Op = "GetObject"
			switch r.IntN(4) {
			case 0:
				p.op.IfNoneMatch = etag()
			case 1:
				p.op.IfMatch = etag()
			}
		case 2:
			p.op.Op = "HeadObject"
		default:
			p.op.Op = "DeleteObject"
			if r.IntN(2) == 0 {
				p.op.IfMatch = etag()
			}
		}
		switch f := r.IntN(8); {
		case f <= 1:
			p.fate, p.applied = 1, r.IntN(2) == 0
			p.at = call + ms(r.IntN(80))
			p.op.Return = -1
		case f == 2:
			p.fate, p.applied = 2, r.IntN(2) == 0
		case f == 3 && p.op.Op == "PutObject":
			p.fate = 3
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(plan[a].at, plan[b].at) })
	var s s3State
	var determined []int
	for _, i := range order {
		p := &plan[i]
		in := &s3Input{kind: func() s3Kind { k, _ := s3KindOf(p.op.Op); return k }(), key: "k",
			ifMatch: p.op.IfMatch, ifNoneMatch: p.op.IfNoneMatch, bodyETag: p.op.BodyETag}
		want, next := s3Apply(s, in)
		switch p.fate {
		case 0:
			p.op.Status, p.op.Code, p.op.ETag = want.status, want.code, want.etag
			s = next
			determined = append(determined, i)
		case 1, 2:
			if p.fate == 2 {
				p.op.Status, p.op.Code = 500, "InternalError"
			}
			if p.applied {
				s = next
			}
		case 3:
			p.op.Status, p.op.Code = 409, "ConditionalRequestConflict"
		}
	}
	if len(determined) > 0 && r.IntN(2) == 0 {
		o := &plan[determined[r.IntN(len(determined))]].op
		// A read may instead see what some write wrote, most often one of
		// unknown outcome: the answers that test when, and how often,
		// such a write may take effect.
		var written []string
		for _, p := range plan {
			if p.op.Op == "PutObject" && (p.fate != 0 || len(written) == 0 || r.IntN(3) == 0) {
				written = append(written, p.op.BodyETag)
			}
		}
		answers := []s3Output{
			{status: 200, etag: etag()}, {status: 200}, {status: 404, code: "NoSuchKey"}, {status: 404, code: "NotFound"},
			{status: 412, code: "PreconditionFailed"}, {status: 304, code: "NotModified"},
		}
		a := answers[r.IntN(len(answers))]
		if (o.Op == "GetObject" || o.Op == "HeadObject") && len(written) > 0 && r.IntN(2) == 0 {
			a = s3Output{status: 200, etag: written[r.IntN(len(written))]}
		}
		corrupted = a.status != o.Status || a.code != o.Code || a.etag != o.ETag
		o.Status, o.Code, o.ETag = a.status, a.code, a.etag
	}
	h = &sim.History{Nodes: 3, End: ms(200)}
	for _, p := range plan {
		h.S3 = append(h.S3, p.op)
	}
	slices.SortStableFunc(h.S3, func(a, b sim.S3Op) int { return cmp.Compare(a.Call, b.Call) })
	return h, corrupted
}

// TestS3ModelMatchesInfinityModel checks on thousands of small random
// histories that CheckS3 (pending writes in the state, requests that say
// nothing left out, unseen ETags merged) gives exactly the verdict of the
// literal model, and that every history the store produced is Ok.
func TestS3ModelMatchesInfinityModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var verdicts = map[porcupine.CheckResult]int{}
	for n := range 20000 {
		h, corrupted := randomS3History(r)
		want := checkInfinity(h)
		got := CheckS3(h, 10*time.Second).Result
		verdicts[got]++
		if got != want || (!corrupted && got != porcupine.Ok) {
			var b strings.Builder
			for i, o := range h.S3 {
				fmt.Fprintf(&b, "  %d: %+v\n", i, o)
			}
			t.Fatalf("history %d (corrupted %v): CheckS3 = %s, the literal model says %s:\n%s", n, corrupted, got, want, b.String())
		}
	}
	t.Logf("verdicts: %v", verdicts)
	if verdicts[porcupine.Ok] < 5000 || verdicts[porcupine.Illegal] < 5000 {
		t.Fatalf("too one-sided: %v", verdicts)
	}
}
