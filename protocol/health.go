package protocol

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// ErrUnhealthy is wrapped by every error Healthy returns.
var ErrUnhealthy = errors.New("elector unhealthy")

// HealthError says why an elector is unhealthy.
type HealthError struct {
	// Problem says what is stuck, and since when.
	Problem string
	// Token is the term concerned, 0 if none.
	Token uint64
	// Overdue is how far past its bound (before the tolerance) it is.
	Overdue time.Duration
}

func (e *HealthError) Error() string {
	return fmt.Sprintf("s3lease: %v: %s", ErrUnhealthy, e.Problem)
}

// Unwrap returns ErrUnhealthy.
func (e *HealthError) Unwrap() error { return ErrUnhealthy }

// Healthy reports whether the elector is stuck, in the manner of
// client-go's HealthzAdaptor: it returns nil unless one of these has gone on
// for more than tolerance, and then a *HealthError wrapping ErrUnhealthy:
//
//   - a term is not over though its local deadline has passed: Run's
//     goroutine or the watchdog does not get to end it (client-go's check:
//     a leader that failed to renew and still counts itself leader);
//   - OnStartedLeading of a term that ended is still running after that
//     term's deadline: the application ignores its cancelled context, and
//     no new term can begin until it returns;
//   - Run is running but its goroutine has finished no S3 call and no wait
//     for longer than LeaseDuration (a Store that ignores its context, an
//     OnNewLeader or OnStoppedLeading that blocks).
//
// A follower that cannot reach S3 is healthy: it keeps trying, and another
// elector may lead. An elector whose Run is not running is healthy.
// Healthy may be called from any goroutine.
//
// Wire it to an HTTP health endpoint, so that a supervisor restarts a stuck
// process, with HealthzAdaptor or directly:
//
//	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
//		if err := elector.Healthy(20 * time.Second); err != nil {
//			http.Error(w, err.Error(), http.StatusInternalServerError)
//			return
//		}
//		w.Write([]byte("ok"))
//	})
func (e *Elector) Healthy(tolerance time.Duration) error {
	now := e.clock.Monotonic()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.running {
		return nil
	}
	if t := e.cur; t != nil {
		if over := now - t.deadline; over > tolerance {
			return &HealthError{Token: t.lease.Token, Overdue: over,
				Problem: fmt.Sprintf("term %d is not over %v after its local deadline", t.lease.Token, over)}
		}
	}
	if t := e.lingering; t != nil && t.callbackDone.Err() == nil {
		if over := now - t.deadline; over > tolerance {
			return &HealthError{Token: t.lease.Token, Overdue: over,
				Problem: fmt.Sprintf("OnStartedLeading of term %d still runs %v after the term's local deadline", t.lease.Token, over)}
		}
	}
	if over := now - e.progress - e.cfg.LeaseDuration; over > tolerance {
		return &HealthError{Overdue: over,
			Problem: fmt.Sprintf("Run has made no progress for %v (phase %v)", now-e.progress, e.phase)}
	}
	return nil
}

// HealthzAdaptor serves an elector's Healthy as an HTTP health check. Its
// Name and Check methods have the shape of client-go's
// leaderelection.HealthzAdaptor (and of k8s.io/apiserver's
// healthz.HealthChecker), and it is an http.Handler: mount it at /healthz.
// Create it before the elector, and hand it the elector with SetElector;
// until then it reports healthy. It is safe for concurrent use.
type HealthzAdaptor struct {
	tolerance time.Duration
	mu        sync.Mutex
	e         *Elector
}

// NewHealthzAdaptor returns an adaptor whose check fails once the elector
// has been stuck for more than tolerance (see Elector.Healthy).
func NewHealthzAdaptor(tolerance time.Duration) *HealthzAdaptor {
	return &HealthzAdaptor{tolerance: tolerance}
}

// SetElector names the elector to check.
func (a *HealthzAdaptor) SetElector(e *Elector) {
	a.mu.Lock()
	a.e = e
	a.mu.Unlock()
}

// Name returns "leaderElection", the name client-go's adaptor has.
func (a *HealthzAdaptor) Name() string { return "leaderElection" }

// Check returns the elector's Healthy(tolerance); nil before SetElector.
func (a *HealthzAdaptor) Check(*http.Request) error {
	a.mu.Lock()
	e := a.e
	a.mu.Unlock()
	if e == nil {
		return nil
	}
	return e.Healthy(a.tolerance)
}

// ServeHTTP answers 200 "ok", or 500 with the reason.
func (a *HealthzAdaptor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := a.Check(r); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte("ok"))
}
