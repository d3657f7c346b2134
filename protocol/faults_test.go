package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// sdkError builds an error the way the SDK returns an S3 error answer.
func sdkError(op string, status int, code string) error {
	return &smithy.OperationError{
		ServiceID:     "S3",
		OperationName: op,
		Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
				Err:      &smithy.GenericAPIError{Code: code, Message: "injected by the test"},
			},
		},
	}
}

// fault is what faultyStore does to one PutObject.
type fault int

const (
	pass         fault = iota
	applyThen500       // the write applies, the answer is lost: 500 InternalError
	applyThen412       // the write applies, an SDK retry then gets 412
	refuse403          // the write does not apply: 403 AccessDenied
)

// faultyStore is an ObjectStore that injects faults into PutObject calls,
// chosen by plan from the call's number (from 1). after, if set, runs after
// each PutObject with its number and result.
type faultyStore struct {
	ObjectStore
	plan  func(n int) fault
	after func(n int, err error)
	puts  atomic.Int64
}

func (s *faultyStore) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	n := int(s.puts.Add(1))
	out, err := s.put(ctx, n, in, opts)
	if s.after != nil {
		s.after(n, err)
	}
	return out, err
}

func (s *faultyStore) put(ctx context.Context, n int, in *s3.PutObjectInput, opts []func(*s3.Options)) (*s3.PutObjectOutput, error) {
	f := s.plan(n)
	if f == refuse403 {
		return nil, sdkError("PutObject", 403, "AccessDenied")
	}
	out, err := s.ObjectStore.PutObject(ctx, in, opts...)
	if err != nil {
		return out, err
	}
	switch f {
	case applyThen500:
		return nil, sdkError("PutObject", 500, "InternalError")
	case applyThen412:
		return nil, sdkError("PutObject", 412, "PreconditionFailed")
	}
	return out, nil
}

func faultsAt(plan map[int]fault) func(int) fault {
	return func(n int) fault { return plan[n] }
}

// jumpClock is an epochClock whose monotonic time can be moved forward, as
// if the process had been paused.
type jumpClock struct {
	epochClock
	offset atomic.Int64
}

func (c *jumpClock) Monotonic() time.Duration {
	return c.RealClock.Monotonic() + time.Duration(c.offset.Load())
}

