package epochfile

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/protocol"
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
// campaign's elector (harness.DefaultElectorSettings), so that the epoch
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

// Validate reports the first setting the protocol cannot run with.
func (c Config) Validate() error {
	switch {
	case c.Validity <= 0 || c.Retry <= 0 || c.RequestTimeout <= 0:
		return fmt.Errorf("epochfile: Validity, Retry and RequestTimeout must be positive")
	case c.DriftPPM < 0 || c.DriftPPM >= 100_000:
		return fmt.Errorf("epochfile: DriftPPM %d is outside [0, 100000)", c.DriftPPM)
	case c.termLen() <= c.Retry:
		return fmt.Errorf("epochfile: the term (%v) must outlast a retry period (%v)", c.termLen(), c.Retry)
	case c.maxPause() <= 0:
		return fmt.Errorf("epochfile: no slack between the term (%v) and the validity (%v)", c.termLen(), c.Validity)
	case c.PageSize < 1 || c.PageSize > 1000:
		return fmt.Errorf("epochfile: PageSize %d is outside [1, 1000]", c.PageSize)
	}
	return nil
}

// driftMargin is how much shorter than the validity a term must be so that
// no follower, whose clock may run fast, ends the validity while the
// leader, whose clock may run slow, still leads: Validity*2*ppm/(1e6+ppm),
// rounded up.
func (c Config) driftMargin() time.Duration {
	num := int64(c.Validity) * 2 * c.DriftPPM
	den := 1_000_000 + c.DriftPPM
	return time.Duration((num + den - 1) / den)
}

// termLen is how long a term lasts after the send of its last successful
// write: min(RenewDeadline, Validity - driftMargin).
func (c Config) termLen() time.Duration {
	return min(c.RenewDeadline, c.Validity-c.driftMargin())
}

// maxPause is the longest process pause the safe form tolerates: the slack
// between the end of a term and the earliest takeover, less what drift can
// eat of it (4ρ·Validity covers ρ·Validity + 2ρ·Term for ρ ≤ 1%).
func (c Config) maxPause() time.Duration {
	return c.Validity - c.termLen() - c.Validity*time.Duration(4*c.DriftPPM)/1_000_000
}

// Assumptions are what both forms claim of the world: clock rates within
// DriftPPM and pauses no longer than the slack between the term and the
// validity. They say nothing of clock offsets: the design claims not to
// need synchronised clocks, and the naive form is judged by that claim.
func (c Config) Assumptions() protocol.Assumptions {
	return protocol.Assumptions{Lease: c.Validity, Term: c.termLen(), MaxDriftPPM: c.DriftPPM, MaxPause: c.maxPause()}
}

// LivenessBound is how long after faults heal the safe form has a leader:
// a listing and a read of the latest file (a retry period with jitter and
// two requests), a full validity, the next listing and read, the expiry
// mark, the create and the listing that confirms it, and a retry period and
// two requests to spare for a lost creation race.
func (c Config) LivenessBound() time.Duration {
	return c.Validity + 4*c.Retry + 8*c.RequestTimeout
}
