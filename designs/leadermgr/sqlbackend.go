package leadermgr

import (
	"context"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/designs/leadermgr/sqlrow"
	"github.com/s3lease/s3lease/sim"
)

// SQLBackend is the document's Backend on the simulator's SQL row store
// (sim.RowStore, reached through a node's sim.Env.Rows): WriteEntry sends
// the document's statement, sqlrow.WriteEntrySQL, which the server
// evaluates with sqlrow.WriteEntry at the instant it applies, its own clock
// deciding validity (valid_until < now()), exactly as PostgreSQL evaluates
// the SQL text for pgbackend.PostgresqlBackend. The term goes in whole
// seconds, as the document converts it. The trace shows each call as the
// statement "write-entry" with the command tag the server answered
// ("INSERT 0 1": the caller holds the lock; "INSERT 0 0": it does not).
type SQLBackend struct {
	rows *sim.RowClient
	key  string
}

// NewSQLBackend returns the document's backend for the row key of the row
// store that rows reaches.
func NewSQLBackend(rows *sim.RowClient, key string) *SQLBackend {
	return &SQLBackend{rows: rows, key: key}
}

// OpWriteEntry names the document's statement in the trace.
const OpWriteEntry = "write-entry"

// WriteEntry implements Backend with the document's statement. An error is
// the row store's (*sim.SQLError): the server refused the statement, the
// connection failed, or ctx ended; in the last two cases the statement may
// have applied, as with the document's pgx call.
func (b *SQLBackend) WriteEntry(ctx context.Context, id string, term time.Duration) (bool, error) {
	key, ttl := b.key, int64(term.Seconds())
	res, err := b.rows.Exec(ctx, sim.Statement{
		Op: OpWriteEntry, Key: key,
		Cond: fmt.Sprintf("valid_until < now() OR leader_id = '%s'", id),
		Apply: func(row any, now time.Time) (any, sim.RowResult) {
			var cur *sqlrow.LeaderLock
			if r, ok := row.(sqlrow.LeaderLock); ok {
				cur = &r
			}
			next, n := sqlrow.WriteEntry(cur, key, id, ttl, now)
			return *next, sim.RowResult{Tag: fmt.Sprintf("INSERT 0 %d", n), Rows: n}
		},
	})
	if err != nil {
		return false, fmt.Errorf("leadermgr: write entry: %w", err)
	}
	return res.Rows == 1, nil
}

// SQLStore is a LeaseStore on one row of the simulator's SQL row store,
// with pgbackend.Store's statements (sqlrow.AcquireSQL, RenewSQL,
// ReleaseSQL, ReadSQL), each evaluated by its sqlrow function at the
// instant it applies, with the server's clock as now(): the SafeManager
// under the simulator meets the semantics it meets on PostgreSQL. A row's
// version is its nonce; the server's clock decides expiry; the acquiring
// statement increments the token. The trace names the statements
// "acquire", "renew", "release" and "read", with the command tag and the
// token returned.
type SQLStore struct {
	rows *sim.RowClient
	name string
}

// NewSQLStore returns the lease named name in the row store that rows
// reaches.
func NewSQLStore(rows *sim.RowClient, name string) *SQLStore {
	return &SQLStore{rows: rows, name: name}
}

var _ LeaseStore = (*SQLStore)(nil)

// The statements of SQLStore, as the trace names them.
const (
	OpAcquire = "acquire"
	OpRenew   = "renew"
	OpRelease = "release"
	OpRead    = "read"
)

// leaseRow is the row a statement is given, as the sqlrow functions take
// it: nil for none, else a copy.
func leaseRow(row any) *sqlrow.Lease {
	if r, ok := row.(sqlrow.Lease); ok {
		return &r
	}
	return nil
}

// stored is what a statement leaves in the table.
func stored(r *sqlrow.Lease) any {
	if r == nil {
		return nil
	}
	return *r
}

// updateResult is the answer to a statement with RETURNING token.
func updateResult(verb string, token int64) sim.RowResult {
	if token == 0 {
		return sim.RowResult{Tag: verb + " 0"}
	}
	return sim.RowResult{Tag: verb + " 1", Rows: 1, Token: uint64(token), Value: token}
}

