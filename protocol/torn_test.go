package protocol

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// answersStore answers the nth GetObject (from 0) with answers[n] (the
// last one from then on); it takes no writes.
type answersStore struct {
	answers []storedAnswer
	gets    int
}

type storedAnswer struct{ etag, body string }

func (s *answersStore) GetObject(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	a := s.answers[min(s.gets, len(s.answers)-1)]
	s.gets++
	return &s3.GetObjectOutput{ETag: aws.String(a.etag), Body: io.NopCloser(strings.NewReader(a.body)),
		ContentLength: aws.Int64(int64(len(a.body)))}, nil
}

func (s *answersStore) PutObject(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	return nil, errors.New("answersStore takes no writes")
}

// md5ETagOf is S3's ETag of body: its MD5 in hex, quoted.
func md5ETagOf(body string) string {
	sum := md5.Sum([]byte(body))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// otherETagOf is an ETag that looks like an MD5 and is not body's, as
// SSE-KMS gives: the first 16 bytes of its SHA-256.
func otherETagOf(body string) string {
	sum := sha256.Sum256([]byte(body))
	return `"` + hex.EncodeToString(sum[:md5.Size]) + `"`
}

// tornElector is an elector reading answers, as read sees them.
func tornElector(t *testing.T, answers ...storedAnswer) (*Elector, *answersStore) {
	t.Helper()
	store := &answersStore{answers: answers}
	cfg := testConfig(t, store, "f")
	cfg.Callbacks.OnStartedLeading = func(context.Context, Lease) {}
	e, err := NewElector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e, store
}

// encoded is r's body.
func encoded(t *testing.T, r Record) string {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTornReadIsReadAgain: the attack a torn read makes, and the defence.
// A record was released (token 5) and g took it over (token 6); a read that
// raced g's write came back torn: the released body under the ETag of g's
// record. Acting on it, an elector would take the "released" record at
// once, If-Match g's ETag (which holds), with token 6: g's token, beside g.
// read sees that the body is not what the ETag says (its MD5 is another),
// reads again, and returns g's record as it is.
func TestTornReadIsReadAgain(t *testing.T) {
	released := encoded(t, Record{Holder: "h", Token: 5, LeaseDurationMS: 1500, Released: true, Nonce: "0123456789abcdef"})
	g := encoded(t, Record{Holder: "g", Token: 6, LeaseDurationMS: 1500, Nonce: "fedcba9876543210",
		Previous: &PreviousTerm{Holder: "h", Token: 5, Nonce: "0123456789abcdef", Ended: EndedReleased}})
	e, store := tornElector(t, storedAnswer{md5ETagOf(g), released}, storedAnswer{md5ETagOf(g), g})
	s, err := e.read(context.Background(), PurposeFollow)
	if err != nil {
		t.Fatal(err)
	}
	if store.gets != 2 || s.etag != md5ETagOf(g) || s.rec.Holder != "g" || s.rec.Token != 6 || s.rec.Released {
		t.Fatalf("after %d reads: ETag %s, record %+v; want g's record, token 6, from the second read", store.gets, s.etag, s.rec)
	}
	// Both ways round: g's body under the released record's ETag.
	e, store = tornElector(t, storedAnswer{md5ETagOf(released), g}, storedAnswer{md5ETagOf(g), g})
	if s, err := e.read(context.Background(), PurposeFollow); err != nil || store.gets != 2 || s.etag != md5ETagOf(g) {
		t.Fatalf("after %d reads: ETag %s, %v; want g's record from the second read", store.gets, s.etag, err)
	}
}

// TestTornReadsEveryTime: reads that are torn each time otherwise (a store
// racing write after write) are given up after maxReads, with an error
// that classifies as an unknown outcome: the caller reads again later, as
// after a timeout, and acts on none of them.
func TestTornReadsEveryTime(t *testing.T) {
	var answers []storedAnswer
	for i := range maxReads + 1 {
		answers = append(answers, storedAnswer{md5ETagOf(encoded(t, Record{Holder: "g", Token: uint64(10 + i), LeaseDurationMS: 1500, Nonce: "0123456789abcdef"})),
			encoded(t, Record{Holder: "g", Token: uint64(20 + i), LeaseDurationMS: 1500, Nonce: "0123456789abcdef"})})
	}
	e, store := tornElector(t, answers...)
	_, err := e.read(context.Background(), PurposeFollow)
	if !errors.Is(err, errTornRead) || store.gets != maxReads || ClassifyError(err) != ClassUnknownOutcome || causeOf(err) != CauseNoAnswer {
		t.Fatalf("after %d reads: %v (class %v); want errTornRead after %d reads, an unknown outcome", store.gets, err, ClassifyError(err), maxReads)
	}
}

// TestETagsThatAreNotMD5s: on a store whose ETags look like MD5s and are
// not (SSE-KMS, SSE-C), a body never matches its ETag; the same bytes
// under the same ETag twice are no race, and read takes them as they are,
// then stops reading twice until a body matches its ETag again. ETags that
// do not look like MD5s (a multipart upload's, unquoted ones) are never
// checked.
func TestETagsThatAreNotMD5s(t *testing.T) {
	body := encoded(t, Record{Holder: "g", Token: 6, LeaseDurationMS: 1500, Nonce: "fedcba9876543210"})
	e, store := tornElector(t, storedAnswer{otherETagOf(body), body})
	for i, want := range []int{2, 3, 4} {
		s, err := e.read(context.Background(), PurposeFollow)
		if err != nil || s.rec.Token != 6 || store.gets != want {
			t.Fatalf("read %d: token %d, %v, after %d GetObjects in all; want token 6 after %d", i+1, s.rec.Token, err, store.gets, want)
		}
	}
	store.answers = []storedAnswer{{md5ETagOf(body), body}, {otherETagOf(body), "torn"}, {md5ETagOf(body), body}}
	store.gets = 0
	for range 2 {
		if _, err := e.read(context.Background(), PurposeFollow); err != nil {
			t.Fatal(err)
		}
	}
	if store.gets != 3 {
		t.Fatalf("%d GetObjects for two reads after a body matched its ETag; want 3: the mismatch read again", store.gets)
	}
	for _, etag := range []string{`"` + strings.Repeat("a", 32) + `-2"`, strings.Repeat("a", 32), `"not hex` + strings.Repeat("x", 24) + `"`, `"abc"`} {
		e, store := tornElector(t, storedAnswer{etag, body})
		if _, err := e.read(context.Background(), PurposeFollow); err != nil || store.gets != 1 {
			t.Errorf("ETag %s: %d GetObjects, %v; want one, unchecked", etag, store.gets, err)
		}
	}
}

// TestETagMismatch: only an ETag that looks like an MD5 is checked, in
// either case of hex, and only a body that read could hold whole.
func TestETagMismatch(t *testing.T) {
	long := strings.Repeat("x", maxRecordSize+1)
	for _, c := range []struct {
		etag, body string
		want       bool
	}{
		{md5ETagOf("a"), "a", false},
		{strings.ToUpper(md5ETagOf("a")), "a", false},
		{md5ETagOf("a"), "b", true},
		{md5ETagOf(""), "", false},
		{md5ETagOf("a"), "", true},
		{strings.Trim(md5ETagOf("a"), `"`), "b", false},
		{`"` + strings.Repeat("0", 32) + `-3"`, "b", false},
		{md5ETagOf("a"), long, false},
		{md5ETagOf(long[:maxRecordSize]), long[:maxRecordSize], false},
		{md5ETagOf("a"), long[:maxRecordSize], true},
	} {
		if got := ETagMismatch(c.etag, []byte(c.body)); got != c.want {
			t.Errorf("ETagMismatch(%.40s, %d bytes) = %v, want %v", c.etag, len(c.body), got, c.want)
		}
	}
}
