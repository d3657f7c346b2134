package relaxedlog

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Outcome is what became of one Writer.Append.
type Outcome uint8

const (
	// NoLease: the writer holds no lease (or one it held just ended);
	// nothing was written.
	NoLease Outcome = iota
	// Waiting: no stamp is both above the leases' watermarks and below
	// their expiry, or none is published yet; nothing was written.
	Waiting
	// Committed: the message counts, for every reader, for good.
	Committed
	// Refused: the message landed in a bag whose lock object leaves it
	// out: it does not count.
	Refused
	// Unknown: whether the message counts is not known (its create or
	// the check after it went unanswered).
	Unknown
)

var outcomeNames = [...]string{"no lease", "waiting", "committed", "refused", "unknown"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Writer appends messages under the leases its process holds. Each
// message carries every held lease (domain and token) and a stamp that is
// above the maximum of the watermarks the leases were handed, above the
// writer's own last stamp, at or below the watermark published in every
// lease's lock object (protocol.Elector.PublishedWatermark), and below
// every lease's expiry as the writer's clock reads it (Deadline). So a
// later term of any of the leases, handed at least that watermark, stamps
// above it, whatever ended this one.
type Writer struct {
	c *Client

	mu   sync.Mutex
	held []*hold // by domain
	last time.Time
	seq  uint64
	// quiet is done while no Append runs (Drop waits on it).
	quiet context.Context
}

// NewWriter is the writer of the process whose client c is.
func NewWriter(c *Client) *Writer {
	quiet, done := context.WithCancel(context.Background())
	done()
	return &Writer{c: c, quiet: quiet}
}

// Hold adds the lease of domain (an index into Config.Domains) that
// elector just granted, with its deadline bound.
func (w *Writer) Hold(domain int, elector *protocol.Elector, lease protocol.Lease, d *Deadline) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = slices.DeleteFunc(w.held, func(h *hold) bool { return h.domain == domain })
	w.held = append(w.held, &hold{domain: domain, name: w.c.cfg.Domains[domain], elector: elector, lease: lease, deadline: d, set: lease.Previous.At})
	slices.SortFunc(w.held, func(a, b *hold) int { return a.domain - b.domain })
}

// Drop removes the lease of domain with token, and waits, up to limit on
// the process's clock, for an Append that may use it to settle: a lease is
// let go only once its writes are settled.
func (w *Writer) Drop(domain int, token uint64, limit time.Duration) {
	w.mu.Lock()
	w.held = slices.DeleteFunc(w.held, func(h *hold) bool { return h.domain == domain && h.lease.Token == token })
	quiet := w.quiet
	w.mu.Unlock()
	_ = w.c.kit.Clock.Sleep(quiet, limit)
}

// Append writes one message under every lease held, if it can, and
// settles it: Committed only once the message is known to count for
// every reader. Appends must not run concurrently.
func (w *Writer) Append(ctx context.Context) (Outcome, error) {
	w.mu.Lock()
	set := slices.Clone(w.held)
	quiet, done := context.WithCancel(context.Background())
	w.quiet = quiet
	w.mu.Unlock()
	defer done()
	if len(set) == 0 {
		return NoLease, nil
	}
	m, ready, o := w.stamp(set)
	if !ready {
		return o, nil
	}
	return w.send(ctx, m)
}

// stamp stamps the next message under set, after raising the leases'
// watermarks; if none is ready, o says why.
func (w *Writer) stamp(set []*hold) (m Message, ready bool, o Outcome) {
	v := w.c.cfg.Variant
	clk := w.c.kit.Clock
	now, mono := clk.Now(), clk.Monotonic()
	floor := w.last
	room := time.Duration(-1)
	for i, h := range set {
		if !h.current() {
			return Message{}, false, NoLease // the set changed: the next Append sees the new one
		}
		if i == 0 || !v.FirstWatermark {
			floor = later(floor, h.lease.Previous.At)
		}
		if r := h.deadline.Room(mono); room < 0 || r < room {
			room = r
		}
	}
	// Every stamp and watermark at or below limit is below every lease's
	// expiry: each term is current at mono, so its deadline is after mono
	// even when its room is not known (0).
	limit := now.Add(room)
	wm := later(floor, now).Add(w.c.cfg.Ahead)
	if !v.PublishAhead && wm.After(limit) {
		wm = limit
	}
	for _, h := range set {
		if !wm.After(h.set) {
			continue
		}
		if err := h.elector.SetWatermark(h.lease.Token, protocol.Watermark{At: wm, Updates: w.c.cfg.Prefix}); err != nil {
			return Message{}, false, NoLease
		}
		w.mu.Lock()
		h.set = wm
		w.mu.Unlock()
		if f := w.c.Hooks.Watermark; f != nil {
			f(h.name, h.lease.Token, wm)
		}
	}
	stamp := later(now, floor.Add(time.Nanosecond))
	if stamp.After(limit) {
		return Message{}, false, Waiting
	}
	m = Message{Writer: w.c.name, Stamp: stamp}
	for _, h := range set {
		p, err := h.elector.PublishedWatermark(h.lease.Token)
		if err != nil {
			return Message{}, false, NoLease
		}
		if stamp.After(p.At) {
			return Message{}, false, Waiting // not durable yet: the next renewal publishes it
		}
		m.Leases = append(m.Leases, Held{Domain: h.name, Token: h.lease.Token})
	}
	w.seq++
	m.Seq = w.seq
	m.Key = fmt.Sprintf("%s%s-%08d", w.c.cfg.DataPrefix(w.c.cfg.BagOf(stamp)), w.c.name, m.Seq)
	w.last = stamp
	if f := w.c.Hooks.Stamped; f != nil {
		f(m)
	}
	return m, true, 0
}

// send creates m's object and settles it.
func (w *Writer) send(ctx context.Context, m Message) (Outcome, error) {
	body := encodeJSON(m)
	sum := md5.Sum(body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	if _, err := w.c.kit.Put(ctx, m.Key, body, lockkit.Condition{}); err != nil {
		// A 412 is an attempt of ours that applied (an SDK retry), an
		// unknown outcome may have applied: look.
		o, rerr := w.c.kit.Read(ctx, m.Key)
		if rerr != nil || !o.Exists || o.ETag != etag {
			return w.verdict(m, Unknown), nil
		}
	}
	if w.c.cfg.Variant.TrustAck {
		return w.verdict(m, Committed), nil
	}
	o, err := w.check(ctx, m)
	return w.verdict(m, o), err
}

// checkTries is how many times a writer tries to learn whether its
// message counts before it calls the outcome unknown.
const checkTries = 3

// check settles a message whose object exists: if the bag has no prelock
// after the object was created, every close lists it; otherwise the
// writer helps close the bag, and the message counts only if the lock
// object lists it.
func (w *Writer) check(ctx context.Context, m Message) (Outcome, error) {
	b := w.c.cfg.BagOf(m.Stamp)
	var err error
	for range checkTries {
		var p lockkit.Object
		if p, err = w.c.kit.Read(ctx, w.c.cfg.PrelockObject(b)); err != nil {
			continue
		}
		if !p.Exists {
			return Committed, nil
		}
		var items []string
		if items, err = w.c.Close(ctx, b); err != nil {
			continue
		}
		if _, found := slices.BinarySearch(items, m.Key); found {
			return Committed, nil
		}
		return Refused, nil
	}
	return Unknown, err
}

// verdict reports o, the outcome of m, to the hooks.
func (w *Writer) verdict(m Message, o Outcome) Outcome {
	if f := w.c.Hooks.Settled; f != nil {
		f(m, o == Committed)
	}
	return o
}

// later is the later of two instants.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
