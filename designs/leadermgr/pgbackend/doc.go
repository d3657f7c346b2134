// Package pgbackend holds the PostgreSQL backends of package leadermgr,
// through pgx (github.com/jackc/pgx/v5):
//
//   - PostgresqlBackend, the document's leadermgr.Backend as written: one
//     row per key, INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE
//     valid_until < NOW() OR leader_id = $2, the server's clock deciding
//     validity (NaiveSchema creates its table);
//   - Store, a leadermgr.LeaseStore for the SafeManager: the row holds the
//     holder, the fencing token, the nonce of the last write, the writer's
//     term, valid_until (the server's clock, for takeovers) and a released
//     flag; every write is conditioned on the nonce the writer last saw
//     (the row's version), so a late renewal never clobbers a successor,
//     and an acquisition increments the token in the same statement
//     (Schema creates its table).
//
// Expiry is decided by the server's clock (valid_until < now()): a
// follower takes over only once the server says the row expired. The
// SafeManager does not read that clock: its term ends at a deadline of its
// own, on its monotonic clock, measured from the send of its last
// successful write, min(RenewDeadline, Term less the drift margin) later.
// The write is applied after it was sent, and valid_until is the server's
// now() at that point plus the full term, so the leader's deadline comes
// first while the clocks' rates stay within the drift bound and the
// server's clock does not step (an NTP step of the database server's clock
// is outside the assumptions, and the fencing token is what keeps a stale
// leader's writes out then).
//
// # Not under the simulator
//
// pgx does its own network I/O and timing, so nothing here runs under the
// simulator, and this package is kept apart from package leadermgr so that
// `simrun vet ./designs/leadermgr` and the simulator never touch pgx. The
// statements are package sqlrow's, each beside a Go function that
// evaluates it on one row: the simulator runs those functions on its SQL
// row store (leadermgr.SQLBackend and leadermgr.SQLStore, in the scenarios
// leadermgr/naive-sql and leadermgr/safe-sql), and the live test here
// checks them against PostgreSQL, statement by statement, on rows that are
// absent, expired, valid until exactly now(), valid, released, the
// caller's or another's.
//
// The live test starts its own PostgreSQL server on loopback (Debian's
// postgresql package: /usr/lib/postgresql/*/bin; `apt-get install -y
// postgresql`; as root it runs initdb and postgres as the postgres user),
// runs SafeManagers on Store in real time through a fault-injecting TCP
// proxy of its own (delays, stalls, connections dropped, queries cut in the
// middle, answers lost), records a sim.History of terms with their tokens
// and writes to an in-process protocol.Fence, and judges it with the
// checkers of package linearizability: unique-holder, monotonic-tokens,
// fencing and overlap. (The S3 linearizability checker does not apply:
// SQL statements are not an S3 history.) It also runs the document's
// manager on PostgresqlBackend and shows its missing local deadline in real
// time. Without the binaries the test says so and skips.
package pgbackend
