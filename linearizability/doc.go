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
// [ElectionCheckers] lists these checkers and [CheckElection] runs them all.
// Each returns [Violation]s carrying the true time at which the violation is
// witnessed, the nodes involved and one sentence of evidence. [CheckLiveness]
// judges the other side, as a Violation too: once faults healed, a leader
// within the protocol's bound, still leading at the end of the run.
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
// request the nodes made, as their clients saw it. It asks porcupine
// (github.com/anishathalye/porcupine) whether the requests are
// linearizable with respect to one object per key with AWS's
// conditional-request semantics (docs/s3-semantics.md, sim.DialectAWS):
// PutObject with If-None-Match: * or If-Match, GetObject and HeadObject
// with either, DeleteObject with If-Match; each answer must match the
// store's in status, error code and ETag. An Illegal verdict is a bug in
// the simulated S3 or in how the simulator records what clients saw, not
// in the protocol: the check keeps the simulator honest, so that the
// election checkers judge the protocol against the S3 that AWS documents.
// Answers that say nothing are modelled as such. A request that got no
// answer (it timed out, was abandoned, its answer was lost, or the run
// ended first) may take effect at any instant after it was sent, once, or
// never; one that failed with a 500 or 503, or without a connection, may
// have taken effect before the error came, or not; one answered 409
// ConditionalRequestConflict did not. Left out: ListObjectsV2 (the model
// holds no listing), requests that neither changed the key nor say
// anything about it, and time conditions (If-Modified-Since), which the
// history does not record. Writes made outside the nodes, such as an
// operator deleting the lock object, are not in the history, so a run with
// them may be judged Illegal; one recorded with Node -1 is checked like
// any other. The verdict is porcupine's three-valued one: Unknown means the
// timeout passed first and is never a pass. [S3Result.Visualize] writes
// porcupine's HTML view of the history with the linearization found, or
// where the search got stuck. A run's few hundred requests take under a
// millisecond to check; an illegal history with dozens of writes
// of unknown outcome takes longer, up to a second, since every instant at
// which each could have taken effect must be ruled out.
package linearizability
