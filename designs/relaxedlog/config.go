package relaxedlog

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Config is the design's timing and shape: the domains and their leases,
// the bags' buckets, how often each part acts, and which variant runs.
type Config struct {
	// Domains names the logical domains; each has a lease of its own, one
	// lock object per domain held by the production elector. The first
	// domain's lock object is the run's (sim.Env.Key), whose terms the
	// harness judges; the others' are LockKey's.
	Domains []string
	// Prefix is the key prefix of the bags: one bag per time bucket of
	// width Bucket, under Prefix<bucket start in Unix ms, 15 digits>/.
	Prefix string
	Bucket time.Duration
	// Grace is how long after its bucket ended a bag is closed: a closer
	// closes the bag of [b, b+Bucket) once its wall clock reads
	// b+Bucket+Grace.
	Grace time.Duration
	// CloseJitter spreads the closers: each closes a bag up to this much
	// after it is due, by an amount of its own for the bag.
	CloseJitter time.Duration
	// WriteEvery is how often a writer holding leases appends a message;
	// ReadEvery how often a reader reads every bag.
	WriteEvery, ReadEvery time.Duration
	// Ahead is how far ahead of its wall clock a writer publishes its
	// watermark, below its leases' expiry (see Writer).
	Ahead time.Duration
	// RequestTimeout bounds each S3 call of writers, closers and readers.
	RequestTimeout time.Duration
	// PageSize is the MaxKeys of every listing (a bag's, or every bag's).
	PageSize int32
	// MaxOffset is the clock error within which a writer's messages are
	// not refused by a bag closed early: the bound the design assumes of
	// wall clocks for its commits, not for its safety. Grace must exceed
	// twice it (Validate).
	MaxOffset time.Duration
	// Elector is the production elector's settings for every lease.
	Elector elector.Settings
	// Variant says which of the design's pieces are broken (the zero
	// Variant is the safe design).
	Variant Variant
	// Wants, if set, gives the domains (indices into Domains) a node
	// campaigns for; nil: every domain.
	Wants func(node int) []int
}

// Variant lists the pieces a form of the design gets wrong; the zero
// Variant is the safe form.
type Variant struct {
	// TrustAck: a writer takes the 200 answered to its message's create
	// as the commit, without checking for a prelock and without helping
	// close (the naive form, "a writer that trusts its own
	// acknowledgement").
	TrustAck bool
	// UnconditionalLock: a closer writes the lock object with a plain
	// PutObject instead of a create (If-None-Match: *).
	UnconditionalLock bool
	// FirstWatermark: a writer holding several leases writes above the
	// watermark handed over with the first of them only, not above the
	// maximum over the set.
	FirstWatermark bool
	// PublishAhead: a writer publishes its watermark Ahead of its clock
	// whatever its leases' deadline (as an application that knows no
	// expiry would).
	PublishAhead bool
}

// Default is the design as the scenarios run it: two domains ("a" and
// "b") under the swarm elector's settings (a 6 s lease, a 4 s renew
// deadline), one bag per second closed 2 s after its second (each closer
// up to a quarter second later, by a jitter of its own), a message
// every 250 ms, a read of every bag every 2 s, a watermark published up
// to 1 s ahead, clocks assumed within 500 ms of true time for commits.
var Default = Config{
	Domains:        []string{"a", "b"},
	Prefix:         "bags/",
	Bucket:         time.Second,
	Grace:          2 * time.Second,
	CloseJitter:    250 * time.Millisecond,
	WriteEvery:     250 * time.Millisecond,
	ReadEvery:      2 * time.Second,
	Ahead:          2 * time.Second,
	RequestTimeout: 1500 * time.Millisecond,
	PageSize:       100,
	MaxOffset:      500 * time.Millisecond,
	Elector:        elector.DefaultSettings,
}

// Validate reports the first field of c that the design cannot run with,
// as a *protocol.ConfigError.
func (c Config) Validate() error {
	switch {
	case len(c.Domains) == 0:
		return lockkit.Invalid("Domains", "must name at least one domain")
	case c.Bucket < time.Millisecond || c.Bucket%time.Millisecond != 0:
		return lockkit.Invalid("Bucket", "must be a positive whole number of milliseconds, not %v", c.Bucket)
	case c.Grace <= 2*c.MaxOffset:
		return lockkit.Invalid("Grace", "must exceed twice MaxOffset (%v), not %v", c.MaxOffset, c.Grace)
	case c.WriteEvery <= 0 || c.ReadEvery <= 0:
		return lockkit.Invalid("WriteEvery", "and ReadEvery must be positive")
	case c.CloseJitter < 0:
		return lockkit.Invalid("CloseJitter", "must not be negative")
	case c.Ahead < 0 || c.RequestTimeout <= 0 || c.PageSize <= 0:
		return lockkit.Invalid("Ahead", "must not be negative, and RequestTimeout and PageSize must be positive")
	}
	for i, d := range c.Domains {
		if d == "" || len(d) > 32 {
			return lockkit.Invalid("Domains", "domain %d must be 1 to 32 bytes, not %q", i, d)
		}
		for _, e := range c.Domains[:i] {
			if e == d {
				return lockkit.Invalid("Domains", "names %q twice", d)
			}
		}
	}
	if err := c.Elector.Validate(); err != nil {
		return fmt.Errorf("relaxedlog: elector settings: %w", err)
	}
	return nil
}

// termLength is how long a term of the elector lasts after the send of its
// last successful write (protocol.Config.Assumptions().Term).
func (c Config) termLength() time.Duration { return c.Elector.Assumptions().Term }

// wants is the domains node campaigns for.
func (c Config) wants(node int) []int {
	if c.Wants != nil {
		return c.Wants(node)
	}
	all := make([]int, len(c.Domains))
	for i := range all {
		all[i] = i
	}
	return all
}

// LockKey is the lock object of domain i when the run's lock object is
// key: key itself for the first domain, key.<name> for the others.
func (c Config) LockKey(key string, i int) string {
	if i == 0 {
		return key
	}
	return key + "." + c.Domains[i]
}
