// Package leadermgr is design 004 of docs/sources.md ("A Go leader
// manager", the document behind github.com/gabihodoroaga/leaderelection),
// twice: as the document wrote it, faults included, and made safe, each on
// S3 and on SQL. Both run here under the simulator, the SQL forms on its
// row store (sim.RowStore), a simulated SQL server whose clock decides
// validity; subpackage pgbackend runs the same statements on PostgreSQL
// through pgx, tested live, and subpackage sqlrow holds those statements
// beside the Go functions that evaluate them for the simulator.
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
// document's uuid.NewString()). time.NewTicker becomes Clock.NewTicker,
// whose ticks the document's selects receive through Next(ctx).
//
// S3Backend is the document's backend on S3: a read, then a conditional
// write (If-None-Match: * or If-Match the ETag read), so that the
// document's condition holds at the instant the write applies, as it does
// inside its SQL statement. S3 has no NOW(): "expired" is judged on one
// clock, as the SQL server's is, the caller's monotonic clock timing each
// version of the object from the first read that returned it. No two
// clocks are compared, so the failures are the manager's own.
//
// SQLBackend is the document's backend as written, on the simulator's row
// store: WriteEntry sends the document's statement (sqlrow.WriteEntrySQL,
// INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE valid_until < now() OR
// leader_id = $2, the term in whole seconds), which the server evaluates
// with sqlrow.WriteEntry at the instant it applies, its own clock deciding
// validity; pgbackend.PostgresqlBackend sends the same text to PostgreSQL,
// and pgbackend's live test checks that the two agree.
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
// The scenario "leadermgr/naive-sql" runs it on SQLBackend under the same
// swarm plans, made to bear on the row store (SQLPlan: faults aimed at S3
// requests are aimed at statements; writes of the S3 object by someone
// else and SDK retries are left out). It is caught too: over seeds
// 1..20000, 3416 (17%) show two leaders at once, and nothing else. Each
// of the document's faults is named, by the statements' typed events
// (sql.send, sql.apply, sql.return) in the tests, or by a story of its
// own:
//
//   - no local deadline: in every overlap the older leader led on because
//     nothing but a statement's answer ends its term. Its renewal hung, no
//     answer ever coming (2958 of the failing seeds; the document's context
//     has no timeout), was in flight past the term (432), or it began on a
//     late answer or was paused and learned of the expiry at its next tick
//     (121; a seed may show several). The story
//     "leadermgr/naive-sql-hung-renewal" isolates it: node 0's second
//     renewal applies and its answer is lost; the server expires the row 8
//     s later, node 1 takes over, and both lead to the end, on every seed.
//   - renewal by identity alone: under swarm plans a process restarted
//     under its node's identity inherits the live row of its predecessor
//     (922 times in 889 seeds) and leads at once; its predecessor's
//     process had always ended by then (the simulator restarts a process
//     only after killing the last), so no checker sees it. The story
//     "leadermgr/naive-sql-same-identity" shows what the checkers do see:
//     node 0 leads, and a process started on node 1 under node 0's
//     identity, while node 0 still runs, finds the row naming it, renews
//     it and leads at once; both go on renewing by the same rule, and both
//     lead to the end, on every seed. "leadermgr/safe-sql-same-identity"
//     runs the safe manager under the same plan: the second process waits
//     like anyone else, on every seed.
//   - the fixed sleep after errors shows in no checker, and cannot: the
//     document sleeps only after an attempt to lock failed with an error,
//     when it does not lead (an error answered to a renewal ends the term
//     and sends it back to tryToLock at once). The tests check both on
//     every seed: after each of 92173 errors answered to a manager that did
//     not lead (in 14622 seeds), its next statement came no sooner than
//     Retry later (less a tenth for clock drift), or never (its process
//     ended first, 430 times), and after each of 11078 errors answered to
//     a leader, an attempt to lock came at once (unless a pause stopped
//     the node then). A sleep that ignores cancellation keeps only a
//     manager that leads nothing from returning; the next attempt comes
//     Retry after the error, as the retry ticker would have brought it
//     after a false; and the document promises no liveness bound to judge
//     a slow failover by.
//
// The figures are of seeds 1..20000: go test ./designs/leadermgr/ -run
// TestNaiveSQLFaults -v -leadermgr.seeds=20000 (the test runs 500 by
// default).
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
// server's clock, valid_until < now()), and SQLStore here, the same
// statements on the simulator's row store. SafeConfig.Assumptions states
// when two terms never overlap: clock rates within DriftPPM, pauses shorter
// than Term - TermLength less drift. The scenarios "leadermgr/safe-s3" and
// "leadermgr/safe-sql" run it with SimSafeConfig (the swarm elector's
// settings) on S3Store and on SQLStore under swarm plans and judge it as
// the production elector is: it survives inside its assumptions, and
// outside them the fence refuses every stale write (safe-sql: seeds
// 1..20000 pass, 22% of them outside the assumptions). On SQL the server's
// clock is among the clocks assumed: stepped 10 s forward under the
// simulator (RowStore.SetClock), it expires the leader's row at once, and
// in about half the seeds a follower takes over before the leader's next
// renewal: two leaders, for less than a renewal period, the old leader's
// writes accepted by the fence only until the new one has written.
//
// # Under the simulator, and not
//
// Everything in this package runs under the simulator: time, sleeping and
// goroutines go through the protocol.Clock, randomness through an
// io.Reader, S3 through sim.S3Client, SQL through the node's
// sim.RowClient, and `simrun vet ./designs/leadermgr` is clean. Scenarios lists
// the package's scenarios for a program's simrun.Main: the swarm scenarios
// NaiveS3Scenario, SafeS3Scenario, NaiveSQLScenario and SafeSQLScenario,
// and the SQL stories NaiveSQLHungRenewal, NaiveSQLSameIdentity and
// SafeSQLSameIdentity. The row store is a simulation: one table, each
// statement applied alone at one instant (PostgreSQL's row locks serialise
// statements on one row, and each statement here is its own transaction),
// its server's clock true time; its faults are the fault plan's (a
// partition cuts a node off from it as from S3, lost answers, 5xx as
// refusals, slow legs). The PostgreSQL backends live in package pgbackend,
// which neither the simulator nor `simrun vet ./designs/leadermgr` touches, and are
// tested live against a real server (see its documentation).
package leadermgr
