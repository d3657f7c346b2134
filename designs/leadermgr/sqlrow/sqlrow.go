// Package sqlrow holds the SQL statements of the leader manager's database
// backends, each beside a pure Go function that evaluates it on one row: the
// document's upsert (WriteEntrySQL, WriteEntry) and the conditional
// statements of the safe manager's lease (AcquireSQL, RenewSQL, ReleaseSQL,
// ReadSQL and their functions).
//
// Package pgbackend sends the SQL text to PostgreSQL through pgx; package
// leadermgr runs the functions on the simulator's row store (sim.RowStore),
// at the instant a statement applies, with the server's clock reading as
// now(). A function is the statement's semantics on the row of its key as
// PostgreSQL executes it: the condition of the ON CONFLICT or WHERE clause
// decides whether the row is written, with now() taken once per statement
// (it is the transaction's start, and each statement is its own
// transaction) at PostgreSQL's resolution, the microsecond, and the row's
// other columns are set as the SET clause sets them. pgbackend's live test
// runs every statement against a real server on rows that are absent,
// expired, valid, released, held by the caller or by someone else, and
// checks that the function agrees with the server on the rows it wrote,
// the rows it returned and valid_until.
//
// The package has no dependency beyond the standard library, so that the
// simulator never loads a database driver.
package sqlrow

import (
	"fmt"
	"time"
)

// Now is now() as PostgreSQL reads it from a clock: truncated to the
// microsecond.
func Now(clock time.Time) time.Time { return clock.Truncate(time.Microsecond) }

// stamp formats a timestamp for a row's String: the time of day to the
// microsecond, which is enough to follow a run.
func stamp(t time.Time) string { return t.UTC().Format("15:04:05.000000") }

// NaiveSchema creates the document's table.
const NaiveSchema = `CREATE TABLE IF NOT EXISTS leaderlock (
	key         text PRIMARY KEY,
	leader_id   text NOT NULL,
	valid_until timestamp NOT NULL
)`

// WriteEntrySQL is the document's statement, as written: $1 the key, $2 the
// leader's identity, $3 the term in whole seconds (the document's
// int64(ttl.Seconds())). It inserts the row, or updates it if it has
// expired by the server's clock or already names $2; the rows affected (1
// or 0) say whether the caller holds the lock.
const WriteEntrySQL = `
    INSERT INTO leaderlock as t (key, leader_id, valid_until) VALUES ($1, $2, NOW() at time zone 'utc' + $3 * INTERVAL '1 seconds'  ) 
	ON CONFLICT (key) DO
	UPDATE SET leader_id = $2, valid_until =  NOW() at time zone 'utc' + $3 * INTERVAL '1 seconds'
	WHERE t.valid_until < NOW() at time zone 'utc' OR t.leader_id = $2
    `

// LeaderLock is a row of the document's table.
type LeaderLock struct {
	Key        string
	LeaderID   string
	ValidUntil time.Time // UTC
}

// String shows the row as a trace does.
func (r LeaderLock) String() string {
	return fmt.Sprintf("leader_id=%s valid_until=%s", r.LeaderID, stamp(r.ValidUntil))
}

// WriteEntry is WriteEntrySQL on cur, the row of key (nil if there is
// none), at the server's clock reading clock: it returns the row the key
// holds afterwards (cur itself if the statement wrote nothing, a new row
// otherwise; cur is not modified) and the rows affected.
func WriteEntry(cur *LeaderLock, key, leaderID string, ttlSeconds int64, clock time.Time) (*LeaderLock, int64) {
	now := Now(clock).UTC()
	next := &LeaderLock{Key: key, LeaderID: leaderID, ValidUntil: now.Add(time.Duration(ttlSeconds) * time.Second)}
	switch {
	case cur == nil: // INSERT
		return next, 1
	case cur.ValidUntil.Before(now) || cur.LeaderID == leaderID: // ON CONFLICT ... DO UPDATE ... WHERE
		return next, 1
	}
	return cur, 0
}

// Schema creates the table of the safe manager's lease.
const Schema = `CREATE TABLE IF NOT EXISTS lease (
	name        text PRIMARY KEY,
	holder      text NOT NULL,
	token       bigint NOT NULL,
	nonce       text NOT NULL,
	term_ms     bigint NOT NULL,
	valid_until timestamptz NOT NULL,
	released    boolean NOT NULL DEFAULT false
)`

