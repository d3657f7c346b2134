package zoo

import (
	"time"

	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/zoo/lockkit"
)

// settings are the careful lock's knobs. The zoo runs every lock with
// defaults, the settings of the swarm campaign's elector
// (harness.DefaultElectorSettings), so that a variant's failure is measured
// under exactly the plans the production elector passes.
type settings struct {
	lease         time.Duration // how long followers wait on their own clocks
	renewDeadline time.Duration // how long a term lasts after its last successful send
	retry         time.Duration // between renewals, and (plus jitter) between a follower's reads
	reqTimeout    time.Duration // bound on every S3 call
	driftPPM      int64         // assumed bound on every clock's rate error
}

var defaults = settings{
	lease:         6 * time.Second,
	renewDeadline: 4 * time.Second,
	retry:         1 * time.Second,
	reqTimeout:    1500 * time.Millisecond,
	driftPPM:      1000,
}

// timings are the figures the lock derives its term and assumptions from.
func (s settings) timings() lockkit.Timings {
	return lockkit.Timings{Lease: s.lease, RenewDeadline: s.renewDeadline, DriftPPM: s.driftPPM}
}

// termLen is how long a term lasts after the send of its last successful
// write: protocol.TermLength.
func (s settings) termLen() time.Duration { return s.timings().Term() }

// assumptions are the claims a correct lock with these settings makes: clock
// rates within driftPPM, and pauses no longer than the slack between the end
// of a term and the earliest takeover, less what drift can eat of it
// (lockkit.Timings.Assumptions).
func (s settings) assumptions() protocol.Assumptions { return s.timings().Assumptions() }

// livenessBound is how long after faults heal a correct lock has a leader:
// a read (a retry period with jitter and a request), a full lease, a write,
// and a retry period to spare for a conflict.
func (s settings) livenessBound() time.Duration {
	return s.lease + 3*s.retry + 3*s.reqTimeout
}
