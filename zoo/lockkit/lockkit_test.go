package lockkit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// manualClock is a clock the test moves: Sleep advances it (unless ctx is
// done), and Go keeps the function for the test to run.
type manualClock struct {
	now     time.Duration
	spawned []func()
}

func (c *manualClock) Now() time.Time           { return time.Unix(0, int64(c.now)) }
func (c *manualClock) Monotonic() time.Duration { return c.now }
func (c *manualClock) Go(f func())              { c.spawned = append(c.spawned, f) }
func (c *manualClock) NewTicker(d time.Duration) *protocol.Ticker {
	return protocol.TickerOn(c, d)
}
func (c *manualClock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Err() == nil {
		c.now += max(d, 0)
	}
	return ctx.Err()
}
func (c *manualClock) WithTimeout(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

func node(clk *manualClock) *Node {
	return &Node{Clock: clk, Entropy: bytes.NewReader(make([]byte, 1<<10)), Retry: time.Second, Term: 4 * time.Second, Renew: time.Second}
}

// TestTermDeadline: a term ends Term after the start of its last
// successful write: a grant answered at that deadline begins none; each
// renewal moves it; the watchdog ends the term there, cancelling the
// leader context; a term once over is not extended.
func TestTermDeadline(t *testing.T) {
	clk := &manualClock{now: 5 * time.Second}
	n := node(clk)
	app := func(context.Context) {}
	if n.Begin(context.Background(), time.Second, app) != nil {
		t.Fatal("a grant sent at 1s and answered at its deadline, 5s, began a term")
	}
	clk.now = 2 * time.Second
	term := n.Begin(context.Background(), time.Second, app)
	if term == nil || !n.Leads(term) || !n.AppRunning() || len(clk.spawned) != 2 {
		t.Fatalf("no term, or not leading, or its watchdog and application not started (%d)", len(clk.spawned))
	}
	clk.now = 3 * time.Second
	if wait, ok := n.Extend(term, 2500*time.Millisecond, 2500*time.Millisecond); !ok || wait != 500*time.Millisecond {
		t.Fatalf("Extend: wait %v, %v; want 500ms until the renewal due a second after the send", wait, ok)
	}
	clk.spawned[0]() // the watchdog, which sleeps until the deadline
	if clk.now != 6500*time.Millisecond || term.Ctx.Err() == nil || n.Leads(term) {
		t.Fatalf("at %v the watchdog left the term running (deadline 6.5s)", clk.now)
	}
	if _, ok := n.Extend(term, clk.now, clk.now); ok {
		t.Fatal("a term over was extended")
	}
	clk.spawned[1]() // the application returns
	if n.AppRunning() {
		t.Fatal("the application returned, but the node still waits for it")
	}
}

// TestSettle: what a renewal comes to, by its write's answer and the read
// that follows a failure.
func TestSettle(t *testing.T) {
	const own = "v1"
	extended := func() time.Duration { return 42 }
	for _, c := range []struct {
		name   string
		class  protocol.ErrorClass
		read   Object
		err    error
		lost   bool
		want   time.Duration // -1: a backoff
		stops  bool
		reread bool
	}{
		{name: "success", class: protocol.ClassNone, want: 42},
		{name: "throttled", class: protocol.ClassOther, want: time.Second},
		{name: "read fails", class: protocol.ClassUnknownOutcome, err: errors.New("500"), want: -1, reread: true},
		{name: "gone", class: protocol.ClassNotFound, want: 0, stops: true, reread: true},
		{name: "unchanged", class: protocol.ClassPreconditionFailed, read: Object{Exists: true, ETag: own}, want: -1, reread: true},
		{name: "lost answer applied", class: protocol.ClassUnknownOutcome, read: Object{Exists: true, ETag: "v2"}, lost: true, want: 7, reread: true},
		{name: "taken over", class: protocol.ClassPreconditionFailed, read: Object{Exists: true, ETag: "v2"}, want: 0, stops: true, reread: true},
	} {
		clk := &manualClock{now: time.Second}
		n := node(clk)
		term := n.Begin(context.Background(), time.Second, func(context.Context) {})
		reread := false
		got := n.Settle(term, c.class, extended, own,
			func() (Object, error) { reread = true; return c.read, c.err },
			func() (time.Duration, bool) { return 7, c.lost })
		backoff := got >= n.Retry/10 && got <= n.Retry/5
		if c.want >= 0 && got != c.want || c.want < 0 && !backoff || (term.Ctx.Err() != nil) != c.stops || reread != c.reread {
			t.Errorf("%s: wait %v, ended %v, read %v; want %v, ended %v, read %v", c.name, got, term.Ctx.Err() != nil, reread, c.want, c.stops, c.reread)
		}
	}
}

// store is the simulator's S3 store as a sim.S3Client, with an
// error to answer every call with.
type store struct {
	s    *sim.Store
	fail error
}

func (s store) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	return s.s.GetObject(time.Unix(0, 0), in)
}

func (s store) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	body, _ := io.ReadAll(in.Body)
	return s.s.PutObject(time.Unix(0, 0), in, body)
}

func (s store) HeadObject(_ context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return s.s.HeadObject(time.Unix(0, 0), in)
}

func (s store) DeleteObject(_ context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return s.s.DeleteObject(time.Unix(0, 0), in)
}

func (s store) ListObjectsV2(_ context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return s.s.ListObjectsV2(time.Unix(0, 0), in)
}

// TestObject: Read tells a missing object from a present one and from an
// error; Put honours each Condition; Delete is If-Match.
func TestObject(t *testing.T) {
	st := store{s: sim.NewStore(sim.DialectAWS)}
	st.s.CreateBucket("b")
	n := node(&manualClock{})
	n.Store, n.Bucket, n.RequestTimeout = st, "b", time.Second
	ctx := context.Background()
	if o, err := n.Read(ctx, "k"); err != nil || o.Exists {
		t.Fatalf("missing object: %+v, %v", o, err)
	}
	etag, err := n.Put(ctx, "k", []byte(`{"a":1}`), Condition{})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := n.Read(ctx, "k"); err != nil || !o.Exists || o.ETag != etag || string(o.Body) != `{"a":1}` {
		t.Fatalf("present object: %+v, %v; want ETag %s", o, err, etag)
	}
	for _, c := range []struct {
		cond Condition
		want protocol.ErrorClass
	}{
		{Condition{}, protocol.ClassPreconditionFailed},
		{Condition{ETag: `"other"`}, protocol.ClassPreconditionFailed},
		{Condition{ETag: etag}, protocol.ClassNone},
		{Condition{ETag: etag, Unconditional: true}, protocol.ClassNone},
	} {
		if _, err := n.Put(ctx, "k", []byte(`{"a":2}`), c.cond); protocol.ClassifyError(err) != c.want {
			t.Errorf("Put under %+v: %v", c.cond, err)
		}
	}
	o, _ := n.Read(ctx, "k")
	if err := n.Delete(ctx, "k", o.ETag); err != nil {
		t.Fatal(err)
	}
	n.Store = store{s: st.s, fail: errors.New("connection reset")}
	if _, err := n.Read(ctx, "k"); err == nil {
		t.Fatal("a failed GET read as an object")
	}
}
