// Package leadermgr is design 004 of docs/sources.md ("A Go leader
// manager", the document behind github.com/gabihodoroaga/leaderelection),
// twice: as the document wrote it, faults included, and made safe, each on
// S3 (here, so that it runs under the simulator) and on PostgreSQL
// (subpackage pgbackend, tested live only).
//
// # The document's manager, as written
//
// Backend is the document's interface, with its signature:
//
//	WriteEntry(ctx context.Context, id string, term time.Duration) (bool, error)
//
// writes the entry naming id, valid for term, if it has expired or already
// names id, and reports whether it did. LeaderManager, NewLeaderManager,
// Config{Term, Renew, Retry} and the callbacks OnElected, OnOusting and
// OnError are the document's, and so is Start: a goroutine that tries to
// lock every Retry and, once it holds the lock, renews it every Renew, its
// term ending only when a renewal returns false or an error. The document's
// faults are kept:
//
//   - no local deadline: nothing ends a term when the entry expires, and
//     WriteEntry gets a context without timeout; a leader whose renewal
//     hangs or is slow, or that began on a late answer or was paused, leads
//     on while the others, on the store's clock, have taken over;
//   - renewal by identity alone (the condition "the entry names id"), so
//     a process started under the same identity inherits a live term, and
//     no fencing token: the application is told only its identity;
//   - a fixed sleep of Retry after an error, which ignores the deadline and
//     cancellation (time.Sleep in the document; Clock.Sleep on a context
//     nothing cancels here);
//   - no release on stop.
//
// Two fields are added to Config for the simulator, Clock and Identity;
// left zero they change nothing (the real clock; a random UUID, as the
// document's uuid.NewString()). time.Ticker becomes a ticker on the Clock
// with the same semantics (a late receiver gets one tick at once).
//
// S3Backend is the document's backend on S3: a read, then a conditional
// write (If-None-Match: * or If-Match the ETag read), so that the
// document's condition holds at the instant the write applies, as it does
// inside its SQL statement. S3 has no NOW(): "expired" is judged on one
// clock, as the SQL server's is, the caller's monotonic clock timing each
// version of the object from the first read that returned it. No two
// clocks are compared, so the failures are the manager's own.
//
// The scenario "leadermgr/naive-s3" runs the document's manager, with its
// demo's intervals (DocumentConfig: 8 s, 4 s, 2 s), on S3Backend under
// swarm plans; it is expected to be caught, and is: about a quarter of the
// seeds show two leaders at once. In every such overlap the older leader
// led on for want of a local deadline: its renewal hung with no answer
// (about three quarters of the failing seeds), was in flight past the term
// (about a quarter), or it began on a late answer or was paused, and
// learned of the expiry only at its next renewal tick (a few). Renewal by
// identity alone and the fixed sleep show in no checker: the document hands
// out no token for unique-holder to see two incarnations share, and the
// sleep only delays.
//
// # The safe manager
//
// SafeManager keeps the document's shape (a store of one entry, acquire
// then renew, callbacks) and the production elector's guarantees
// (protocol.Elector):
//
//   - a term ends at a local deadline on the monotonic clock,
//     min(RenewDeadline, Term less a drift margin) after the send of its
//     last successful write, enforced by a watchdog even while a call
//     hangs, and a grant whose answer comes after it is not acted on; the
//     application runs under a context that the end of the term cancels;
//   - an incrementing fencing token is stored in the entry and handed to
//     the application (Lease.Token), to pass to a protocol.Fence;
//   - every write carries a fresh nonce, and an outcome that is unknown (a
//     timeout, a 5xx, a lost answer) or a failed condition (which may hide
//     an earlier attempt that applied, as an SDK retry answered 412 does)
//     is resolved by reading the entry back and comparing nonces: a write
//     of its own that applied continues or begins the term, measured from
//     that write's send;
//   - renewals and the release are conditioned on the entry's version (the
//     ETag on S3, the nonce in SQL), never on an identity, so a late renewal
//     cannot clobber a successor and a restarted process under the same
//     name waits like anyone else;
//   - stopping, it waits for its application and releases the entry (same
//     token) before its deadline, so the next manager takes over at once.
//
// It runs over a LeaseStore: S3Store here (conditional PutObject; expiry
// timed on the caller's monotonic clock from its first sight of a version),
// pgbackend.Store on PostgreSQL (a conditional upsert; expiry by the
// server's clock, valid_until < now()). SafeConfig.Assumptions states when
// two terms never overlap: clock rates within DriftPPM, pauses shorter than
// Term - TermLength less drift. The scenario "leadermgr/safe-s3" runs it with
// SimSafeConfig (the swarm elector's settings) on S3Store under swarm plans
// and judges it as the production elector is: it survives inside its
// assumptions, and outside them the fence refuses every stale write.
//
// # Under the simulator, and not
//
// Everything in this package runs under the simulator: time, sleeping and
// goroutines go through the protocol.Clock, randomness through an
// io.Reader, S3 through protocol.ObjectStore, and `simrun vet ./leadermgr`
// is clean. Importing the package registers its two scenarios with the
// harness (NaiveS3Scenario, SafeS3Scenario). The simulator has no SQL
// service, so the PostgreSQL backends live in package pgbackend, which
// neither the simulator nor `simrun vet ./leadermgr` touches, and are
// tested live against a real server (see its documentation).
package leadermgr
