// Package zoo is the harness's bug zoo: locks that are wrong in one known
// way each, which the default campaign must go on catching. A harness that
// passes the production elector proves little unless it also fails these.
//
// # The model: a careful lock and one switch per mistake
//
// Every lock in the zoo is one implementation, the careful lock, with a set
// of switches. With every switch off it is a correct lock, a smaller cousin
// of protocol.Elector:
//
//   - One JSON record {holder, token, nonce, leaseMs, released}, written only
//     by conditional PutObject: If-None-Match: * to create it, If-Match its
//     ETag to take it over, renew it and release it. It is never deleted.
//   - A follower reads every retry period plus jitter and times the record
//     it sees on its own monotonic clock, from the first read that returned
//     that exact record (ETag and nonce); it takes over once the record
//     stayed unchanged for max(the record's lease, its own), with the
//     highest token it has seen plus one. A released record is taken at
//     once, with the next token.
//   - Its terms, releases, reads and writes are package lockkit's, which
//     the seed designs' safe forms share: a fresh nonce in every write, a
//     term that ends at a deadline from the send of its last successful
//     write, enforced by a watchdog, a release, same token, before it, and
//     a read whose body does not match its ETag (a torn read) read again.
//   - A body that is no record, or a record holding the largest token
//     (which no token can follow), is timed like a record, for the lease it
//     states if any and at least its own, then overwritten; tokens stop at
//     the largest rather than wrap to 0.
//   - It answers an application's "do I lead?" from its current term (the
//     lease check of sim.AppChecks and sim.AppPolls): yes while the term has
//     not ended and its deadline has not passed.
//
// It uses the settings of the swarm campaign's elector (6 s lease, 4 s renew
// deadline, 1 s retry period, 1.5 s request timeout, 1000 ppm drift) and
// makes the same claims: [Careful] returns it as a [Variant], the control of
// the zoo. Like the elector it takes any other settings protocol.NewElector
// accepts ([Variant.Protocol]'s Configure), with the claims those settings
// make, so that the swarm draws them for it as it does for the elector. It passes the swarm campaign and the failure-mode scenarios the
// elector passes, which is what makes a variant's failure attributable to
// its one switch.
//
// A variant is the careful lock with exactly one switch on: one real
// mistake, named in Variant.Mistake with where it was seen (the failure
// modes of docs/failure-modes.md, the public designs of docs/sources.md,
// public issues). [Variants] returns them in a fixed order; `simrun list -v`
// prints each with its mistake. They claim what
// the careful lock claims, so the harness judges them by the same
// assumptions and liveness bound.
//
// # What the zoo shows
//
// Some mistakes are caught on nearly every seed (a lock that times the holder
// instead of the record, or that trusts another clock), some only when the
// swarm combines the right faults (a leader cut off from S3, a process
// restarted at the wrong moment). [Masked] returns mistakes that are real but
// that the careful lock's other defences hide from a swarm that draws only
// faults: a renewal or release without If-Match can only clobber a
// successor if it lands more than lease - renew deadline after the leader
// went quiet, a deadline measured from the answer, or a term as long as the
// lease, only matters when the leader acts right at the end of its term,
// and a 404 taken as success only when the lock object is deleted while
// nobody else can recreate it. The swarm's wider draws catch each of them
// within a few hundred seeds (`simrun zoo -swarm`): a hand-over whose
// release lands late, a foreign delete under an unconditional renewal, an
// application whose slow work (within the pause bound) meets a term as long
// as the lease, a grant answered late, a delete while the followers are cut
// off from S3. They are kept apart, with no scenario in Scenarios, so that
// the zoo's variants stay those that plain fault plans catch.
//
// # The naive lock and the zoo's scenarios
//
// [NaiveLock] is the simplest form of the public S3 lock designs
// (docs/sources.md#quanttype-one-lock-object-with-if-match and
// docs/sources.md#a-client-go-style-elector-in-java), with switches for
// their classic mistakes; the stories of package scenarios run it
// (naive-skew, unconditional-write). [Scenarios] makes one swarm scenario
// per lock, "zoo/careful" and "zoo/<name>" for each of Variants, and
// [MaskedScenarios] one for each of Masked ([Scenario] makes a variant's);
// [All] lists both for a program's simrun.Main, and `simrun zoo` and
// campaigns run them.
package zoo
