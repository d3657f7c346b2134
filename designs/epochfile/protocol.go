package epochfile

import "github.com/s3lease/s3lease/harness"

// Safe is the safe form with the Default timings, as a harness protocol.
func Safe() harness.Protocol { return Default.Safe() }

// Naive is the naive form with the Default timings, as a harness protocol.
func Naive() harness.Protocol { return Default.Naive() }

// Safe describes the safe form to the harness: fencing tokens (the epoch),
// the assumptions under which two leaders never overlap (Assumptions), and
// the bound within which it has a leader once faults heal (LivenessBound).
//
// A write sent at a leader's monotonic reading s ends its term at
// s+termLen on that clock. A follower times a version from a read that
// arrived after the write applied, so after s, and marks it expired only
// once its own clock shows a full validity since, If-Match that version:
// the mark and the leader's touches are ordered on the one key, so no
// touch extends the term after the mark. The next epoch is created only on
// a file marked expired (by a follower, or by the holder once its
// application returned), and led only once a later listing shows it is the
// highest epoch. So the term is over before the next begins if
// termLen/(1-ρ) + pause < Validity/(1+ρ): Assumptions.MaxPause.
func (c Config) Safe() harness.Protocol {
	return harness.Protocol{Name: "epochfile-safe", Candidate: c.safeCandidate,
		Assumptions: c.Assumptions(), LivenessBound: c.LivenessBound()}
}

// Naive describes the naive form to the harness with the same assumptions
// as the safe form (the design claims not to need synchronised clocks) and
// no liveness bound: it is expected to be caught overlapping.
func (c Config) Naive() harness.Protocol {
	return harness.Protocol{Name: "epochfile-naive", Candidate: c.naiveCandidate, Assumptions: c.Assumptions()}
}
