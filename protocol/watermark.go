package protocol

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Watermark is what a holder hands over to the next one (the timestamp
// watermark of seed 003's relaxed logs under strict leases). The lock
// record carries it: each term starts from the watermark of the record it
// replaced, raises it as its application publishes, and writes it with
// every renewal and with the release.
type Watermark struct {
	// At bounds the timestamps of everything the application wrote under
	// this term and the terms before it: the next holder writes only
	// above it. Zero means no bound was ever published.
	At time.Time
	// Updates says where the holder's updates went (a log, a prefix), for
	// the next holder to read; UTF-8 text of at most MaxUpdatesLen bytes.
	Updates string
}

// ErrNotLeading is wrapped by the errors of SetWatermark and
// PublishedWatermark for a token that is not the current term's.
var ErrNotLeading = errors.New("s3lease: not leading with that token")

// ErrInvalidWatermark is wrapped by the error of SetWatermark for a
// watermark that the lock record cannot carry exactly: Updates longer than
// MaxUpdatesLen or not valid UTF-8 (JSON would hand the next holder U+FFFD
// for each byte that is not), or a time outside the years 0 to 9999 (in
// UTC).
var ErrInvalidWatermark = errors.New("s3lease: invalid watermark")

// SetWatermark publishes w for the term with token: the next renewal (or
// the release) writes it into the lock record, and the next holder is
// handed it in Lease.Previous, exactly: Updates byte for byte, At as the
// same instant, in UTC. A watermark the record cannot carry so is refused
// with ErrInvalidWatermark. The watermark never goes down: an At below
// the term's current one is ignored (Updates, if not empty, still
// replaces the last). It may be called from any goroutine, until the term
// is over, including from OnStartedLeading after its context ended and
// before it returns: the release then carries the final watermark.
//
// The hand-off survives a crash only if the application keeps to one rule:
// write a timestamp only once a watermark at or above it is published in
// the lock object (PublishedWatermark), never above it. Publish ahead of
// the writes, by about a RetryPeriod or two, so that the renewal that
// makes it durable comes before the writes need it. Then whatever ends a
// term (a release, an expiry after a crash, a wall-clock step on either
// side), the next holder's Lease.Previous.At is at or above every
// timestamp written before, and it writes above it. The bound is lost
// with the lock object: after a deletion or an overwrite by someone else,
// the next holder is handed none.
func (e *Elector) SetWatermark(token uint64, w Watermark) error {
	if len(w.Updates) > MaxUpdatesLen {
		return fmt.Errorf("%w: updates of %d bytes, more than %d", ErrInvalidWatermark, len(w.Updates), MaxUpdatesLen)
	}
	if !utf8.ValidString(w.Updates) {
		return fmt.Errorf("%w: updates of %d bytes are not UTF-8", ErrInvalidWatermark, len(w.Updates))
	}
	at := w.At.UTC().Round(0)
	if _, err := at.MarshalJSON(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidWatermark, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.cur
	if t == nil || t.lease.Token != token {
		return fmt.Errorf("%w: token %d", ErrNotLeading, token)
	}
	if at.After(t.pending.At) {
		t.pending.At = at
	}
	if w.Updates != "" {
		t.pending.Updates = w.Updates
	}
	return nil
}

// PublishedWatermark returns the watermark of the term with token as the
// lock object holds it: the one its last successful write carried, which
// the next holder will be handed even if this process dies now.
func (e *Elector) PublishedWatermark(token uint64) (Watermark, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.cur
	if t == nil || t.lease.Token != token {
		return Watermark{}, fmt.Errorf("%w: token %d", ErrNotLeading, token)
	}
	return t.published, nil
}

// withWatermark returns r carrying the term's pending watermark.
func (e *Elector) withWatermark(t *term, r Record) Record {
	e.mu.Lock()
	w := t.pending
	e.mu.Unlock()
	if w.At.After(r.Watermark) {
		r.Watermark = w.At
	}
	if w.Updates != "" {
		r.Updates = w.Updates
	}
	return r
}

// handedOver is the watermark a record of a new term hands to its holder:
// its own, inherited from the record it replaced, with that record's
// Updates.
func handedOver(r Record) Watermark {
	w := Watermark{At: r.Watermark}
	if r.Previous != nil {
		w.Updates = r.Previous.Updates
	}
	return w
}
