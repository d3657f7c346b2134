// Package relaxedlog is design 003 of docs/sources.md, the essay "Relaxed
// logs and strict leases" (docs/sources.md#leases-over-a-blob-store), as a
// system the harness runs: leases on logical domains give writers
// exclusivity, writers put timestamped messages into bags (unordered
// storage, one bag per time bucket) that readers order by timestamp, a
// holder hands a timestamp watermark to the next, and closable bags decide
// which late messages count once a lease expired without being let go. It
// comes as a naive form, as the essay's pieces invite, and a safe one,
// both written against protocol.Clock and sim.S3Client (GetObject,
// PutObject with If-None-Match, ListObjectsV2), with the production
// elector (protocol.Elector) holding every lease, so that the code the
// harness judges is the code one would ship.
//
// # The design on S3
//
// Each domain (Config.Domains) has a lease: the production elector on a
// lock object of its own (Config.LockKey; the first domain's is the run's
// lock object, whose terms the harness judges as it judges any election).
// A process (one per node: an elector per domain it wants, a Writer, a
// closer and a Reader) writes while it holds one or more leases. Each
// message is one object, Prefix<bucket>/data/<writer>-<seq>, in the bag of
// its stamp's bucket (Config.BagOf; one bag per Bucket, named by its start
// in Unix milliseconds, so that listings run in time order), and carries
// every lease it was written under (domain and fencing token) and its
// stamp (Message). A bag is closed (Client.Close) by a prelock,
// Prefix<bucket>/prelock, then a listing of its messages, then a lock
// object, Prefix<bucket>/lock, listing them, by create: the first lock
// object decides, for good, which of the bag's messages count.
//
// # The essay, mechanism by mechanism
//
// Leases and timestamps:
//
//   - Leases with absolute deadlines, a timestamp below the expiry: the
//     elector keeps its deadline local (its monotonic clock), so a writer
//     learns a lower bound from the elector's public metrics (Deadline:
//     the send of each acquisition or renewal answered OK, plus the term
//     length). Writer.stamp stamps and publishes only below every held
//     lease's expiry as its clock reads it then (its wall clock plus the
//     room the bound leaves), and waits (Outcome Waiting) when the floor it
//     must write above lies beyond that.
//   - A watermark published before letting go: Writer.stamp raises every
//     held lease's watermark up to Ahead past its clock (SetWatermark) and
//     stamps a message only once a watermark at or above its stamp is in
//     the lock object (PublishedWatermark): each renewal carries it, the
//     release carries the last, and the elector hands it to the next holder
//     (Lease.Previous) however the term ended. A lease is let go only once
//     the appends under it are settled (Writer.Drop).
//   - The maximum over a lease set: a message carries every held lease,
//     and is stamped above the maximum of the watermarks they were handed
//     and of the writer's own last stamp (Writer.stamp).
//   - Optional metadata with the watermark ("where updates went"):
//     Watermark.Updates names the bags' prefix.
//
// Bags, closed by the appendix's five steps (Client.Close), on S3 the
// maildir-style bag the essay names for a path prefix in S3 (a message per
// object; the bag of single-writer logs with sizes needs appends, which S3
// has not):
//
//  1. declare the close: make sure the prelock exists, by create
//     (If-None-Match: *; a 412 is another closer's prelock, as good);
//  2. mark the data files read-only: S3 cannot; instead a writer checks
//     for the prelock after creating its message (below);
//  3. prepare the lock file: list the bag's messages, every page, after
//     the prelock exists (no sizes: a message object never changes);
//  4. put the lock file in place: create the lock object, listing them
//     ("a conditional PUT if available"); a 412 is another closer's list,
//     which is the bag's;
//  5. mark the directory read-only: nothing to do, the lock object is the
//     close (Variant.UnconditionalLock is the mistake of writing it with a
//     plain PutObject).
//
// The rest of the appendix: a bag is closed once clearly past, Grace after
// its bucket ended, by every process's closer, a metronome that closes
// every bag in turn (closeBags, each closer jittered by up to CloseJitter);
// a writer whose fresh data object may have landed in a closing bag checks
// for the prelock after the create (Writer.check): none, and every close
// lists it (its listing comes after the prelock); a prelock, and the
// writer helps close the bag and counts its message only if the lock
// object lists it (Outcome Committed or Refused). The essay's shortcut,
// skipping the check while "clearly not too late", rests on clocks and is
// not taken. Closing is wait-free: writers and readers that find a prelock
// without a lock object finish the close themselves. Readers (Reader)
// take a closed bag's list, and an open bag's every message, from one
// listing of every key, in which a bag's prelock and lock object come after
// its messages.
//
// The witness of the appendix's "Making this debuggable" (numbered 1 to 6):
// the expiration (1) stays the elector's own; the signed time (2) is left
// out (below); the previous holder's watermark (3) is Lease.Previous, from
// the lock record; the correlation ids (4, 5) are the record's nonce and
// its link to the term before (protocol.Record.PreviousTerm); whether the
// previous lease was let go or broken (6) is that link's released flag.
//
// # What is left out, and why
//
//   - Roughtime and signed times: the simulator has no time source but
//     the nodes' clocks, and the design's safety does not rest on clocks:
//     order comes from the watermarks the lease chain hands over, closes
//     from conditional creates. Clocks beyond the bound (MaxOffset) are
//     fenced instead of rejected: a closer ahead closes bags others still
//     write, whose writers are refused and say so, and a writer behind
//     cannot stamp above its watermarks below its expiry and writes
//     nothing (the skew stories). The expiry rule already bounds what a
//     signed time would: no stamp or watermark a term past its writer's
//     clock.
//   - Signed lease witnesses: they guard against logic bugs making
//     valid-looking witnesses; here the judges audit every lock record
//     (the elector's record audit) and every message, lock object and
//     verdict against the history, after the fact.
//   - NFS (its seven unsurprising operations and two fences): this design
//     is on S3, whose listings and reads are strongly consistent and whose
//     creates are conditional, so neither fence is needed; the operations'
//     counterparts are ListObjectsV2 (1), a create by If-None-Match (2, 4),
//     GetObject (3, 6, 7) and a message per object (5).
//   - Waiting a few seconds after an expiry: the successor need not, since
//     the elector hands over the watermark of every renewal, not only of a
//     release, so a late message of an expired term is below it anyway; a
//     reader that wants the predecessor's messages final closes the bags up
//     to Lease.Previous.At.
//   - Writes of the lock objects by someone else: the record carries the
//     watermark, and one someone else wrote hands over a watermark no
//     holder published, or none, and may start the tokens again lower. The
//     scenarios leave them out of their plans (withoutForeign).
//   - Tentative leases, summaries and materialised views, consolidation
//     per machine, moving the lease service: beyond the log itself.
//
// # Naive, safe and broken forms
//
// Variant names what a form gets wrong; the zero Variant is the safe
// form (Default), Naive trusts its acknowledgement (Variant.TrustAck: the
// 200 answered to its create is the commit, with no prelock check and no
// helping). The others break one piece each, for a checker to catch:
// UnconditionalLock, FirstWatermark (the first lease's watermark, not the
// maximum), PublishAhead (a watermark ahead whatever the deadline).
//
// # Judges
//
// Each checker is a harness violation, never excused by a fault, with a
// test on hand-built histories and a broken form that a story shows
// caught:
//
//   - log-order (OrderCheck): in each domain, every message readers accept
//     at the end from a later term is stamped above every accepted message
//     of earlier terms (FirstWatermark, in the two-leases story);
//   - closed-bags (ClosedCheck): once a bag's lock object exists, what
//     readers accept from it never changes: it is not written again with
//     another list nor deleted, readers that find it closed accept its
//     first list, and what they accepted while it was open is on it
//     (UnconditionalLock, in the closers-race story);
//   - acked-kept (AckedCheck): every message reported committed is
//     accepted at the end (TrustAck, in the late-writer story and the
//     swarm);
//   - below-expiry (ExpiryCheck): no stamp or watermark at or past its
//     lease's expiry as its writer's clock read it, the deadline measured
//     independently, from the sends of the lock object's writes S3 applied
//     (PublishAhead, in the renewals-fail story);
//   - and the election checkers for the leases: the harness's for the
//     first domain (from the simulator's application), unique-holder and
//     monotonic-tokens for the others (from the log), and the elector's
//     record audit of every domain's lock object.
//
// Config.AuditWrites judges what holds whatever the faults from the
// history alone (records, lock objects), so harness.Check (which draws
// foreign writes) judges it too; Config.Audit judges the rest from the
// run's Log, which a Recorder keeps through the processes' Hooks.
//
// # Scenarios
//
// Scenarios lists them for a program's simrun.Main: "relaxedlog/naive"
// (caught) and "relaxedlog/safe" (either) run the swarm campaign with two
// domains; the stories are the essay's sad paths, each survived by the
// safe form and asserted, from its typed trace events and its log, on
// every seed of the tests' sweeps: "relaxedlog/late-writer" (a writer
// paused past its leases' expiry whose message lands while its bag is
// being closed), "relaxedlog/closers-race" (three closers, a message
// between their listings), "relaxedlog/two-leases" (a holder of two
// leases whose successors take one each, then a holder of both),
// "relaxedlog/renewals-fail" (a holder cut off from S3 whose leases run
// out), "relaxedlog/skew-within" and "relaxedlog/skew-beyond" (wall
// clocks within the bound, and beyond it either way).
package relaxedlog
