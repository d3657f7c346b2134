package pgbackend

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/s3lease/s3lease/designs/leadermgr/sqlrow"
)

// DB is what the backends need of a database handle: *pgxpool.Pool and
// *pgx.Conn both have it.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// NaiveSchema creates the document's table (sqlrow.NaiveSchema).
const NaiveSchema = sqlrow.NaiveSchema

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

// WriteEntry implements leadermgr.Backend with the document's statement
// (sqlrow.WriteEntrySQL, whose Go function sqlrow.WriteEntry
// leadermgr.SQLBackend runs under the simulator).
func (b *PostgresqlBackend) WriteEntry(ctx context.Context, leaderID string, ttl time.Duration) (bool, error) {
	result, err := b.db.Exec(ctx, sqlrow.WriteEntrySQL, b.key, leaderID, int64(ttl.Seconds()))
	if err != nil {
		return false, fmt.Errorf("pgbackend: write entry: %w", err)
	}
	return result.RowsAffected() == 1, nil
}
