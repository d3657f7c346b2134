// Package epochfile is the epoch-file lock of Gunnar Morling's "Leader
// Election With S3 Conditional Writes" (docs/sources.md, design 000:
// docs/sources.md#morling-a-lock-file-per-epoch) as a protocol the harness
// runs: a naive form, as the post describes it, and a safe form of the
// same design. Both are written against protocol.Clock and
// sim.S3Client, so the code the harness judges is the code one
// would ship.
//
// # The design
//
// Every leader epoch has a lock file of its own, <prefix><epoch>.json, the
// epoch zero-padded so that S3's lexicographic listing order is the
// epochs' order, holding {"validity_ms": ..., "expired": false}. A node
// lists the files under the prefix (ListObjectsV2, page by page); if there
// is none, or the latest has expired, it creates the next epoch's file
// (highest listed + 1) with If-None-Match: *, and leads if the create
// succeeded: of all the nodes that try, S3 lets exactly one create a key.
// A leader keeps its lock valid by touching its file (a rewrite) and steps
// down by rewriting it with "expired": true, conditional on its ETag. A
// lock whose holder died expires validity_ms after its Last-Modified. The
// epoch is the fencing token. Old files may be deleted by a background
// process, keeping the cost of the listing constant.
//
// The design assumes what S3 provides: If-None-Match: * decided atomically
// per key, strongly consistent listings, and ETags (conditional writes
// with If-Match). The simulator provides the same (docs/s3-semantics.md):
// no dialect serves a stale listing, so the race of a listing with a
// create is the window between S3 applying the listing and the node
// acting on it (the list-race story).
//
// # What is naive about the naive form
//
// Naive (scenario "epochfile/naive") is the post's algorithm as written.
// It is wrong in three ways, each shown by the harness:
//
//   - Validity is judged from S3's Last-Modified plus validity_ms against
//     the reader's wall clock. Last-Modified is on S3's clock and to the
//     second; a node's wall clock may be off by minutes. A follower whose
//     clock runs ahead takes over a live lock, a leader whose clock runs
//     behind leads past its validity. The post argues that clock drift is
//     only a throughput problem; in fact either case puts two leaders in
//     place at once, and the swarm campaign catches it within a few seeds
//     inside the design's own assumptions (it claims no clock offset
//     bound). This is the zoo's last-modified variant, on the real design.
//   - A touch is a write to the current epoch's file, a takeover a create
//     of the next epoch's file: two keys, so no condition orders them. A
//     touch that lands after a follower's last look extends a term that
//     the next epoch has already superseded, and the old leader, whose
//     touches go on succeeding, never learns of the new one. This shows
//     once validity is timed correctly: the safe form without its expiry
//     mark is caught by the swarm (TestDefencesAreNeeded).
//   - "If there is no lock file" meets the cleanup: If-None-Match cannot
//     tell a key never written from one deleted, so a candidate acting on
//     an old listing re-creates an epoch the cleanup removed, and leads it
//     with a token lower than the current leader's. The stale-create story
//     makes it happen on every seed.
//
// # The safe form
//
// Safe (scenario "epochfile/safe") is the same design with every
// judgement of time made on the node's own monotonic clock, measured from
// what the node itself observed, and with the writes ordered on one key:
//
//   - A follower times the latest file's version (its key and ETag) from
//     the first read that returned it, and judges it invalid only when a
//     later read, a full validity later (the file's or its own, whichever
//     is longer), still returns the same version. A touch changes the
//     ETag, so it restarts the wait. No clock is compared with another.
//   - It then marks the file expired, If-Match the version it timed, and
//     only then creates the next epoch. The post says that only the
//     creator may expire a file, "otherwise chaos may ensue"; the mark is
//     safe because it is conditional on the very version that was timed,
//     and it is necessary: it is ordered against the leader's touches on
//     the same key, so once it applied no touch can extend the term.
//   - A leader's term ends at a deadline on its monotonic clock, measured
//     from the send of its last successful write (create or touch):
//     min(RenewDeadline, Validity less a drift margin) later. A watchdog
//     ends the term then, even while a touch is in flight.
//   - A node leads a created epoch only once a listing made after the
//     create shows it is the highest epoch with the version it created.
//     The highest epoch ever created is never deleted, so such a listing
//     rules out a re-created epoch (and its reused token).
//   - With no lock file listed, a node creates the epoch after the highest
//     it has listed, never the one after a create of its own that was
//     refused or has not arrived: creators of one epoch contend for one key,
//     which If-None-Match gives to one of them, while a create of the epoch
//     after it would succeed beside the first and pass its confirmation.
//   - The cleanup runs as each term begins: the leader of epoch c deletes
//     the files of epochs below c - KeepEpochs, If-Match the ETags listed.
//     The margin keeps the files a candidate holding an older listing may
//     still read; a file that is gone when a candidate reads it is never
//     taken for "no lock file" (the candidate lists again).
//   - Every write carries a fresh nonce, so every version has its own ETag
//     and a node recognises its own write after an answer it did not get
//     (a create whose answer was lost is resumed, measured from its send).
//   - The holder releases (expired: true, If-Match its ETag) only after its
//     application returned and before its deadline.
//
// Its assumptions (Config.Assumptions) are the careful lock's: clock rates
// within DriftPPM and process pauses no longer than the slack between the
// term and the validity, less drift; no monotonic clock stalls, no one
// else writing the lock files, applications that stop when told. It
// assumes nothing of wall-clock offsets or steps. Outside the
// assumptions two leaders may overlap, and the epoch, as the fencing
// token, must then refuse every stale write. It promises a leader within
// Config.LivenessBound once faults heal.
//
// # Scenarios
//
// Scenarios lists the package's scenarios for a program's simrun.Main:
// "epochfile/naive" (caught) and "epochfile/safe" (either) run the swarm
// campaign; "epochfile/list-race", "epochfile/create-race",
// "epochfile/cleanup-race" and "epochfile/stale-create" are the stories of
// what is particular to the design (a listing answered after a create, a
// creation race, deletions landing between the pages of a listing, an
// epoch re-created after its deletion), each of which the safe form
// survives. The tests assert from each run's typed trace events that the
// story happened, on every seed of the sweep.
package epochfile
