package zoo

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/sim"
)

// Variant is one deliberately broken protocol.
type Variant struct {
	// Name is kebab-case; Mistake is one sentence naming the real mistake
	// and where it was seen.
	Name, Mistake string
	Candidate     sim.Candidate
	// Assumptions are what the variant claims: the claims the careful lock
	// with the same settings makes, for every variant.
	Assumptions   faults.Assumptions
	LivenessBound time.Duration
	_             struct{}
}

// Careful returns the careful lock itself, the zoo's control: the lock
// every variant breaks in one place. It must pass where the production
// elector passes, so that a variant's failure is its mistake's.
func Careful() Variant {
	return variant("careful", "", mistakes{})
}

// Variants returns the zoo, in a fixed order: the careful lock with one
// mistake each. The default swarm campaign catches every one of them.
func Variants() []Variant {
	out := make([]Variant, len(zoo))
	for i, e := range zoo {
		out[i] = variant(e.name, e.mistake, e.m)
	}
	return out
}

// Masked returns variants that are real mistakes but that the default
// swarm campaign does not catch on top of the careful lock: its other
// defences hide them inside the assumptions. They are kept apart so that a
// campaign that learns to catch them can join them to the zoo.
func Masked() []Variant {
	out := make([]Variant, len(masked))
	for i, e := range masked {
		out[i] = variant(e.name, e.mistake, e.m)
	}
	return out
}

func variant(name, mistake string, m mistakes) Variant {
	s := defaults
	return Variant{
		Name:          name,
		Mistake:       mistake,
		Candidate:     careful{s: s, m: m}.candidate(),
		Assumptions:   s.assumptions(),
		LivenessBound: s.livenessBound(),
	}
}

type entry struct {
	name, mistake string
	m             mistakes
}

var zoo = []entry{
	{"unconditional-acquire",
		"Acquires by reading the lock, finding it free, and writing it without If-Match or If-None-Match, so nodes that read at once all win (failure mode 11: public Go S3 lock libraries that guard only an auxiliary key).",
		mistakes{unconditionalAcquire: true}},
	{"wall-clock-expiry",
		"Judges expiry by comparing the expiry time another node wrote into the record with its own wall clock, so a node whose clock runs ahead takes a live lease (failure mode 7; seed 001's expires_at against datetime.now, seed 002's renewTime against now()).",
		mistakes{wallClockExpiry: true}},
	{"last-modified",
		"Judges expiry by S3's Last-Modified plus the lease against its own wall clock, though S3's clock is not the node's and Last-Modified is truncated to the second (seed 000's validity check).",
		mistakes{lastModified: true}},
	{"same-token",
		"Does not increment the fencing token on acquisition: a new holder carries the token of the term it replaced, so two holders share an epoch and fencing cannot tell them apart (seed 001 leaves the increment as an exercise; Kleppmann: tokens must strictly increase).",
		mistakes{sameToken: true}},
	{"delete-on-release",
		"Releases by deleting the lock object, which resets the token kept in it, so a process that never saw the old tokens starts again from 1 (seed 001's release by DeleteObject If-Match; failure mode 17).",
		mistakes{deleteOnRelease: true}},
	{"no-nonce",
		"Writes no nonce, so a renewal rewrites an identical body with an identical ETag and followers timing the record never see the live leader renew (failure mode 16: S3's ETag is the MD5 of the body, ABA on If-Match).",
		mistakes{noNonce: true}},
	{"conflict-as-success",
		"Takes a 409 ConditionalRequestConflict as success and leads although its write was not applied (failure mode 13: spring-cloud-kubernetes #2032; failure mode 10).",
		mistakes{conflictAsSuccess: true}},
	{"no-watchdog",
		"Ends a term only when a renewal is judged lost, not at the local deadline, so a leader cut off from S3 leads on after its lease ran out (failure modes 1 and 4: kubernetes #44887; seed 004's renewLock returns only when a renewal fails).",
		mistakes{noWatchdog: true}},
	{"leader-ctx-not-cancelled",
		"Runs the application under the candidate's context instead of a per-term one, so losing the lease never reaches the application, which goes on working as leader (failure mode 5: kyverno PR #14984, cilium PR #42920, kubernetes #23731).",
		mistakes{leaderCtxNotCancelled: true}},
	{"follower-no-reset",
		"Times a term instead of a record: a follower restarts its wait only when the holder or token changes, so a live leader's renewals do not extend its lease in the follower's eyes (client-go restarts its observed time whenever the raw record changes, for this reason).",
		mistakes{followerNoReset: true}},
	{"wall-clock-timer",
		"Measures the lease on the wall clock instead of the monotonic clock, so an NTP step on a follower ends a live lease at once (failure mode 6: kubernetes #125761; seed 002's renewBy from System.currentTimeMillis).",
		mistakes{wallClockTimer: true}},
	{"identity-owns-record",
		"Takes a live record naming its own identity as its own term and renews it with the same token, so a process restarted under the same name inherits its dead predecessor's epoch (client-go decides IsLeader by HolderIdentity alone; seed 004's update condition leader_id = $2).",
		mistakes{identityOwnsRecord: true}},
}

var masked = []entry{
	{"term-equals-lease",
		"Lets the leader lead for a full lease after its last renewal, as long as followers wait, leaving no margin for clock drift or pauses (seed 002 configures renewDeadline equal to leaseDuration; client-go requires LeaseDuration > RenewDeadline).",
		mistakes{termEqualsLease: true}},
	{"renew-without-if-match",
		"Renews with an unconditional PUT, so a late renewal overwrites a successor's record (seed 004 conditions its update only on the holder's identity).",
		mistakes{unconditionalRenew: true}},
	{"release-unconditional",
		"Releases with an unconditional PUT, so a late release clears a successor's record (failure mode 12).",
		mistakes{unconditionalRelease: true}},
	{"deadline-from-answer",
		"Measures the leader's deadline from the arrival of the answer instead of the send of the request, so a grant that sat in a buffer extends the term past the followers' wait (failure mode 3: etcd #9921; seed 002's renewBy set after the call returns).",
		mistakes{deadlineFromAnswer: true}},
	{"not-found-as-success",
		"Takes a 404 answered to an If-Match renewal as success although the lock object is gone (failure mode 17; S3 answers 404, not 412, to If-Match on a missing key).",
		mistakes{notFoundAsSuccess: true}},
}