// The statements of the lease. Every write is conditioned on the row's
// state: acquisition on its being released or expired by the server's
// clock (incrementing the token in the same statement), renewal and
// release on the nonce of the write the caller last saw (the row's
// version).
const (
	// AcquireSQL: $1 name, $2 holder, $3 nonce, $4 term in milliseconds.
	// It returns the new token, or no row if the lease is held.
	AcquireSQL = `INSERT INTO lease AS l (name, holder, token, nonce, term_ms, valid_until, released)
VALUES ($1, $2, 1, $3, $4::bigint, now() + $4::bigint * interval '1 millisecond', false)
ON CONFLICT (name) DO UPDATE
SET holder = EXCLUDED.holder, token = l.token + 1, nonce = EXCLUDED.nonce, term_ms = EXCLUDED.term_ms,
    valid_until = EXCLUDED.valid_until, released = false
WHERE l.released OR l.valid_until < now()
RETURNING token`
	// RenewSQL: $1 name, $2 holder, $3 token, $4 the nonce last seen, $5
	// the new nonce, $6 term in milliseconds. It returns the token, or no
	// row if the row is not the one the caller last saw.
	RenewSQL = `UPDATE lease SET nonce = $5, term_ms = $6::bigint, valid_until = now() + $6::bigint * interval '1 millisecond'
WHERE name = $1 AND holder = $2 AND token = $3 AND nonce = $4 AND NOT released
RETURNING token`
	// ReleaseSQL: $1 name, $2 the nonce last seen, $3 the new nonce. It
	// marks the row released and expired at once, and returns the token,
	// or no row if the row is not the one the caller last saw.
	ReleaseSQL = `UPDATE lease SET nonce = $3, released = true, valid_until = now()
WHERE name = $1 AND nonce = $2 AND NOT released
RETURNING token`
	// ReadSQL: $1 name.
	ReadSQL = `SELECT holder, token, nonce, term_ms, released FROM lease WHERE name = $1`
)

// Lease is a row of the lease table.
type Lease struct {
	Name       string
	Holder     string
	Token      int64
	Nonce      string
	TermMS     int64
	ValidUntil time.Time
	Released   bool
}

// String shows the row as a trace does.
func (r Lease) String() string {
	s := fmt.Sprintf("holder=%s token=%d nonce=%s term_ms=%d valid_until=%s", r.Holder, r.Token, r.Nonce, r.TermMS, stamp(r.ValidUntil))
	if r.Released {
		s += " released"
	}
	return s
}

// Acquire is AcquireSQL on cur, the row of name (nil if none), at the
// server's clock reading clock: the row afterwards (cur itself if nothing
// was written; cur is not modified), and the token returned, 0 if no row
// was returned (the lease is held).
func Acquire(cur *Lease, name, holder, nonce string, termMS int64, clock time.Time) (*Lease, int64) {
	now := Now(clock)
	next := &Lease{Name: name, Holder: holder, Token: 1, Nonce: nonce, TermMS: termMS,
		ValidUntil: now.Add(time.Duration(termMS) * time.Millisecond)}
	switch {
	case cur == nil: // INSERT
		return next, next.Token
	case cur.Released || cur.ValidUntil.Before(now): // ON CONFLICT ... DO UPDATE ... WHERE
		next.Token = cur.Token + 1
		return next, next.Token
	}
	return cur, 0
}

// Renew is RenewSQL on cur at the server's clock reading clock: the row
// afterwards (cur itself if nothing was written) and the token returned, 0
// if none.
func Renew(cur *Lease, name, holder string, token int64, seenNonce, nonce string, termMS int64, clock time.Time) (*Lease, int64) {
	if cur == nil || cur.Name != name || cur.Holder != holder || cur.Token != token || cur.Nonce != seenNonce || cur.Released {
		return cur, 0
	}
	next := *cur
	next.Nonce, next.TermMS = nonce, termMS
	next.ValidUntil = Now(clock).Add(time.Duration(termMS) * time.Millisecond)
	return &next, next.Token
}

// Release is ReleaseSQL on cur at the server's clock reading clock: the
// row afterwards (cur itself if nothing was written) and the token
// returned, 0 if none.
func Release(cur *Lease, name, seenNonce, nonce string, clock time.Time) (*Lease, int64) {
	if cur == nil || cur.Name != name || cur.Nonce != seenNonce || cur.Released {
		return cur, 0
	}
	next := *cur
	next.Nonce, next.Released, next.ValidUntil = nonce, true, Now(clock)
	return &next, next.Token
}
