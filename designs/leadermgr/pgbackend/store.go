package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/s3lease/s3lease/designs/leadermgr"
	"github.com/s3lease/s3lease/designs/leadermgr/sqlrow"
)

// Schema creates the table of Store (sqlrow.Schema).
const Schema = sqlrow.Schema

// Store is a leadermgr.LeaseStore on one row of the table Schema creates.
// A row's version is its nonce, fresh for every write. The server's clock
// decides expiry (valid_until < now()); the token is incremented by the
// acquiring statement itself, so it only grows while the row exists. Its
// statements are package sqlrow's (AcquireSQL, RenewSQL, ReleaseSQL,
// ReadSQL), whose Go functions leadermgr.SQLStore runs under the
// simulator.
type Store struct {
	db   DB
	name string
}

// NewStore returns the lease named name in db.
func NewStore(db DB, name string) *Store { return &Store{db: db, name: name} }

var _ leadermgr.LeaseStore = (*Store)(nil)

const (
	acquireSQL = `INSERT INTO lease AS l (name, holder, token, nonce, term_ms, valid_until, released)
VALUES ($1, $2, 1, $3, $4::bigint, now() + $4::bigint * interval '1 millisecond', false)
ON CONFLICT (name) DO UPDATE
SET holder = EXCLUDED.holder, token = l.token + 1, nonce = EXCLUDED.nonce, term_ms = EXCLUDED.term_ms,
    valid_until = EXCLUDED.valid_until, released = false
WHERE l.released OR l.valid_until < now()
RETURNING token`
	renewSQL = `UPDATE lease SET nonce = $5, term_ms = $6::bigint, valid_until = now() + $6::bigint * interval '1 millisecond'
WHERE name = $1 AND holder = $2 AND token = $3 AND nonce = $4 AND NOT released
RETURNING token`
	releaseSQL = `UPDATE lease SET nonce = $3, released = true, valid_until = now()
WHERE name = $1 AND nonce = $2 AND NOT released
RETURNING token`
	readSQL = `SELECT holder, token, nonce, term_ms, released FROM lease WHERE name = $1`
)

// Read implements leadermgr.LeaseStore.
func (s *Store) Read(ctx context.Context) (leadermgr.Entry, bool, error) {
	var e leadermgr.Entry
	var token, termMS int64
	err := s.db.QueryRow(ctx, sqlrow.ReadSQL, s.name).Scan(&e.Holder, &token, &e.Nonce, &termMS, &e.Released)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return leadermgr.Entry{}, false, nil
	case err != nil:
		return leadermgr.Entry{}, false, fmt.Errorf("pgbackend: read lease %q: %w", s.name, err)
	}
	e.Token, e.Term, e.Version = uint64(token), time.Duration(termMS)*time.Millisecond, e.Nonce
	return e, true, nil
}

// Acquire implements leadermgr.LeaseStore: one statement that inserts the
// row with token 1, or takes over a released or expired row with its token
// + 1; leadermgr.ErrHeld if the row is held.
func (s *Store) Acquire(ctx context.Context, holder, nonce string, term time.Duration) (leadermgr.Entry, error) {
	var token int64
	err := s.db.QueryRow(ctx, sqlrow.AcquireSQL, s.name, holder, nonce, term.Milliseconds()).Scan(&token)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return leadermgr.Entry{}, leadermgr.ErrHeld
	case err != nil:
		return leadermgr.Entry{}, fmt.Errorf("pgbackend: acquire lease %q: %w", s.name, err)
	}
	return leadermgr.Entry{Holder: holder, Token: uint64(token), Nonce: nonce, Term: term, Version: nonce}, nil
}

// Renew implements leadermgr.LeaseStore: the row rewritten with a new nonce
// and valid_until if it still holds prev's holder, token and nonce.
func (s *Store) Renew(ctx context.Context, prev leadermgr.Entry, nonce string, term time.Duration) (leadermgr.Entry, error) {
	var token int64
	err := s.db.QueryRow(ctx, sqlrow.RenewSQL, s.name, prev.Holder, int64(prev.Token), prev.Version, nonce, term.Milliseconds()).Scan(&token)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return leadermgr.Entry{}, fmt.Errorf("pgbackend: renew lease %q: %w", s.name, leadermgr.ErrConflict)
	case err != nil:
		return leadermgr.Entry{}, fmt.Errorf("pgbackend: renew lease %q: %w", s.name, err)
	}
	return leadermgr.Entry{Holder: prev.Holder, Token: prev.Token, Nonce: nonce, Term: term, Version: nonce}, nil
}

// Release implements leadermgr.LeaseStore: the row marked released, and
// expired at once, if it still holds prev's nonce.
func (s *Store) Release(ctx context.Context, prev leadermgr.Entry, nonce string) error {
	var token int64
	err := s.db.QueryRow(ctx, sqlrow.ReleaseSQL, s.name, prev.Version, nonce).Scan(&token)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("pgbackend: release lease %q: %w", s.name, leadermgr.ErrConflict)
	case err != nil:
		return fmt.Errorf("pgbackend: release lease %q: %w", s.name, err)
	}
	return nil
}
