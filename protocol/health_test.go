package protocol

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// stuckStore is an ObjectStore whose calls, once stuck is set, hang until
// the test ends, whatever their context says: a broken client.
type stuckStore struct {
	ObjectStore
	stuckPuts, stuckGets atomic.Bool
	release              chan struct{}
}

func newStuckStore(s ObjectStore) *stuckStore {
	return &stuckStore{ObjectStore: s, release: make(chan struct{})}
}

// unstickAtEnd releases the stuck calls when the test ends, before the
// cleanups registered earlier (startNode's waits for Run to return).
func (s *stuckStore) unstickAtEnd(t *testing.T) {
	t.Cleanup(func() { close(s.release) })
}

func (s *stuckStore) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if s.stuckPuts.Load() {
		<-s.release
		return nil, errors.New("stuck call released")
	}
	return s.ObjectStore.PutObject(ctx, in, opts...)
}

func (s *stuckStore) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if s.stuckGets.Load() {
		<-s.release
		return nil, errors.New("stuck call released")
	}
	return s.ObjectStore.GetObject(ctx, in, opts...)
}

// awaitUnhealthy polls Healthy(tolerance) until it fails, and returns the
// error; it fails the test if that takes longer than waitLimit.
func awaitUnhealthy(t *testing.T, e *Elector, tolerance time.Duration) error {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if err := e.Healthy(tolerance); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("still healthy after %v", waitLimit)
	return nil
}

// A leader whose renewal hangs in a client that ignores its context: the
// watchdog ends the term at the deadline (IsLeader turns false), but Run's
// goroutine cannot finish the term. Healthy reports the term not over past
// its deadline, as client-go's adaptor reports a leader that did not renew;
// before that, and while it leads normally, it is healthy.
func TestHealthyReportsStuckTerm(t *testing.T) {
	store := newStuckStore(startFakeS3(t))
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	store.unstickAtEnd(t)
	await(t, n.started, "a term")
	if err := n.Healthy(0); err != nil {
		t.Fatalf("a leader renewing normally: %v", err)
	}
	store.stuckPuts.Store(true)
	err := awaitUnhealthy(t, n.Elector, itRetry)
	var he *HealthError
	if !errors.As(err, &he) || !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "not over") || he.Token == 0 || he.Overdue <= itRetry {
		t.Errorf("Healthy: %v (%+v); want a *HealthError naming the term not over", err, he)
	}
	if n.IsLeader() {
		t.Error("IsLeader after the deadline")
	}
}

// A follower whose read hangs in a client that ignores its context makes
// no progress: Healthy reports it once a lease and the tolerance passed.
func TestHealthyReportsNoProgress(t *testing.T) {
	store := newStuckStore(startFakeS3(t))
	store.stuckGets.Store(true)
	start := time.Now()
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	store.unstickAtEnd(t)
	err := awaitUnhealthy(t, n.Elector, itRetry)
	if waited := time.Since(start); waited < itLease+itRetry {
		t.Errorf("unhealthy after %v, before a lease and the tolerance (%v)", waited, itLease+itRetry)
	}
	if !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "no progress") {
		t.Errorf("Healthy: %v; want no progress reported", err)
	}
}

// The adaptor has client-go's shape and serves HTTP: 200 ok while healthy
// (and before it knows an elector), 500 with the reason once stuck.
func TestHealthzAdaptor(t *testing.T) {
	a := NewHealthzAdaptor(itRetry)
	if a.Name() != "leaderElection" || a.Check(nil) != nil {
		t.Fatalf("adaptor without an elector: %q, %v", a.Name(), a.Check(nil))
	}
	srv := httptest.NewServer(a)
	defer srv.Close()
	get := func() int {
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	store := newStuckStore(startFakeS3(t))
	n := startNode(t, testConfig(t, store, "a"), &leaders{})
	store.unstickAtEnd(t)
	a.SetElector(n.Elector)
	await(t, n.started, "a term")
	if code := get(); code != http.StatusOK {
		t.Errorf("healthy leader: HTTP %d", code)
	}
	store.stuckPuts.Store(true)
	awaitUnhealthy(t, n.Elector, itRetry)
	if code := get(); code != http.StatusInternalServerError {
		t.Errorf("stuck elector: HTTP %d", code)
	}
}

// Leader() of a lone elector: nothing observed before Run, then itself
// while it leads, with a young observation.
func TestLeaderOfLoneElector(t *testing.T) {
	client := startFakeS3(t)
	cfg := testConfig(t, client, "a")
	var seen []Transition
	cfg.Metrics.Transition = func(tr Transition) { seen = append(seen, tr) }
	n := startNode(t, cfg, &leaders{})
	lease := await(t, n.started, "a term")
	info := n.Leader()
	if !info.Self || info.Identity != "a" || info.Token != lease.Token || !info.Observed || info.Age < 0 || info.Age > itLease {
		t.Errorf("Leader() while leading: %+v", info)
	}
	n.stop(t)
	if len(seen) < 3 || seen[0] != (Transition{PhaseStopped, CauseStart, PhaseReading}) || seen[len(seen)-1].To != PhaseStopped {
		t.Errorf("transitions %v; want from stopped to stopped", seen)
	}
	if p := n.Phase(); p != PhaseStopped {
		t.Errorf("Phase() after Run returned: %v", p)
	}
}
