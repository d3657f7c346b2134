package pgbackend

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what the backends need of a database handle: *pgxpool.Pool and
// *pgx.Conn both have it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// NaiveSchema creates the document's table.
const NaiveSchema = `CREATE TABLE IF NOT EXISTS leaderlock (
	key         text PRIMARY KEY,
	leader_id   text NOT NULL,
	valid_until timestamp NOT NULL
)`

// PostgresqlBackend is the document's backend, as written: WriteEntry
// inserts or updates the row of key, valid_until = NOW() + term (in whole
// seconds, as the document converts it: int64(ttl.Seconds())), on
// condition that the row has expired by the server's clock or already
// names leaderID, and reports whether a row was written. Renewal is
// conditioned on the identity alone.
type PostgresqlBackend struct {
	key string
	db  DB
}

// NewPostgresqlBackend returns the document's backend for the row key in
// the table NaiveSchema creates.
func NewPostgresqlBackend(db DB, key string) *PostgresqlBackend {
	return &PostgresqlBackend{key: key, db: db}
}

// WriteEntry implements leadermgr.Backend with the document's statement.
func (b *PostgresqlBackend) WriteEntry(ctx context.Context, leaderID string, ttl time.Duration) (bool, error) {
	result, err := b.db.Exec(ctx, `
    INSERT INTO leaderlock as t (key, leader_id, valid_until) VALUES ($1, $2, NOW() at time zone 'utc' + $3 * INTERVAL '1 seconds'  ) 
	ON CONFLICT (key) DO
	UPDATE SET leader_id = $2, valid_until =  NOW() at time zone 'utc' + $3 * INTERVAL '1 seconds'
	WHERE t.valid_until < NOW() at time zone 'utc' OR t.leader_id = $2
    `, b.key, leaderID, int64(ttl.Seconds()))
	if err != nil {
		return false, fmt.Errorf("pgbackend: write entry: %w", err)
	}
	return result.RowsAffected() == 1, nil
}