func TestInjectedErrorsClassify(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want ErrorClass
	}{
		{sdkError("PutObject", 500, "InternalError"), ClassUnknownOutcome},
		{sdkError("PutObject", 412, "PreconditionFailed"), ClassPreconditionFailed},
		{sdkError("PutObject", 403, "AccessDenied"), ClassOther},
	} {
		if got := ClassifyError(tt.err); got != tt.want {
			t.Errorf("ClassifyError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// A create whose answer is lost (500) or turned into a 412 by an SDK retry
// did apply: the elector recognises its nonce on the next read and leads on
// that write, with token 1. Had it not, it would have taken its own record
// over again with token 2.
func TestAcquisitionWithLostAnswer(t *testing.T) {
	for _, f := range []fault{applyThen500, applyThen412} {
		client := startFakeS3(t)
		store := &faultyStore{ObjectStore: client, plan: faultsAt(map[int]fault{1: f})}
		n := startNode(t, testConfig(t, store, "a"), &leaders{})
		if lease := await(t, n.started, "a term"); lease.Token != 1 {
			t.Errorf("fault %d: leads with token %d, want 1", f, lease.Token)
		}
		if rec := readRecord(t, client); rec.Token != 1 || rec.Holder != "a" {
			t.Errorf("fault %d: record %+v", f, rec)
		}
		n.stop(t)
	}
}

// Renewals whose answers are lost keep the term: the elector finds its own
// nonce in the object and moves its deadline from that write's send. Every
// write after the faulty ones succeeds: one that fails (a renewal
// conditioned on an ETag the elector never got, had it taken a 412 for a
// success) fails the test at once.
func TestRenewalWithLostAnswer(t *testing.T) {
	client := startFakeS3(t)
	enough := make(chan struct{})
	failed := make(chan error, 1)
	var once sync.Once
	store := &faultyStore{
		ObjectStore: client,
		plan:        faultsAt(map[int]fault{2: applyThen500, 3: applyThen412, 4: applyThen500}),
		after: func(n int, err error) {
			switch {
			case n > 4 && err != nil:
				select {
				case failed <- fmt.Errorf("write %d: %w", n, err):
				default:
				}
			case n >= 8:
				once.Do(func() { close(enough) })
			}
		},
	}
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	lease := await(t, n.started, "a term")
	select {
	case <-enough:
	case err := <-failed:
		t.Fatalf("after the faulty writes, %v", err)
	case <-n.stopped:
		t.Fatal("the term ended")
	case <-time.After(waitLimit):
		t.Fatalf("8 writes did not succeed within %v", waitLimit)
	}
	if got, ok := n.Lease(); !ok || got.Token != lease.Token {
		t.Errorf("Lease() = %+v, %v; want token %d", got, ok, lease.Token)
	}
	if rec := readRecord(t, client); rec.Token != lease.Token || rec.Holder != "a" {
		t.Errorf("record %+v", rec)
	}
	n.stop(t)
}

// When renewals keep failing, the watchdog ends the term at the local
// deadline; once writes work again the elector takes its own record back at
// once, with a new token.
func TestRenewalsFailUntilDeadline(t *testing.T) {
	client := startFakeS3(t)
	var fail atomic.Bool
	store := &faultyStore{ObjectStore: client, plan: func(n int) fault {
		if fail.Load() {
			return refuse403
		}
		return pass
	}}
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	first := await(t, n.started, "the first term")
	fail.Store(true)
	await(t, n.stopped, "the term ending at its deadline")
	if n.IsLeader() {
		t.Error("IsLeader after the term ended")
	}
	fail.Store(false)
	second := await(t, n.started, "the second term")
	if second.Token <= first.Token {
		t.Errorf("second term token %d, want above %d", second.Token, first.Token)
	}
	rec := readRecord(t, client)
	if p := rec.Previous; p == nil || p.Holder != "a" || p.Token != first.Token || p.Ended != EndedExpired {
		t.Errorf("record %+v: previous %+v", rec, rec.Previous)
	}
	n.stop(t)
}

// Someone deletes the lock object under a leader: the leader's next renewal
// finds it gone (gofakes3 answers 412 to If-Match on a missing key, AWS 404)
// and the term ends at once. The elector has seen the object, so it knows
// this for a deletion: it times the absence for a lease, as it would a
// record, before it creates a new object, with a token above the one it
// had and at least its wall clock in Unix milliseconds.
func TestObjectDeletedUnderLeader(t *testing.T) {
	client := startFakeS3(t)
	cfg := testConfig(t, client, "a")
	cfg.Clock = NewRealClock()
	n := startNode(t, cfg, &leaders{})
	first := await(t, n.started, "the first term")
	if floor := uint64(first.AcquireTime.UnixMilli()); first.Token < floor {
		t.Errorf("first token %d, below the wall clock at its acquisition (%d ms)", first.Token, floor)
	}
	deleted := time.Now()
	if _, err := client.DeleteObject(context.Background(), &s3.DeleteObjectInput{
		Bucket: aws.String(testBucket), Key: aws.String(testKey),
	}); err != nil {
		t.Fatal(err)
	}
	await(t, n.stopped, "the term ending after the deletion")
	second := await(t, n.started, "the term after the deletion")
	if waited := time.Since(deleted); waited < itLease {
		t.Errorf("recreated the object %v after the deletion, before a lease (%v) of absence", waited, itLease)
	}
	if second.Token <= first.Token || second.Token < uint64(deleted.UnixMilli()) {
		t.Errorf("after the deletion, token %d; want above %d and at least %d", second.Token, first.Token, deleted.UnixMilli())
	}
	if rec := readRecord(t, client); rec.Previous != nil {
		t.Errorf("a recreated object links to %+v", rec.Previous)
	}
	n.stop(t)
}

// A new elector that never saw the object (a restart after a deletion)
// creates it at once, with a token no lower than its wall clock in Unix
// milliseconds: above every token handed out while its wall clock was
// behind by less than the time since.
func TestTokenFloorOfNewObject(t *testing.T) {
	client := startFakeS3(t)
	cfg := testConfig(t, client, "a")
	cfg.Clock = NewRealClock()
	before := time.Now()
	n := startNode(t, cfg, &leaders{})
	lease := await(t, n.started, "a term")
	if lease.Token < uint64(before.UnixMilli()) {
		t.Errorf("token %d below the wall clock before the start (%d ms)", lease.Token, before.UnixMilli())
	}
	if rec := readRecord(t, client); rec.Token != lease.Token {
		t.Errorf("record token %d, lease token %d", rec.Token, lease.Token)
	}
	n.stop(t)
}

// A grant whose answer arrives after its local deadline (the process was
// paused while the answer waited) is not acted on: no term with that token
// begins. The record is still ours, so the elector takes it again at once.
func TestLateGrantIsNotActedOn(t *testing.T) {
	client := startFakeS3(t)
	clock := &jumpClock{epochClock: epochClock{NewRealClock()}}
	store := &faultyStore{
		ObjectStore: client,
		plan:        faultsAt(nil),
		after: func(n int, err error) {
			if n == 1 {
				clock.offset.Add(int64(itRenew)) // a pause as long as the term
			}
		},
	}
	cfg := testConfig(t, store, "a")
	cfg.Clock = clock
	n := startNode(t, cfg, &leaders{})
	lease := await(t, n.started, "a term")
	if lease.Token != 2 {
		t.Errorf("first term has token %d, want 2 (token 1 came too late)", lease.Token)
	}
	rec := readRecord(t, client)
	if p := rec.Previous; p == nil || p.Holder != "a" || p.Token != 1 || p.Ended != EndedExpired {
		t.Errorf("record %+v: previous %+v", rec, rec.Previous)
	}
	n.stop(t)
}

func TestRunTwice(t *testing.T) {
	client := startFakeS3(t)
	n := startNode(t, testConfig(t, client, "a"), &leaders{})
	await(t, n.started, "a term")
	if err := n.Run(context.Background()); !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("second Run: %v, want ErrAlreadyRunning", err)
	}
	n.stop(t)
}

// tokenLog is an ObjectStore that records the token of every record written
// through it.
type tokenLog struct {
	ObjectStore
	mu     sync.Mutex
	tokens []uint64
}

func (s *tokenLog) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	rec, _ := DecodeRecord(body) // token 0 if it does not decode
	s.mu.Lock()
	s.tokens = append(s.tokens, rec.Token)
	s.mu.Unlock()
	copied := *in
	copied.Body = bytes.NewReader(body)
	return s.ObjectStore.PutObject(ctx, &copied, opts...)
}

// written returns the tokens written so far.
func (s *tokenLog) written() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tokens)
}

