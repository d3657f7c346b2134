package zoo

import (
	"time"

	"github.com/s3lease/s3lease/protocol"
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
	Assumptions   protocol.Assumptions
	LivenessBound time.Duration

	m mistakes
	s settings
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

// Masked returns variants that are real mistakes but that the careful
// lock's other defences hide from plain fault plans: the swarm catches them
// only through its wider draws (the nodes' settings, the applications,
// faults aimed at roles, a foreign delete while the followers are cut off;
// see the package documentation). They are kept apart from Variants, the
// mistakes any fault plan of the right kind shows.
func Masked() []Variant {
	out := make([]Variant, len(masked))
	for i, e := range masked {
		out[i] = variant(e.name, e.mistake, e.m)
	}
	return out
}

func variant(name, mistake string, m mistakes) Variant {
	return variantWith(name, mistake, m, defaults)
}

func variantWith(name, mistake string, m mistakes, s settings) Variant {
	return Variant{
		Name:          name,
		Mistake:       mistake,
		Candidate:     careful{s: s, m: m}.candidate(),
		Assumptions:   s.Assumptions(),
		LivenessBound: s.LivenessBound(),
		m:             m,
		s:             s,
	}
}

type entry struct {
	name, mistake string
	m             mistakes
}

var zoo = []entry{
	{"unconditional-acquire",
		"Acquires by reading the lock, finding it free, and writing it without If-Match or If-None-Match, so nodes that read at once all win (docs/failure-modes.md#11-read-then-unconditional-write: public Go S3 lock libraries that guard only an auxiliary key).",
		mistakes{unconditionalAcquire: true}},
	{"wall-clock-expiry",
		"Judges expiry by comparing the expiry time another node wrote into the record with its own wall clock, so a node whose clock runs ahead takes a live lease (docs/failure-modes.md#7-clock-offset-and-drift; the If-Match lock's expires_at against datetime.now, docs/sources.md#quanttype-one-lock-object-with-if-match, and the Java elector's renewTime against now(), docs/sources.md#a-client-go-style-elector-in-java).",
		mistakes{wallClockExpiry: true}},
	{"last-modified",
		"Judges expiry by S3's Last-Modified plus the lease against its own wall clock, though S3's clock is not the node's and Last-Modified is truncated to the second (the validity check of the lock file per epoch, docs/sources.md#morling-a-lock-file-per-epoch).",
		mistakes{lastModified: true}},
	{"same-token",
		"Does not increment the fencing token on acquisition: a new holder carries the token of the term it replaced, so two holders share an epoch and fencing cannot tell them apart (the If-Match lock leaves the increment as an exercise, docs/sources.md#quanttype-one-lock-object-with-if-match; Kleppmann: tokens must strictly increase).",
		mistakes{sameToken: true}},
	{"delete-on-release",
		"Releases by deleting the lock object, which resets the token kept in it, so a process that never saw the old tokens starts again from 1 (the If-Match lock's release by DeleteObject If-Match, docs/sources.md#quanttype-one-lock-object-with-if-match; docs/failure-modes.md#17-lock-object-deleted-or-overwritten).",
		mistakes{deleteOnRelease: true}},
	{"no-nonce",
		"Writes no nonce, so a renewal rewrites an identical body with an identical ETag and followers timing the record never see the live leader renew (docs/failure-modes.md#16-aba-on-if-match: S3's ETag is the MD5 of the body, ABA on If-Match).",
		mistakes{noNonce: true}},
	{"conflict-as-success",
		"Takes a 409 ConditionalRequestConflict as success and leads although its write was not applied (docs/failure-modes.md#13-renewal-conflict: spring-cloud-kubernetes #2032; docs/failure-modes.md#10-ambiguous-conditional-write).",
		mistakes{conflictAsSuccess: true}},
	{"no-watchdog",
		"Ends a term only when a renewal is judged lost, not at the local deadline, so a leader cut off from S3 leads on after its lease ran out (docs/failure-modes.md#4-hung-renewal and docs/failure-modes.md#1-pause-longer-than-the-lease: kubernetes #44887; the Go leader manager's renewLock returns only when a renewal fails, docs/sources.md#a-go-leader-manager).",
		mistakes{noWatchdog: true}},
	{"leader-ctx-not-cancelled",
		"Runs the application under the candidate's context instead of a per-term one, so losing the lease never reaches the application, which goes on working as leader (docs/failure-modes.md#5-zombie-application: kyverno PR #14984, cilium PR #42920, kubernetes #23731).",
		mistakes{leaderCtxNotCancelled: true}},
	{"follower-no-reset",
		"Times a term instead of a record: a follower restarts its wait only when the holder or token changes, so a live leader's renewals do not extend its lease in the follower's eyes (client-go restarts its observed time whenever the raw record changes, for this reason).",
		mistakes{followerNoReset: true}},
	{"wall-clock-timer",
		"Measures the lease on the wall clock instead of the monotonic clock, so an NTP step on a follower ends a live lease at once (docs/failure-modes.md#6-wall-clock-jump: kubernetes #125761; the Java elector's renewBy from System.currentTimeMillis, docs/sources.md#a-client-go-style-elector-in-java).",
		mistakes{wallClockTimer: true}},
	{"identity-owns-record",
		"Takes a live record naming its own identity as its own term and renews it with the same token, so a process restarted under the same name inherits its dead predecessor's epoch (client-go decides IsLeader by HolderIdentity alone; the Go leader manager's update condition leader_id = $2, docs/sources.md#a-go-leader-manager).",
		mistakes{identityOwnsRecord: true}},
	{"trusts-torn-reads",
		"Believes a read's body whatever its ETag says, so a read that a store tore (the body of one version with the ETag of another, as versitygw v1.8.0 answered reads racing a write, docs/conformance.md) makes it take a released record, or its own record of a term long over, at once, If-Match the ETag of the term that replaced it and with that term's token (protocol's package documentation, Torn reads).",
		mistakes{trustsTornReads: true}},
}

var masked = []entry{
	{"term-equals-lease",
		"Lets the leader lead for a full lease after its last renewal, as long as followers wait, leaving no margin for clock drift or pauses (the Java elector configures renewDeadline equal to leaseDuration, docs/sources.md#a-client-go-style-elector-in-java; client-go requires LeaseDuration > RenewDeadline).",
		mistakes{termEqualsLease: true}},
	{"renew-without-if-match",
		"Renews with an unconditional PUT, so a late renewal overwrites a successor's record (the Go leader manager conditions its update only on the holder's identity, docs/sources.md#a-go-leader-manager).",
		mistakes{unconditionalRenew: true}},
	{"release-unconditional",
		"Releases with an unconditional PUT, so a late release clears a successor's record (docs/failure-modes.md#12-release-racing-a-renewal).",
		mistakes{unconditionalRelease: true}},
	{"deadline-from-answer",
		"Measures the leader's deadline from the arrival of the answer instead of the send of the request, so a grant that sat in a buffer extends the term past the followers' wait (docs/failure-modes.md#3-late-grant: etcd #9921; the Java elector's renewBy set after the call returns, docs/sources.md#a-client-go-style-elector-in-java).",
		mistakes{deadlineFromAnswer: true}},
	{"not-found-as-success",
		"Takes a 404 answered to an If-Match renewal as success although the lock object is gone (docs/failure-modes.md#17-lock-object-deleted-or-overwritten; S3 answers 404, not 412, to If-Match on a missing key, docs/s3-semantics.md#putobject).",
		mistakes{notFoundAsSuccess: true}},
}
