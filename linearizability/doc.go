// Package linearizability holds the safety checkers that judge a simulated
// run of S3-based leader election after the fact.
//
// # What is checked
//
// A run leaves a [github.com/s3lease/s3lease/sim.History]: every leadership
// term as the application saw it (which node and incarnation, which fencing
// token, from when to when, in true simulator time) and every write leaders
// sent to the fenced resource, with the time the resource applied it and
// whether it accepted it. The
// checkers look only at this record, never at protocol internals, so they
// judge what a user of the election would observe: the tokens the
// application was handed and what the resource did with the writes made
// under them.
//
// Two nodes believing they lead at the same instant cannot be ruled out
// without assumptions about pauses, clocks and latency (see
// docs/failure-modes.md#what-safe-means-here), so overlap of terms is not
// one of the election checkers: [Overlaps] and [OverlapViolations] report
// it, and the harness counts it only while a run stays inside the
// protocol's assumptions. What must hold unconditionally is that the fencing
// tokens make overlap harmless. That is what the election checkers state:
//
//   - unique-holder: at most one node incarnation is ever handed a given
//     token. A token is the name of an epoch; if two holders share one, the
//     resource cannot tell their writes apart and fencing is void. Terms of
//     one incarnation with the same token (a term re-announced after a
//     renewal) are one holder. A node that restarts is a new incarnation:
//     it lost its in-memory state, so reusing its old token is a violation.
//     Reported at the start of the second holder's term.
//
//   - monotonic-tokens: tokens of successive acquisitions strictly increase,
//     across releases, crashes, restarts and a deleted lock object. A
//     resource fences by remembering the highest token it has seen; a new
//     leader whose token is not above its predecessor's is either refused
//     (the election elected nobody usable) or, if equal, indistinguishable
//     from that predecessor. Terms are taken in order of Start (ties by
//     Node); a term of the incarnation holding the highest token so far may
//     carry that same token again. Only the first offending term is
//     reported, since later terms would be judged against a broken prefix.
//
//   - fencing: replaying the writes in Applied order against the rule
//     "accept a token if and only if it is at least the highest accepted so
//     far", (a) no stale write is accepted, the failure fencing exists to
//     prevent (a paused or partitioned ex-leader overwriting its successor);
//     (b) no write carrying a current token is rejected, because a fence
//     that refuses the current leader makes the system unavailable and, in
//     a test, hides a fence that rejects everything and so can never fail
//     (a); and (c) accepted writes carrying one token come from one node,
//     the observable form of two leaders in one epoch.
//
// [CheckLeaseChecks] judges what applications were told when they asked
// the protocol whether they lead (sim.AppChecks, sim.AppPolls): a write
// sent after a yes, once a term with a higher token had begun, is a
// violation (lease-check), whether the fence took it or not; like overlap,
// the harness counts it while a run stays inside the assumptions.
//
// [ElectionCheckers] lists the first three checkers (each a [Checker]:
// a name, a sentence, a function; fencing's rules are [RuleStaleAccepted]
// and its neighbours) and [CheckElection] runs them all. Each returns
// violations ([Violation]) carrying the true time at which it is
// witnessed, the nodes involved and one sentence of evidence.
// [CheckLiveness] judges the other side, as a Violation too: once faults
// healed, a leader within the protocol's bound, still leading at the end
// of the run.
//
// # Request rates and watermarks
//
// Two more checkers judge what a protocol promises beyond the election.
// [CheckRequestRate] holds each node's S3 requests to the protocol's
// [RequestRate] (at most Max within any Window of true time): a loop that
// forgets to wait breaks it whatever S3 answered, a retry storm
// ([RateCheckName]). [CheckWatermarks] judges a [WatermarkHistory], the
// entries applications wrote ([StampedWrite]) and the watermarks the lock
// object published ([Publication]), against the hand-off's promise
// ([WatermarkChecker]; [RuleBelowPredecessor], [RuleAboveOwn]): no entry
// at or below a watermark an earlier term published, none above its own
// term's. Lease checks are [LeaseCheckName].
//
// # Cost
//
// The checkers run after every simulated run, thousands of runs a second.
// Each first makes one allocation-free pass that confirms the shape every
// correct history has (terms and writes recorded in order, tokens in runs
// that only go up); only a history that fails that pass is sorted and
// grouped to produce the evidence, in O(n log n). No map is used and
// violations are sorted, so output is deterministic for a given history.
// The history is never modified.
//
// # Checkers must be able to fail
//
// A checker that cannot fail is worthless: a bug that made it return nil
// would look exactly like a correct protocol. The tests therefore prove each
// checker against broken histories, hand-built and generated: random valid
// histories pass, and after one named mutation (a token duplicated on
// another node, two terms' tokens swapped, a stale write accepted, a current
// write rejected, ...) the matching checker reports a violation.
//
// # The S3 history
//
// [CheckS3] judges the other record a run leaves, History.S3: every S3
// request the nodes made, as their clients saw it. It decides whether the
// requests are linearizable with respect to one object per key with
// AWS's conditional-request semantics (docs/s3-semantics.md,
// sim.DialectAWS): PutObject with If-None-Match: * or If-Match, GetObject
// and HeadObject with either, DeleteObject with If-Match; each answer must
// match the store's in status, error code and ETag. An Illegal verdict is
// a bug in the simulated S3 or in how the simulator records what clients
// saw, not in the protocol: the check keeps the simulator honest, so that
// the election checkers judge the protocol against the S3 that AWS
// documents. Answers that say nothing are modelled as such. A request that
// got no answer (it timed out, was abandoned, its answer was lost, or the
// run ended first) may take effect at any instant after it was sent, once,
// or never; one that failed with a 500 or 503, or without a connection,
// may have taken effect before the error came, or not; one answered 409
// ConditionalRequestConflict, 403 AccessDenied or a throttling proxy's 429 did not. Left out: ListObjectsV2 (the model
// holds no listing), requests that neither changed the key nor say
// anything about it, time conditions (If-Modified-Since), which the
// history does not record, and torn reads (S3Op.TornBodyETag: a GetObject
// answered with the body of one version and the ETag of another), which no
// state of the object explains: they are the store's fault, and whoever
// recorded them reports them as such. Writes made outside the nodes, such as an
// operator deleting the lock object or the lock object's content before
// the run (written at time 0), are in the history with Node -1 and checked
// like any other; a write made outside that was not recorded would make a
// run look Illegal. The verdict is porcupine's three-valued one: Unknown means
// the timeout passed first and is never a pass. [S3Result.Visualize]
// writes porcupine's HTML view of the history with the linearization
// found, or where the search got stuck.
//
// # Two S3 checkers
//
// Two checkers decide that question. Porcupine
// (github.com/anishathalye/porcupine) with the model of s3model.go is the
// general one: it searches the orders of the requests and decides any
// history, given time. [CheckS3Fast] is specialised to the histories
// conditional writes give, decides them in O(n log n) for n requests, and
// answers Undecided for the others ([FastResult], [FastVerdict]).
// [CheckS3] asks the fast checker first
// and porcupine whenever it does not say Ok, so that an Illegal verdict is
// always porcupine's, with its visualisation; S3Result.Checker names the
// checker whose verdict Result is ([CheckerFast], [CheckerPorcupine]).
// [CheckS3Porcupine] asks porcupine
// whatever the fast checker says, for a sample of runs, and
// [S3Result.Disagreement] reports a history the two judge differently
// ([ErrS3CheckersDisagree]): a bug in the fast checker. A reference run's history, about 280 requests,
// takes the fast checker about 25 µs and porcupine about 200 µs; an
// illegal history with dozens of writes of unknown outcome takes porcupine
// longer, up to a second, since every instant at which each could have
// taken effect must be ruled out.
//
// The fast checker relies on ETags being unique: every body the elector
// writes carries a fresh nonce, so its ETag, the MD5 of the body, names
// one write. The values of a key are then versions that the writes
// themselves order: a put If-None-Match: * (or one without precondition)
// starts a chain, each put If-Match names the version it replaces, and a
// delete ends the chain. A version lives once, from its write to the
// write that replaces it, so once the sequence of writes is fixed, a read
// constrains two instants only: the version it saw was written before its
// answer and replaced after its call. The checker
//
//   - takes a write and its retries (same preconditions and body) as one
//     write, since at most one of them takes effect, and leaves to
//     porcupine a history in which other writes share an ETag (ABA);
//   - proves Illegal a request whose answer no state of the key gives;
//   - decides, where something forces it, whether a write of unknown
//     outcome took effect: a request saw its version, or a write answered
//     200 replaced it; or the version it names was replaced by another;
//   - orders the chains and deletes in real time;
//   - keeps for every write the earliest and the latest instant any
//     linearization can give it, and narrows them with every read that
//     only one run of consecutive states explains, until nothing changes;
//   - places the writes at their earliest instants, or else their latest,
//     each read in a state that gives its answer, and replays that
//     linearization against the model: Ok means the model accepted it.
//
// It says Illegal only when every choice it made was forced: whether
// each write of unknown outcome took effect is known, and each chain or
// delete precedes the next in real time, so every linearization has the
// same sequence of states. A write or read with no instant left then
// proves that none exists. What it cannot decide, such as ETags written
// twice, racing unconditional puts it cannot order, or a read that two
// versions could explain under both placements, it leaves to porcupine.
// The tests hold it to porcupine on hundreds of thousands of generated
// histories, legal and corrupted, and on the runs of every scenario: it
// decides every run of the reference scenario and of the swarm.
package linearizability
