package epochfile

import (
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// Config are the timings and knobs of both forms of the protocol.
type Config struct {
	// Validity is the validity_ms every lock file states: how long a lock
	// is valid after it was created or last touched. A follower waits at
	// least this long (and at least what the file states) on its own
	// monotonic clock before it judges the lock invalid.
	Validity time.Duration
	// RenewDeadline bounds a leader's term after the send of its last
	// successful write, on its own monotonic clock (the safe form).
	RenewDeadline time.Duration
	// Retry is the interval between a leader's touches and between a
	// follower's listings (plus up to 20% jitter).
	Retry time.Duration
	// RequestTimeout bounds every S3 call.
	RequestTimeout time.Duration
	// DriftPPM is the assumed bound on every clock's rate error.
	DriftPPM int64
	// PageSize is the MaxKeys of each ListObjectsV2 page (at most 1000).
	PageSize int32
	// KeepEpochs is the cleanup's margin: a leader of epoch c deletes the
	// lock files of epochs below c - KeepEpochs. 0 keeps every file.
	KeepEpochs uint64
	// Prefix is where the lock files live ("<Prefix><epoch>.json"); empty
	// means the lock object's key without its extension, plus "/lock_".
	Prefix string

	weak weakening
}

// weakening switches off one defence of the safe form. Only this package's
// tests set it, to show that the harness catches the form without it.
type weakening struct {
	// noExpiryMark: a follower creates the next epoch as soon as the
	// latest file stayed unchanged for a validity, without marking it
	// expired If-Match first, so a touch that lands after its last look
	// extends a term the next epoch has superseded.
	noExpiryMark bool
	// noConfirm: a node leads as soon as its create succeeds, whatever
	// the listing after it shows, so a create decided on an old listing
	// leads an epoch that cleanup deleted and it recreated.
	noConfirm bool
}

// Default is a 6 s validity touched every second: the timings of the swarm
// campaign's elector (elector.DefaultSettings), so that the epoch
// files face the same fault plans.
var Default = Config{
	Validity:       6 * time.Second,
	RenewDeadline:  4 * time.Second,
	Retry:          time.Second,
	RequestTimeout: 1500 * time.Millisecond,
	DriftPPM:       1000,
	PageSize:       1000,
	KeepEpochs:     2,
}

// maxPages bounds the pages of one listing: a listing longer than this is
// an error, never a truncated answer read as the whole.
const maxPages = 1000

// Validate reports the first setting the protocol cannot run with, as a
// *protocol.ConfigError naming it: among them a validity, renew deadline
// or drift bound that leaves no margin (lockkit.Timings.Check), and a term
// no longer than a retry period.
func (c Config) Validate() error {
	if err := c.timings().Check(); err != nil {
		return err
	}
	switch {
	case c.Retry <= 0 || c.termLen() <= c.Retry:
		return lockkit.Invalid("Retry", "must be positive and less than the term (%v), got %v", c.termLen(), c.Retry)
	case c.RequestTimeout <= 0:
		return lockkit.Invalid("RequestTimeout", "must be positive, got %v", c.RequestTimeout)
	case c.PageSize < 1 || c.PageSize > 1000:
		return lockkit.Invalid("PageSize", "must be in [1, 1000], got %d", c.PageSize)
	}
	return nil
}

// timings are the figures the safe form derives its term and assumptions
// from.
func (c Config) timings() lockkit.Timings {
	return lockkit.Timings{Lease: c.Validity, RenewDeadline: c.RenewDeadline, DriftPPM: c.DriftPPM,
		Fields: [3]string{"Validity", "RenewDeadline", "DriftPPM"}}
}

// termLen is how long a term lasts after the send of its last successful
// write: protocol.TermLength of the validity.
func (c Config) termLen() time.Duration { return c.timings().Term() }

// Assumptions are what both forms claim of the world: clock rates within
// DriftPPM and pauses no longer than the slack between the term and the
// validity (lockkit.Timings.Assumptions). They say nothing of clock
// offsets: the design claims not to need synchronised clocks, and the naive
// form is judged by that claim.
func (c Config) Assumptions() protocol.Assumptions { return c.timings().Assumptions() }

// LivenessBound is how long after faults heal the safe form has a leader:
// a listing and a read of the latest file (a retry period with jitter and
// two requests), a full validity, the next listing and read, the expiry
// mark, the create and the listing that confirms it, and a retry period and
// two requests to spare for a lost creation race.
func (c Config) LivenessBound() time.Duration {
	return c.Validity + 4*c.Retry + 8*c.RequestTimeout
}
