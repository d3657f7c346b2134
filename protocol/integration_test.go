package protocol

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

const (
	testBucket = "leases"
	testKey    = "leader.json"
)

// Short durations for real electors on loopback.
const (
	itLease   = 1500 * time.Millisecond
	itRenew   = 1000 * time.Millisecond
	itRetry   = 150 * time.Millisecond
	itRequest = 150 * time.Millisecond
)

// startFakeS3 serves an in-memory gofakes3 on loopback with the test bucket
// created, and returns a client for it with the SDK's standard retryer.
func startFakeS3(t *testing.T) *s3.Client {
	t.Helper()
	faker := gofakes3.New(s3mem.New())
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	client := newTestClient(srv.URL, nil)
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(testBucket)}); err != nil {
		t.Fatal(err)
	}
	return client
}

// readRecord returns the lock record as it is in the store now.
func readRecord(t *testing.T, client *s3.Client) Record {
	t.Helper()
	out, err := client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(testBucket), Key: aws.String(testKey)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := DecodeRecord(body)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// testNode is one elector running in the test, with its callbacks turned
// into channels.
type testNode struct {
	*Elector
	started   chan Lease
	stopped   chan struct{}
	newLeader chan string
	cancel    context.CancelFunc
	done      chan struct{} // closed when Run returned
	runErr    error         // what Run returned, once done is closed
}

// leaders counts callbacks running at once across all nodes of a test.
type leaders struct{ now, most atomic.Int32 }

func testLogger(t *testing.T, id string) *slog.Logger {
	if !testing.Verbose() {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name(), "node", id)
}

// epochClock is a RealClock whose wall clock reads the Unix epoch: the
// token floor is then 0, and tokens count the terms of a chain from 1, so
// that a test can name them. Tests of the floor itself use a RealClock.
type epochClock struct{ *RealClock }

func (epochClock) Now() time.Time { return time.Unix(0, 0).UTC() }

func testConfig(t *testing.T, store ObjectStore, id string) Config {
	return Config{
		Clock:          epochClock{NewRealClock()},
		Store:          store,
		Bucket:         testBucket,
		Key:            testKey,
		Identity:       id,
		LeaseDuration:  itLease,
		RenewDeadline:  itRenew,
		RetryPeriod:    itRetry,
		RequestTimeout: itRequest,
		Logger:         testLogger(t, id),
	}
}

// startNode runs an elector until the test ends or n.cancel is called.
func startNode(t *testing.T, cfg Config, active *leaders) *testNode {
	t.Helper()
	return startNodeWith(t, cfg, active, nil)
}

// startNodeWith is startNode, calling prepare, if set, on the elector before
// Run.
func startNodeWith(t *testing.T, cfg Config, active *leaders, prepare func(*Elector)) *testNode {
	t.Helper()
	n := &testNode{
		started:   make(chan Lease, 16),
		stopped:   make(chan struct{}, 16),
		newLeader: make(chan string, 64),
		done:      make(chan struct{}),
	}
	cfg.Callbacks = LeaderCallbacks{
		OnStartedLeading: func(ctx context.Context, lease Lease) {
			if k := active.now.Add(1); k > active.most.Load() {
				active.most.Store(k)
			}
			n.started <- lease
			<-ctx.Done()
			active.now.Add(-1)
		},
		OnStoppedLeading: func() { n.stopped <- struct{}{} },
		OnNewLeader:      func(id string) { n.newLeader <- id },
	}
	e, err := NewElector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.Elector = e
	if prepare != nil {
		prepare(e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go func() {
		defer close(n.done)
		n.runErr = e.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-n.done:
		case <-time.After(waitLimit):
			t.Errorf("Run of %s did not return within %v of its context's end", cfg.Identity, waitLimit)
		}
	})
	return n
}

// waitLimit bounds every wait of these tests for something an elector does
// within a lease or two: ample on a loaded machine, and seconds, not go
// test's timeout, when a broken elector never does it.
const waitLimit = 10 * itLease

// await receives from ch, failing the test if nothing arrives within
// waitLimit; what names what was awaited.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("%s: not within %v", what, waitLimit)
		panic("unreachable")
	}
}

