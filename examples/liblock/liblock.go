// Package liblock is a leader lock on one S3 object, written the way
// public Go libraries are: one loop on a time.Ticker that renews while it
// leads and polls while it follows, time.Now for the times it measures, an
// object key of its own choosing (locks/<name>.json), and callbacks that
// tell the application when it leads. It stands for a library you did not
// write; package simlock puts it under the s3lease harness.
//
// The object is a JSON record {owner, token, expires, released}. A
// follower reads it every interval: it creates a missing one with
// If-None-Match: *, and takes over a released one, or one whose ETag has
// not changed for a TTL since it first read it, with If-Match and the next
// token. A leader renews every interval with If-Match its last ETag, and
// leads until the send time of its last successful write plus Term: on
// the first tick past it, or at a 412, it calls OnOusted.
package liblock

import (
	"cmp"
	"context"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Options configure a Lock. Zero durations take their defaults.
type Options struct {
	Client   S3API
	Bucket   string
	Name     string        // the lock's name: its object is Key(Name)
	Owner    string        // this process, as the record names it
	TTL      time.Duration // a record unchanged this long is abandoned (20s)
	Term     time.Duration // a leader leads this long after sending its last successful write (3s)
	Interval time.Duration // between renewals, and between a follower's reads (1s)

	OnElected func(token uint64) // this process leads, under token
	OnOusted  func()             // it leads no more
	Clock     protocol.Clock     // time and tickers; nil: the real clock
}

// Key is the key of the object of the lock called name.
func Key(name string) string { return "locks/" + name + ".json" }

// Lock is one process's side of the lock.
type Lock struct {
	o        Options
	key      string
	leading  bool
	token    uint64
	etag     string    // the last ETag this process wrote, or the one it is timing
	seenAt   time.Time // when a follower first read etag
	deadline time.Time // when a leader's term ends
}

// New returns a Lock with o's options, defaults filled in.
func New(o Options) *Lock {
	o.TTL = cmp.Or(o.TTL, 20*time.Second)
	o.Term = cmp.Or(o.Term, 3*time.Second)
	o.Interval = cmp.Or(o.Interval, time.Second)
	o.Clock = cmp.Or[protocol.Clock](o.Clock, protocol.NewRealClock())
	return &Lock{o: o, key: Key(o.Name)}
}

// Run campaigns for the lock, and leads while it holds it, until ctx
// ends; it returns ctx's error.
func (l *Lock) Run(ctx context.Context) error {
	ticker := l.o.Clock.NewTicker(l.o.Interval)
	defer ticker.Stop()
	for {
		l.step(ctx)
		select {
		case <-ctx.Done():
			l.oust()
			return ctx.Err()
		case <-ticker.Next(ctx):
		}
	}
}

// step is one tick: a leader renews, unless its term is over; a follower
// reads the object and takes it if it may.
func (l *Lock) step(ctx context.Context) {
	var rec record
	var err error
	etag := l.etag
	if !l.leading {
		etag, rec, err = l.read(ctx)
	}
	now := l.o.Clock.Now()
	switch {
	case l.leading && !now.Before(l.deadline):
		l.oust()
	case l.leading:
		if err := l.write(ctx, now, l.token, etag); isPreconditionFailed(err) {
			l.oust() // someone else wrote the object
		}
	case err != nil:
	case etag == "":
		l.acquire(ctx, now, 1, "")
	case etag != l.etag:
		l.etag, l.seenAt = etag, now
	case rec.Released || now.Sub(l.seenAt) >= l.o.TTL:
		l.acquire(ctx, now, rec.Token+1, etag)
	}
}

// acquire writes a record with token over etag ("": a create) and leads
// if the write succeeded.
func (l *Lock) acquire(ctx context.Context, now time.Time, token uint64, etag string) {
	if l.write(ctx, now, token, etag) == nil {
		l.leading, l.token = true, token
		if l.o.OnElected != nil {
			l.o.OnElected(token)
		}
	}
}

// oust ends this process's term, if it leads.
func (l *Lock) oust() {
	if !l.leading {
		return
	}
	l.leading, l.etag = false, ""
	if l.o.OnOusted != nil {
		l.o.OnOusted()
	}
}