// Read implements LeaseStore with sqlrow.ReadSQL.
func (s *SQLStore) Read(ctx context.Context) (Entry, bool, error) {
	res, err := s.rows.Exec(ctx, sim.Statement{Op: OpRead, Key: s.name, ReadOnly: true,
		Apply: func(row any, _ time.Time) (any, sim.RowResult) {
			cur := leaseRow(row)
			if cur == nil {
				return nil, sim.RowResult{Tag: "SELECT 0"}
			}
			return row, sim.RowResult{Tag: "SELECT 1", Rows: 1, Token: uint64(cur.Token), Value: *cur}
		}})
	if err != nil {
		return Entry{}, false, fmt.Errorf("leadermgr: sql read lease %q: %w", s.name, err)
	}
	r, ok := res.Value.(sqlrow.Lease)
	if !ok {
		return Entry{}, false, nil
	}
	return Entry{Holder: r.Holder, Token: uint64(r.Token), Nonce: r.Nonce, Term: time.Duration(r.TermMS) * time.Millisecond,
		Released: r.Released, Version: r.Nonce}, true, nil
}

// Acquire implements LeaseStore with sqlrow.AcquireSQL: ErrHeld if the
// server returned no row.
func (s *SQLStore) Acquire(ctx context.Context, holder, nonce string, term time.Duration) (Entry, error) {
	name, ms := s.name, term.Milliseconds()
	res, err := s.rows.Exec(ctx, sim.Statement{Op: OpAcquire, Key: name, Cond: "released OR valid_until < now()",
		Apply: func(row any, now time.Time) (any, sim.RowResult) {
			next, token := sqlrow.Acquire(leaseRow(row), name, holder, nonce, ms, now)
			return stored(next), updateResult("INSERT 0", token)
		}})
	switch {
	case err != nil:
		return Entry{}, fmt.Errorf("leadermgr: sql acquire lease %q: %w", name, err)
	case res.Rows == 0:
		return Entry{}, ErrHeld
	}
	return Entry{Holder: holder, Token: res.Token, Nonce: nonce, Term: term, Version: nonce}, nil
}

// Renew implements LeaseStore with sqlrow.RenewSQL: an error wrapping
// ErrConflict if the server returned no row.
func (s *SQLStore) Renew(ctx context.Context, prev Entry, nonce string, term time.Duration) (Entry, error) {
	name, ms, token, seen := s.name, term.Milliseconds(), int64(prev.Token), prev.Version
	res, err := s.rows.Exec(ctx, sim.Statement{Op: OpRenew, Key: name,
		Cond: fmt.Sprintf("holder = '%s' AND token = %d AND nonce = '%s' AND NOT released", prev.Holder, token, seen),
		Apply: func(row any, now time.Time) (any, sim.RowResult) {
			next, t := sqlrow.Renew(leaseRow(row), name, prev.Holder, token, seen, nonce, ms, now)
			return stored(next), updateResult("UPDATE", t)
		}})
	switch {
	case err != nil:
		return Entry{}, fmt.Errorf("leadermgr: sql renew lease %q: %w", name, err)
	case res.Rows == 0:
		return Entry{}, fmt.Errorf("leadermgr: sql renew lease %q: %w", name, ErrConflict)
	}
	return Entry{Holder: prev.Holder, Token: prev.Token, Nonce: nonce, Term: term, Version: nonce}, nil
}

// Release implements LeaseStore with sqlrow.ReleaseSQL: an error wrapping
// ErrConflict if the server returned no row.
func (s *SQLStore) Release(ctx context.Context, prev Entry, nonce string) error {
	name, seen := s.name, prev.Version
	res, err := s.rows.Exec(ctx, sim.Statement{Op: OpRelease, Key: name,
		Cond: fmt.Sprintf("nonce = '%s' AND NOT released", seen),
		Apply: func(row any, now time.Time) (any, sim.RowResult) {
			next, t := sqlrow.Release(leaseRow(row), name, seen, nonce, now)
			return stored(next), updateResult("UPDATE", t)
		}})
	switch {
	case err != nil:
		return fmt.Errorf("leadermgr: sql release lease %q: %w", name, err)
	case res.Rows == 0:
		return fmt.Errorf("leadermgr: sql release lease %q: %w", name, ErrConflict)
	}
	return nil
}