// putRecord stores r as the lock object, as someone else would.
func putRecord(t *testing.T, client *s3.Client, r Record) {
	t.Helper()
	body, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(testBucket), Key: aws.String(testKey), Body: bytes.NewReader(body),
	}); err != nil {
		t.Fatal(err)
	}
}

// A record holding the largest token, which no token can follow, is refused
// as corrupt: the elector times it for the longer of its lease and ours,
// then overwrites it with a record that links to nothing and carries the
// elector's own next token. It used to compute token+1 = 0, fail to encode
// that, take the failure for an unknown S3 outcome, and retry for ever.
func TestLargestTokenIsOverwritten(t *testing.T) {
	client := startFakeS3(t)
	const recordLease = 2 * time.Second // longer than itLease
	putRecord(t, client, Record{Holder: "intruder", Token: math.MaxUint64, LeaseDurationMS: recordLease.Milliseconds(),
		Nonce: "0123456789abcdef", AcquireTime: time.Now(), RenewTime: time.Now()})
	store := &tokenLog{ObjectStore: client}
	start := time.Now()
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	lease := await(t, n.started, "a term after the record's lease")
	if waited := time.Since(start); waited < recordLease {
		t.Errorf("took the record over after %v, before its own lease of %v", waited, recordLease)
	}
	if lease.Token != 1 {
		t.Errorf("leads with token %d, want 1", lease.Token)
	}
	if rec := readRecord(t, client); rec.Holder != "a" || rec.Token != 1 || rec.Previous != nil {
		t.Errorf("record %+v, previous %+v; want a's, token 1, unlinked", rec, rec.Previous)
	}
	n.stop(t)
	for _, tok := range store.written() {
		if tok != 1 {
			t.Errorf("wrote token %d (all writes: %v)", tok, store.written())
			break
		}
	}
}

// An elector that has itself written the largest token does not wrap: its
// next token is the largest again. It used to compute 0, fail to encode it,
// and then write token 1.
func TestOwnLargestTokenDoesNotWrap(t *testing.T) {
	client := startFakeS3(t)
	store := &tokenLog{ObjectStore: client}
	n := startNodeWith(t, testConfig(t, store, "a"), &leaders{}, func(e *Elector) { e.highest = math.MaxUint64 })
	if lease := await(t, n.started, "a term"); lease.Token != math.MaxUint64 {
		t.Errorf("leads with token %d, want %d", lease.Token, uint64(math.MaxUint64))
	}
	n.stop(t)
	for _, tok := range store.written() {
		if tok != math.MaxUint64 {
			t.Errorf("wrote token %d (all writes: %v)", tok, store.written())
			break
		}
	}
}

// A write that fails before it is sent (no entropy for its nonce, or a
// record that does not encode) certainly did not happen: it is never an
// unknown outcome, and it is neither sent nor remembered.
func TestUnsentWriteIsNotAnOutcome(t *testing.T) {
	client := startFakeS3(t)
	valid := Record{Holder: "a", Token: 1, LeaseDurationMS: 1500}
	for _, tt := range []struct {
		name    string
		entropy io.Reader
		rec     Record
	}{
		{"record does not encode", nil, Record{Holder: "a", Token: 0, LeaseDurationMS: 1500}},
		{"record too long", nil, Record{Holder: strings.Repeat("<", maxRecordSize/6+1), Token: 1, LeaseDurationMS: 1500}},
		{"no entropy", iotest.ErrReader(errors.New("no entropy")), valid},
	} {
		store := &faultyStore{ObjectStore: client, plan: faultsAt(nil)}
		cfg := testConfig(t, store, "a")
		cfg.Entropy = tt.entropy
		cfg.Callbacks.OnStartedLeading = func(context.Context, Lease) {}
		e, err := NewElector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = e.write(context.Background(), tt.rec, "", PurposeAcquire)
		if err == nil {
			t.Fatalf("%s: write succeeded", tt.name)
		}
		if class := classify(err); class != ClassOther {
			t.Errorf("%s: %v classifies as %v, want %v", tt.name, err, class, ClassOther)
		}
		if puts := store.puts.Load(); puts != 0 || len(e.writes) != 0 {
			t.Errorf("%s: %d PutObject calls, %d writes remembered", tt.name, puts, len(e.writes))
		}
	}
}
