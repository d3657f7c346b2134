package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/s3lease/s3lease/designs/leadermgr/sqlrow"
)

// testStatementsAgree runs every statement of package sqlrow on PostgreSQL
// and its Go function (which the simulator runs for it) on the same rows,
// and checks that they agree: the rows affected or the token returned, and
// the row left, valid_until to the microsecond. Each case runs in a
// transaction that is rolled back: inside it now() is the transaction's
// start, the same for every statement, so the rows can be set up at an
// exact distance from it (the boundary valid_until = now() included), and
// the function is given that instant.
func testStatementsAgree(t *testing.T, srv *pgServer) {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn(srv.addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	cases := 0
	inTx := func(name string, f func(tx pgx.Tx, now time.Time) error) {
		t.Helper()
		cases++
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		var now time.Time
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
			t.Fatal(err)
		}
		if err := f(tx, now); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	// The document's upsert.
	type naiveRow struct {
		id  string
		off time.Duration // valid_until - now()
	}
	for _, tc := range []struct {
		name string
		row  *naiveRow
		id   string
	}{
		{"absent", nil, "a"},
		{"expired, other", &naiveRow{"b", -time.Millisecond}, "a"},
		{"valid until now, other", &naiveRow{"b", 0}, "a"},
		{"valid, other", &naiveRow{"b", time.Second}, "a"},
		{"valid, same", &naiveRow{"a", time.Second}, "a"},
		{"expired, same", &naiveRow{"a", -time.Second}, "a"},
	} {
		inTx("write-entry "+tc.name, func(tx pgx.Tx, now time.Time) error {
			key := "agree-" + tc.name
			if tc.row != nil {
				if _, err := tx.Exec(ctx, `INSERT INTO leaderlock (key, leader_id, valid_until) VALUES ($1, $2, now() at time zone 'utc' + $3 * interval '1 microsecond')`,
					key, tc.row.id, tc.row.off.Microseconds()); err != nil {
					return err
				}
			}
			cur, err := readNaive(ctx, tx, key)
			if err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, sqlrow.WriteEntrySQL, key, tc.id, int64(8))
			if err != nil {
				return err
			}
			got, err := readNaive(ctx, tx, key)
			if err != nil {
				return err
			}
			want, n := sqlrow.WriteEntry(cur, key, tc.id, 8, now)
			if tag.RowsAffected() != n || !sameNaive(got, want) {
				return fmt.Errorf("PostgreSQL: %d rows, %v; sqlrow.WriteEntry: %d rows, %v", tag.RowsAffected(), got, n, want)
			}
			return nil
		})
	}

	// The lease's statements.
	type leaseRow struct {
		holder   string
		token    int64
		nonce    string
		off      time.Duration
		released bool
	}
	rows := map[string]*leaseRow{
		"absent":            nil,
		"expired":           {"b", 4, "x", -time.Millisecond, false},
		"valid until now":   {"b", 4, "x", 0, false},
		"valid":             {"b", 4, "x", time.Second, false},
		"released":          {"b", 4, "x", time.Second, true},
		"caller's":          {"a", 4, "x", time.Second, false},
		"caller's, expired": {"a", 4, "x", -time.Second, false},
		"caller's, other":   {"a", 4, "y", time.Second, false},
	}
	// A statement: its SQL and arguments for the row name, and what its
	// function makes of cur at now.
	type stmt struct {
		name string
		run  func(name string, cur *sqlrow.Lease, now time.Time) (sql string, args []any, want *sqlrow.Lease, token int64)
	}
	renew := func(holder string, token int64, seen string) stmt {
		return stmt{fmt.Sprintf("renew %s/%d/%s", holder, token, seen), func(name string, cur *sqlrow.Lease, now time.Time) (string, []any, *sqlrow.Lease, int64) {
			w, tk := sqlrow.Renew(cur, name, holder, token, seen, "n2", 3000, now)
			return sqlrow.RenewSQL, []any{name, holder, token, seen, "n2", int64(3000)}, w, tk
		}}
	}
	release := func(seen string) stmt {
		return stmt{"release " + seen, func(name string, cur *sqlrow.Lease, now time.Time) (string, []any, *sqlrow.Lease, int64) {
			w, tk := sqlrow.Release(cur, name, seen, "n3", now)
			return sqlrow.ReleaseSQL, []any{name, seen, "n3"}, w, tk
		}}
	}
	acquire := stmt{"acquire", func(name string, cur *sqlrow.Lease, now time.Time) (string, []any, *sqlrow.Lease, int64) {
		w, tk := sqlrow.Acquire(cur, name, "a", "n1", 2500, now)
		return sqlrow.AcquireSQL, []any{name, "a", "n1", int64(2500)}, w, tk
	}}
	stmts := []stmt{acquire, renew("a", 4, "x"), renew("b", 4, "x"), renew("a", 5, "x"), renew("a", 4, "y"), release("x"), release("y")}
	for rowName, r := range rows {
		for _, st := range stmts {
			inTx(st.name+" on "+rowName, func(tx pgx.Tx, now time.Time) error {
				name := "agree-" + rowName
				if r != nil {
					if _, err := tx.Exec(ctx, `INSERT INTO lease (name, holder, token, nonce, term_ms, valid_until, released) VALUES ($1, $2, $3, $4, 6000, now() + $5 * interval '1 microsecond', $6)`,
						name, r.holder, r.token, r.nonce, r.off.Microseconds(), r.released); err != nil {
						return err
					}
				}
				cur, err := readLease(ctx, tx, name)
				if err != nil {
					return err
				}
				sql, args, want, wantToken := st.run(name, cur, now)
				var token int64
				err = tx.QueryRow(ctx, sql, args...).Scan(&token)
				if errors.Is(err, pgx.ErrNoRows) {
					token, err = 0, nil
				}
				if err != nil {
					return err
				}
				got, err := readLease(ctx, tx, name)
				if err != nil {
					return err
				}
				if token != wantToken || !sameLease(got, want) {
					return fmt.Errorf("PostgreSQL: token %d, %v; sqlrow: token %d, %v", token, got, wantToken, want)
				}
				return nil
			})
		}
	}
	t.Logf("%d statements compared with their sqlrow functions", cases)
}

// readNaive reads the row of key in the document's table, nil if none.
func readNaive(ctx context.Context, tx pgx.Tx, key string) (*sqlrow.LeaderLock, error) {
	r := sqlrow.LeaderLock{Key: key}
	err := tx.QueryRow(ctx, `SELECT leader_id, valid_until FROM leaderlock WHERE key = $1`, key).Scan(&r.LeaderID, &r.ValidUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &r, err
}

// readLease reads the row of name in the lease table, nil if none.
func readLease(ctx context.Context, tx pgx.Tx, name string) (*sqlrow.Lease, error) {
	r := sqlrow.Lease{Name: name}
	err := tx.QueryRow(ctx, `SELECT holder, token, nonce, term_ms, valid_until, released FROM lease WHERE name = $1`, name).
		Scan(&r.Holder, &r.Token, &r.Nonce, &r.TermMS, &r.ValidUntil, &r.Released)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return &r, err
}

// sameNaive and sameLease compare rows, their instants as instants.
func sameNaive(a, b *sqlrow.LeaderLock) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Key == b.Key && a.LeaderID == b.LeaderID && a.ValidUntil.Equal(b.ValidUntil)
}

func sameLease(a, b *sqlrow.Lease) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.ValidUntil, y.ValidUntil = time.Time{}, time.Time{}
	return x == y && a.ValidUntil.Equal(b.ValidUntil)
}