// awaitLeader reads OnNewLeader reports until one names id, failing the
// test if none does within waitLimit.
func (n *testNode) awaitLeader(t *testing.T, id string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case got := <-n.newLeader:
			if got == id {
				return
			}
		case <-deadline:
			t.Fatalf("%s was not told %s leads within %v", n.cfg.Identity, id, waitLimit)
		}
	}
}

// stop cancels Run and checks that it returned nil, as a normal shutdown
// does, within a lease.
func (n *testNode) stop(t *testing.T) {
	t.Helper()
	n.cancel()
	await(t, n.done, "Run of "+n.cfg.Identity+" returning after its context ended")
	if n.runErr != nil {
		t.Errorf("Run of %s returned %v after its context ended, want nil", n.cfg.Identity, n.runErr)
	}
}

func TestIntegrationHandover(t *testing.T) {
	client := startFakeS3(t)
	var active leaders

	// a alone creates the object and leads.
	cfgA := testConfig(t, client, "a")
	cfgA.ReleaseOnCancel = true
	a := startNode(t, cfgA, &active)
	leaseA := await(t, a.started, "a's term")
	if leaseA.Holder != "a" || leaseA.Token != 1 {
		t.Fatalf("first lease %+v, want a with token 1", leaseA)
	}

	// b follows: it sees a's record and does not lead.
	b := startNode(t, testConfig(t, client, "b"), &active)
	b.awaitLeader(t, "a")
	if !a.IsLeader() || b.IsLeader() {
		t.Fatalf("IsLeader: a %v, b %v; want only a", a.IsLeader(), b.IsLeader())
	}
	if got, ok := a.Lease(); !ok || got != leaseA {
		t.Errorf("a.Lease() = %+v, %v; want %+v", got, ok, leaseA)
	}

	// a stops with ReleaseOnCancel: b takes the released record at once.
	cancelled := time.Now()
	a.stop(t)
	await(t, a.stopped, "a's term ending")
	leaseB := await(t, b.started, "b's term")
	t.Logf("released lease taken over after %v", time.Since(cancelled))
	if leaseB.Holder != "b" || leaseB.Token <= leaseA.Token {
		t.Fatalf("second lease %+v, want b with a token above %d", leaseB, leaseA.Token)
	}
	rec := readRecord(t, client)
	if want := (PreviousTerm{Holder: "a", Token: leaseA.Token, Ended: EndedReleased}); rec.Previous == nil ||
		rec.Previous.Holder != want.Holder || rec.Previous.Token != want.Token || rec.Previous.Ended != want.Ended {
		t.Errorf("after the release, record %+v has previous %+v, want %+v", rec, rec.Previous, want)
	}

	// c follows b; b stops without releasing: c must wait for the lease to
	// run out. b leads when cancelled, so its last successful write was
	// sent less than RenewDeadline ago, and c can take over no earlier
	// than LeaseDuration after that write.
	c := startNode(t, testConfig(t, client, "c"), &active)
	c.awaitLeader(t, "b")
	if !b.IsLeader() {
		t.Fatal("b is not leading before it is stopped")
	}
	cancelled = time.Now()
	b.stop(t)
	await(t, b.stopped, "b's term ending")
	leaseC := await(t, c.started, "c's term")
	waited := time.Since(cancelled)
	t.Logf("abandoned lease taken over after %v", waited)
	if leaseC.Holder != "c" || leaseC.Token <= leaseB.Token {
		t.Fatalf("third lease %+v, want c with a token above %d", leaseC, leaseB.Token)
	}
	if waited < itLease-itRenew {
		t.Errorf("c took over %v after b stopped, before b's lease could have run out (%v)", waited, itLease-itRenew)
	}
	rec = readRecord(t, client)
	if rec.Released || rec.Previous == nil || rec.Previous.Holder != "b" || rec.Previous.Token != leaseB.Token ||
		rec.Previous.Ended != EndedExpired {
		t.Errorf("after the expiry, record %+v has previous %+v, want b's token %d, expired", rec, rec.Previous, leaseB.Token)
	}

	c.stop(t)
	if most := active.most.Load(); most != 1 {
		t.Errorf("%d OnStartedLeading callbacks ran at once", most)
	}
}
