package leadermgr

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Backend is the document's storage interface, with its signature.
//
// WriteEntry attempts to put or update the entry under a condition that
// evaluates the term: it returns true if the lock was obtained (the entry
// now names id, valid for term), false if not. A non-nil error means that
// something unexpected happened, and is not equivalent to false. The same
// call acquires and renews: the condition is "the entry has expired, or it
// already names id".
type Backend interface {
	WriteEntry(ctx context.Context, id string, term time.Duration) (bool, error)
}

// Config is the document's configuration: the three intervals, and two
// fields the document does not have, which the simulator needs and which
// change nothing when left zero.
type Config struct {
	// Term is how long an entry stays valid without renewal; after it,
	// the leader is considered dead and the election starts again.
	Term time.Duration
	// Renew is the interval at which the leader renews its entry.
	Renew time.Duration
	// Retry is the interval between attempts to become the leader, and
	// the fixed sleep after an error.
	Retry time.Duration

	// Clock is the manager's only source of time, sleeping and
	// goroutines; nil means protocol.NewRealClock(). (Not in the
	// document: it is how the simulator runs the manager.)
	Clock protocol.Clock
	// Identity is the manager's identity; "" means a random UUID, as the
	// document's uuid.NewString(). (Not in the document.)
	Identity string
}

// LeaderManager is the document's leader manager, as written: it tries to
// write the entry every Retry until it succeeds, then renews it every
// Renew, and its term ends only when a renewal fails or returns false.
//
// Its faults, kept on purpose (it is the subject of the scenario
// "leadermgr/naive-s3"):
//
//   - no local deadline: nothing ends a term when the entry expires. A
//     leader whose renewal hangs (WriteEntry gets the manager's context,
//     which has no timeout), is slow, or whose process was paused past the
//     term leads on until that renewal returns false or an error, while
//     the others, on the store's clock, have taken over;
//   - the term is learned only at the next renewal tick: a leader ousted
//     by expiry learns it up to Renew later;
//   - renewal by identity alone: the condition is "the entry names id",
//     not "the entry is the one I wrote", so any process started with the
//     same identity inherits a live term, and nothing hands the
//     application a fencing token;
//   - a fixed sleep of Retry after an error (time.Sleep in the document,
//     Clock.Sleep on a context that is never cancelled here: it ignores
//     both the deadline and cancellation);
//   - no release on stop: the next leader waits a full term.
//
// The callbacks are the document's. OnElected is called on the manager's
// goroutine and must not block; OnOusting is called after every term, and
// OnError with every error (the document calls OnError without checking
// it for nil; this one checks).
type LeaderManager struct {
	backend   Backend
	config    *Config
	identity  string
	clock     protocol.Clock
	OnElected func(string, context.CancelFunc)
	OnOusting func(string, context.CancelFunc)
	OnError   func(string, error, context.CancelFunc)
}

// NewLeaderManager returns the document's manager for backend and config.
// Unlike the document it checks the config: a non-positive interval is an
// error, since a ticker of zero panics.
func NewLeaderManager(backend Backend, config *Config) (*LeaderManager, error) {
	switch {
	case backend == nil:
		return nil, errors.New("leadermgr: NewLeaderManager: nil backend")
	case config == nil:
		return nil, errors.New("leadermgr: NewLeaderManager: nil config")
	case config.Term <= 0 || config.Renew <= 0 || config.Retry <= 0:
		return nil, fmt.Errorf("leadermgr: NewLeaderManager: Term %v, Renew %v and Retry %v must be positive", config.Term, config.Renew, config.Retry)
	}
	clk := config.Clock
	if clk == nil {
		clk = protocol.NewRealClock()
	}
	id := config.Identity
	if id == "" {
		var err error
		if id, err = randomUUID(systemEntropy()); err != nil {
			return nil, fmt.Errorf("leadermgr: NewLeaderManager: identity: %w", err)
		}
	}
	return &LeaderManager{backend: backend, config: config, identity: id, clock: clk}, nil
}

// Identity returns the manager's identity.
func (l *LeaderManager) Identity() string { return l.identity }

// tryToLock is the document's: a first attempt at once, then one every
// Retry, until one succeeds, fails or ctx ends.
func (l *LeaderManager) tryToLock(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Canceled
	}
	success, err := l.backend.WriteEntry(ctx, l.identity, l.config.Term)
	if err != nil {
		return err
	}
	if success {
		return nil
	}
	retryTicker := l.clock.NewTicker(l.config.Retry)
	defer retryTicker.Stop()
	for {
		select {
		case <-ctx.Done():
			return context.Canceled
		case <-retryTicker.Next(ctx):
			success, err := l.backend.WriteEntry(ctx, l.identity, l.config.Term)
			if err != nil {
				return err
			}
			if success {
				return nil
			}
		}
	}
}

// renewLock is the document's: a renewal every Renew until one fails or
// returns false. Nothing else ends it: no deadline, no timeout.
func (l *LeaderManager) renewLock(ctx context.Context) error {
	renewTicker := l.clock.NewTicker(l.config.Renew)
	defer renewTicker.Stop()
	for {
		select {
		case <-ctx.Done():
			return context.Canceled
		case <-renewTicker.Next(ctx):
			success, err := l.backend.WriteEntry(ctx, l.identity, l.config.Term)
			if err != nil {
				return err
			}
			if !success {
				return nil
			}
		}
	}
}

// Start is the document's: it starts the election on a goroutine of its
// own (Clock.Go) and returns at once. The only way to stop it is to cancel
// ctx; the callbacks get a function that does.
func (l *LeaderManager) Start(ctx context.Context) {
	newCtx, cancel := context.WithCancel(ctx)
	l.clock.Go(func() {
		defer cancel()
		for {
			err := l.tryToLock(newCtx)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return
				}
				l.onError(err, cancel)
				// The document's time.Sleep(l.config.Retry): a fixed sleep
				// that no context ends.
				_ = l.clock.Sleep(context.Background(), l.config.Retry)
				continue
			}
			// if we got here we are the leader
			if l.OnElected != nil {
				l.OnElected(l.identity, cancel)
			}
			err = l.renewLock(newCtx)
			// if we get here we are not the leader anymore
			if l.OnOusting != nil {
				l.OnOusting(l.identity, cancel)
			}
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return
				}
				l.onError(err, cancel)
			}
		}
	})
}

func (l *LeaderManager) onError(err error, cancel context.CancelFunc) {
	if l.OnError != nil {
		l.OnError(l.identity, err, cancel)
	}
}

// randomUUID returns a version 4 UUID read from r.
func randomUUID(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}

// systemEntropy is the process's randomness, for a manager whose
// configuration brings none.
//
//simvet:real the default for production; under the simulator every manager is given the node's Entropy and Identity.
func systemEntropy() io.Reader { return rand.Reader }
