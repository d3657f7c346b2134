// Package protocol is leader election on one S3 object: candidates compete
// for a lease with conditional PutObject calls, the winner leads until its
// local deadline unless it renews, and every term carries a fencing token that
// strictly increases from term to term.
//
// The same code runs in production, with [RealClock] and an *s3.Client, and
// in a deterministic simulator that supplies its own [Clock], [ObjectStore]
// and Config.Entropy. Nothing in the package reads the time, starts a
// goroutine, sleeps or draws randomness except through those three.
//
// # Running an elector
//
// [NewElector] checks a [Config] (a [*ConfigError] names the field it
// refuses, wrapping [ErrInvalidConfig]; the Default* and Max* constants
// are its defaults and limits) and returns an [Elector]; [Elector.Run]
// campaigns, leads, loses and campaigns again until its context ends
// ([ErrAlreadyRunning] for a second Run). The application leads inside
// [LeaderCallbacks].OnStartedLeading, under a context that ends with its
// term, and is handed the term's [Lease]. [Clock] and [ObjectStore]
// (GetObject and PutObject, as *s3.Client has them) are all the elector
// touches of the world; [RealClock] ([NewRealClock]) is the production
// clock. Clock.NewTicker gives a [Ticker], time.Ticker on a Clock
// ([TickerOn] makes one on any Clock), received in a select through its
// Next.
//
// # Asking who leads
//
// [Elector.IsLeader] and [Elector.Lease] answer "do I lead, and under
// which token?" from any goroutine; [Elector.Leader] returns a
// [LeaderInfo], who leads as last observed and how long ago;
// [Elector.Phase] is where the elector's state machine stands.
//
// # Fencing a resource
//
// Two leaders at the same true instant cannot be ruled out without the
// assumptions below, and no lease protects an action from a pause between
// checking leadership and acting, or from a write that arrives late.
// Tokens make such overlaps harmless to a resource that checks them: a
// [Fence] admits a token only if it is at least the highest it has
// admitted, and refuses a stale one with [ErrStaleToken]. How tokens are
// chosen, and where they stop rising, is stated under Fencing tokens.
//
// # Handing a watermark over
//
// The record can carry seed 003's hand-off: a timestamp watermark that
// bounds the timestamps of everything the application wrote under this
// term and the ones before, and a note of where its updates went
// ([Watermark]; [MaxUpdatesLen] bounds the note). A new term starts from
// the watermark of the record it replaced and hands it to its application
// in Lease.Previous; the application raises it with
// [Elector.SetWatermark], and each renewal and the release write it. An
// application that writes a timestamp only once a watermark at or above it
// is published ([Elector.PublishedWatermark]), and only above the one it
// was handed, keeps every entry of a later term above every entry of an
// earlier one, across releases, crashes and wall-clock steps; the
// watermark-handoff scenario checks it. A deletion or an overwrite by
// someone else loses the watermark with the record. Both calls refuse a
// token that is not the current term's with [ErrNotLeading], and
// SetWatermark a watermark it cannot carry with [ErrInvalidWatermark].
//
// # Health and metrics
//
// [Config].Metrics receives every S3 request (purpose, kind of answer,
// latency), every term's start and end (hold time, cause), and every
// transition of the phase machine: each S3 answer and each timer or
// shutdown that moves the elector, all of them among [Transitions](), the
// list a coverage report compares a campaign with. The hooks are plain
// functions of a [Metrics], handed a [Request] (its [Purpose]), a
// [TermEnd] (its [Ending]) and a [Transition] (from one [Phase] to another,
// for a [Cause]), so the package depends on no metrics library
// (examples/promelector feeds Prometheus). [Elector.Healthy] reports an
// elector stuck past its term's deadline, an application that does not
// return after its term, or a Run that makes no progress (a
// [*HealthError], wrapping [ErrUnhealthy]), and [HealthzAdaptor]
// ([NewHealthzAdaptor]) serves it at an HTTP /healthz, as client-go's
// HealthzAdaptor does.
//
// # The lock record and S3's answers
//
// [Record] is the lock object's body ([PreviousTerm] its link to the term
// before, [NonceLen] the length of its nonce); [Record.Encode] writes it,
// and [DecodeRecord] reads a body as the elector does, with a
// [*RecordError] naming the rule a body breaks ([ErrMalformedRecord]).
// Every value the elector is given and writes into a record (its Identity,
// a watermark's time and Updates) reads back exactly as it was given, or is
// refused where it is given: by NewElector (which also refuses a Bucket or
// Key that is not UTF-8, as S3 names are, and a Key over [MaxKeyLen]), and
// by SetWatermark. A string that is not UTF-8 is refused (JSON would write
// U+FFFD for each byte that is not, and hand the next holder other bytes),
// as is text over its limit ([MaxIdentityLen], [MaxUpdatesLen]) and a time
// outside the years 0 to 9999; times are written in UTC. Encode writes no
// body that would not read back as the record it was given: it decodes the
// body it wrote, and compares.
// [ClassifyError] sorts an S3 error into an [ErrorClass];
// [ObjectMissing] reports an answer that means the object is gone.
//
// # The protocol in detail
//
// The sections below state the protocol: what the lock object holds, how
// time is measured, how an elector campaigns, leads, reads S3's answers
// and releases, how tokens are chosen, and what the guarantee assumes
// ([Config.Assumptions] and [Assumptions] give it in numbers).
//
// # The lock object
//
// Config.Bucket/Config.Key holds a JSON [Record]: the holder's identity, its
// fencing token, its lease duration, wall-clock acquire and renew times (for
// humans only), a released flag, a nonce, and a link to the previous term:
// who held it, with which token, and whether that term was released or
// expired (an audit chain, one link per record). Every write carries a fresh
// 16-hex-digit nonce from Config.Entropy, so no two bodies are equal, ETags
// never repeat, and If-Match cannot suffer ABA. The nonce also tells a writer,
// on its next read, whether a write whose answer it never saw was applied.
//
// The object is never deleted by an elector: the token sequence lives in it
// (see Fencing tokens for what happens when someone else deletes it).
//
// # Time
//
// Each elector measures durations only on its own monotonic clock
// (Clock.Monotonic), and never compares a time written by another node with
// its own clock. Clock rates may differ from true time by at most
// Config.ClockDriftPPM parts per million.
//
//   - A follower takes over a record only after it has seen that exact record
//     unchanged for max(record's lease, own LeaseDuration) on its own clock,
//     counted from the arrival of the first read that returned it. Unchanged
//     means the same in everything S3 shows of the object: ETag, nonce,
//     Last-Modified, version id (in a versioned bucket) and size; so an
//     outside write of old bytes (same ETag, ABA) restarts the wait.
//   - A leader's term ends at its local deadline: the monotonic reading taken
//     just before sending its last successful write, plus
//     TermLength: min(RenewDeadline, LeaseDuration - DriftMargin), where
//     DriftMargin = LeaseDuration*2*ppm/(1e6+ppm). The write was applied
//     before any follower could read it, so the leader's deadline passes
//     (in true time) before any follower's wait ends.
//   - A grant whose answer arrives after its deadline is not acted on.
//
// # Campaigning
//
// A follower reads the object every RetryPeriod plus up to 20% jitter.
//
//   - Missing, and this elector never saw the object: create it at once,
//     If-None-Match: *.
//   - Missing after this elector saw the object (someone deleted it): time
//     the absence like a lease, for the longer of the last record's lease
//     and our own, then create it. The last holder's term is over by then,
//     as after an expiry: its last write was applied before the deletion.
//   - Released: take it at once, If-Match its ETag.
//   - Written by this Run (its nonce is one of ours): an acquisition whose
//     answer was lost starts a term measured from that write's send; any
//     other record of ours is taken again at once with a new token.
//   - Anyone else's, including an earlier incarnation of the same identity:
//     time it, then take it over, If-Match its ETag.
//   - A body that does not decode, or a record holding the largest token
//     (math.MaxUint64, which no token can follow): time it for the longer of
//     the lease it states, if any, and our own, then overwrite it with a
//     record that links to no previous term. Its token counts no such
//     record, and never wraps to 0; only a write by someone else brings
//     tokens that high.
//
// Every acquisition's token is max(highest token seen + 1, the acquirer's
// wall clock in Unix milliseconds); see Fencing tokens.
//
// A new term does not start while the last term's OnStartedLeading is still
// running.
//
// # Leading
//
// The term begins when the acquiring write succeeded in time:
// OnStartedLeading runs via Clock.Go with a context that is cancelled when
// the term ends. The leader renews every RetryPeriod, If-Match its last ETag,
// same token, fresh nonce, counted from the send of its last successful
// write; but never later than RequestTimeout before the deadline, so that a
// renewal S3 answers within RequestTimeout lands in time, whatever the
// settings ([Config.RenewInterval]). While S3 answers so and no node
// pauses, a leader keeps its term. A watchdog goroutine sleeps until the
// current deadline and ends the term when it passes, even while a renewal
// is in flight; each successful renewal moves the deadline. A read that
// shows another record, or no object, ends the term at once.
//
// # S3 answers
//
// [ClassifyError] reads the SDK's error chain. 412: re-read and compare the
// nonce (an SDK retry may have got 412 against our own applied write). 409:
// re-read, back off 10-20% of RetryPeriod, retry. 404 on a conditional put:
// the object was deleted; re-read and create. 5xx, throttling, timeouts and
// connection errors: the outcome is unknown; the write stays remembered with
// its send instant, and the next read that shows its nonce counts it as
// applied, from that instant. Anything else (403, NoSuchBucket), and a write
// that was never sent (Config.Entropy failed, or a record did not encode,
// which is a bug): log, wait a RetryPeriod, keep going.
//
// # Releasing
//
// When Run's context ends during a term, the leader context is cancelled,
// Run waits for OnStartedLeading to return but not past the local deadline,
// and, with ReleaseOnCancel and only if the callback returned before the
// deadline, writes the record once more with Released set and the same token
// (and the last watermark set). Any candidate takes a released record at
// once. A term that ended otherwise (expired, replaced, deleted) is not
// released. Run then returns nil.
//
// # Goroutines and determinism
//
// Run's goroutine makes every S3 call, reads Config.Entropy, and calls
// OnNewLeader, OnStoppedLeading and the Metrics hooks. Each term adds two goroutines, started
// with Clock.Go: OnStartedLeading and the watchdog. Run joins the watchdog
// before a term's end is reported, and OnStartedLeading up to the local
// deadline; a new term does not start while the previous callback runs.
// Every wait is Clock.Sleep, every per-call timeout Clock.WithTimeout, and a
// join is a Clock.Sleep on a context the joined goroutine cancels as it
// returns. Time arithmetic is integer nanoseconds. Given a deterministic
// Clock, ObjectStore and Entropy, an elector's behaviour is a function of
// their answers.
//
// With an *s3.Client, one ObjectStore call may be several HTTP attempts (the
// SDK's retryer); RequestTimeout bounds them all. A retry that meets the
// effect of an earlier attempt is what the nonce comparison resolves.
//
// # Fencing tokens
//
// An acquisition's token is the larger of the highest token its elector has
// seen (in any record read, or written by itself) plus one, and its wall
// clock (Clock.Now) in Unix milliseconds, its floor. Tokens are 64-bit:
// today's floor is about 1.8e12, far from the largest.
//
// While only electors write the object, every acquisition replaces, If-Match,
// the record it read, so its token is above that record's and tokens
// strictly increase from term to term whatever the clocks say: the floor
// only ever raises a token. (A wall clock that runs far ahead raises every
// later token with it; that costs nothing while the object lives.)
//
// The floor is for when the chain breaks: someone deletes the object, or
// overwrites it with something else. Nothing in S3 survives a deletion, so
// an elector that never saw the old tokens (one started after the deletion)
// could only start again from 1; with the floor its first token is its wall
// clock instead. That is above every token handed out before, if its wall
// clock then reads later than the wall clock of each earlier acquirer at the
// moment of that acquisition. Since the last acquisition happened some time
// T before the new one (T is at least the time the current term had run
// when the object was deleted), tokens keep rising across a deletion when
// no elector's wall clock is behind another's by T or more, counting
// backward steps of a wall clock. An elector that had seen the object
// continues above the tokens it saw whatever its clock, and times the
// absence for a lease before it recreates the object, which also keeps its
// new term from overlapping the last one. The limits: a deletion within
// moments of an acquisition, followed by a recreation by an elector that
// never saw the object and whose wall clock is behind, can give a lower
// token; so can two takeovers of one record that both succeed, each against
// a copy of the same bytes written back by someone else in between (see
// ABA below), which only an outside writer can cause.
//
// # ABA
//
// If-Match compares ETags, and S3's ETag is the MD5 of the body. Electors
// never write the same body twice (the nonce), but an outside tool that
// writes back old bytes (a backup restored) makes an ETag come back. A
// follower compares everything S3 shows (ETag, nonce, Last-Modified, version
// id, size), and Last-Modified changes with every write, so such a copy is a
// new state of the object, timed afresh. Two limits remain. Last-Modified
// has a resolution of one second: a copy written back within the second of
// the original, in a bucket without versioning, looks unchanged: the
// follower's wait may then have begun up to that second too early, as if
// the leader had paused for a second (within MaxPause with the defaults,
// about 5 s). And a takeover decided on a read of the original whose
// write lands after the copy succeeds against the copy (If-Match sees only
// the ETag): a race of one round trip, which can make two leaders overlap
// until the older one's next renewal fails, and which the fence resolves.
//
// # Torn reads
//
// S3 updates a key atomically: a read returns one version, its body with
// its ETag. A store that breaks this (versitygw v1.8.0 as a single
// gateway answered a few in ten thousand reads racing a write with the
// body of one version and the ETag of another) defeats If-Match: an
// elector that believes the body and conditions its next write on the
// ETag acts on a version that never existed. It takes a released record
// at once, If-Match the ETag of the term that just took it over, with
// that term's token; or a record of its own from a term long over, If-Match
// its successor's ETag, with the token its successor has. Either way a
// token is handed out twice or goes backwards, and two leaders overlap.
//
// The defence is S3's ETag itself: for an object written in one part
// without SSE-KMS or SSE-C it is the MD5 of the body. A read whose ETag
// looks like one (32 hex digits, quoted) and whose body (at most 64 KiB,
// the largest record) has another MD5 is read again at once, not acted on
// ([ETagMismatch]); after three such reads in a row, each another, the
// elector gives up for now, as after a timeout. A torn read is a race and
// does not repeat; the same bytes under the same ETag twice are an object
// whose ETag is not its MD5 (SSE-KMS, SSE-C, a tool that wrote it in
// parts): the elector takes that read as it is and stops reading twice
// until a body matches its ETag again, which costs a store whose ETags are
// not MD5s one read more per elector.
//
// What this cannot detect: on a store whose ETags are not MD5s (or do not
// look like them: a multipart ETag), no torn read at all. The nonce does
// not replace the check: it tells a reader which write a body is, not
// which ETag belongs to it. A reader that remembers the ETag its own write
// was answered with could tell its body under another ETag, or another
// body under its ETag, but a tear of two versions it did not write (two
// renewals of one leader, a takeover and the record it replaced) carries
// a body and an ETag it has no other knowledge of, and is what followers
// act on. Nor can the check tell a tear from a torn object that a store
// keeps (a write that failed half way, its old ETag left on its new
// bytes): that one reads the same every time, and every elector sees it
// alike, which If-Match then judges consistently.
//
// # Assumptions
//
// Mutual exclusion in true time holds if every node's monotonic clock runs
// within ClockDriftPPM of true time and does not stop while the node runs
// (a suspended VM whose monotonic clock stops breaks this:
// docs/failure-modes.md#8-monotonic-clock-stops), if S3 is strongly
// consistent with atomic conditional writes (a store that tears reads is
// tolerated where its ETags are MD5s; see Torn reads), and if only
// electors write the object. Token monotonicity holds across releases, expiries,
// crashes and restarts as long as the object is not deleted or overwritten
// by others, and across a deletion or an overwrite within the limits that
// Fencing tokens states. Liveness: once S3 answers within RequestTimeout
// and no node pauses, a leader keeps its term, a released lease is taken
// within about RetryPeriod, an abandoned one within about LeaseDuration +
// RetryPeriod.
// [Config.Assumptions] gives these bounds as numbers for a configuration (the
// drift bound, the term, the longest pause the guarantee survives), and
// [Config.LivenessBound] how soon after faults heal a leader must be in
// place. [DriftMargin], [TermLength] and [PauseBound] derive them from a
// lease; every lock the project runs derives its own with them.
package protocol
